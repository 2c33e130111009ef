// HHZS migration while RocksDB and LevelDB read and write: a fast tier far
// too small for the data, a fast migration rate and a low slow-tier IOPS
// figure, so tables move both ways during the run. Every value carries its
// key and version and is checked on every read; after the run and a remount
// every key reads back its last version.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <random>
#include <thread>

#include <leveldb/db.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>

#include "adapters/common/mount_registry.h"
#include "adapters/leveldb/hintfs_leveldb.h"
#include "adapters/rocksdb/hintfs_rocksdb.h"
#include "fs/device/emulated_device.h"
#include "tests/fs/test_util.h"

namespace hintfs {
namespace {

constexpr int kKeys = 20000;
constexpr int kMinWrites = 60000;
constexpr int kMaxWrites = 2000000;

std::string Key(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "k%08d", i);
  return buf;
}

// 200 bytes that only this key and version produce.
std::string Value(int key, int version) {
  std::string v = Key(key) + "/" + std::to_string(version) + "/";
  uint64_t x = static_cast<uint64_t>(key) * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(version);
  while (v.size() < 200) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    v += static_cast<char>('a' + x % 26);
  }
  return v;
}

// The version a value claims, or -1 if it is not exactly Value(key, version).
int CheckValue(int key, const std::string& v) {
  size_t a = v.find('/'), b = v.find('/', a + 1);
  if (a == std::string::npos || b == std::string::npos) return -1;
  int version = std::atoi(v.substr(a + 1, b - a - 1).c_str());
  return v == Value(key, version) ? version : -1;
}

// A mem filesystem whose fast tier holds a small part of the data, under
// hhzs with aggressive migration.
std::string MakeSpec(const std::string& name) {
  setenv("HINTFS_MEM_FAST", "zone_size=256KiB&zones=28", 1);
  setenv("HINTFS_MEM_SLOW", "zone_size=256KiB&zones=600", 1);
  return "mem:" + name +
         "?policy=hhzs:table_bytes=256KiB,wal_budget=1MiB,migration_rate=64MiB,slow_read_iops=20";
}

void CleanUp(const std::string& name) {
  unsetenv("HINTFS_MEM_FAST");
  unsetenv("HINTFS_MEM_SLOW");
  DestroyMemDevice(name);
  DestroyMemDevice(name + ".slow");
}

// Runs a writer and readers through put/get for at least kMinWrites writes
// and until migrated() says enough has moved (at most kMaxWrites); versions[k]
// is the last version written of key k.
template <typename Put, typename Get, typename Migrated>
void ReadWhileWriting(Put put, Get get, Migrated migrated, std::vector<int>* versions,
                      std::atomic<int>* bad_reads) {
  versions->assign(kKeys, -1);
  for (int k = 0; k < kKeys; k++) {
    ASSERT_TRUE(put(k, 0));
    (*versions)[k] = 0;
  }
  std::atomic<bool> done{false};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; t++) {
    readers.emplace_back([&, t] {
      std::mt19937 rng(t);
      while (!done) {
        // Skewed: a few keys are read far more often (popularity migration).
        int k = static_cast<int>(rng() % 10 < 7 ? rng() % 200 : rng() % kKeys);
        std::string v;
        if (!get(k, &v) || CheckValue(k, v) < 0) (*bad_reads)++;
      }
    });
  }
  std::mt19937 rng(42);
  for (int i = 0; i < kMaxWrites && (i < kMinWrites || i % 1000 != 0 || !migrated()); i++) {
    int k = static_cast<int>(rng() % kKeys);
    int version = (*versions)[k] + 1;
    ASSERT_TRUE(put(k, version));
    (*versions)[k] = version;
  }
  done = true;
  for (auto& r : readers) r.join();
}

TEST(MigrationUnderLoad, RocksDb) {
  std::string name = test::UniqueName("migr");
  std::string spec = MakeSpec(name);
  std::shared_ptr<rocksdb::FileSystem> fs;
  rocksdb::ConfigOptions cfg;
  ASSERT_TRUE(rocksdb::FileSystem::CreateFromString(cfg, "hintfs://" + spec, &fs).ok());
  std::shared_ptr<Filesystem> mounted;
  ASSERT_TRUE(AcquireMount("mem:" + name, &mounted).ok());
  auto env = rocksdb::NewCompositeEnv(fs);
  rocksdb::Options o;
  o.env = env.get();
  o.create_if_missing = true;
  o.write_buffer_size = 256 << 10;
  o.target_file_size_base = 240 << 10;
  o.max_bytes_for_level_base = 1 << 20;
  o.compression = rocksdb::kNoCompression;
  o.listeners.push_back(NewHintRocksListener());
  std::vector<int> versions;
  std::atomic<int> bad{0};
  {
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(o, "/db", &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    ReadWhileWriting(
        [&](int k, int v) { return db->Put(rocksdb::WriteOptions(), Key(k), Value(k, v)).ok(); },
        [&](int k, std::string* v) { return db->Get(rocksdb::ReadOptions(), Key(k), v).ok(); },
        [&] {
          FsStats st = mounted->Stats();
          return st.migrations[0] > 0 && st.migrations[1] > 0;
        },
        &versions, &bad);
    EXPECT_EQ(bad.load(), 0);
    FsStats st = mounted->Stats();
    std::cout << "migrated: " << st.migrations[0] << " tables (" << st.migrated_bytes[0] << " bytes) to fast, "
              << st.migrations[1] << " (" << st.migrated_bytes[1] << ") to slow\n";
    EXPECT_GT(st.migrations[1], 0u) << "capacity migration never ran";
    EXPECT_GT(st.migrations[0], 0u) << "popularity migration never ran";
    ASSERT_TRUE(db->Close().ok());
  }
  env.reset();
  fs.reset();
  mounted.reset();  // unmounts; the migrator stops first
  // A fresh mount and a fresh DB see every last version.
  rocksdb::Status rs = rocksdb::FileSystem::CreateFromString(cfg, "hintfs://" + spec, &fs);
  ASSERT_TRUE(rs.ok()) << rs.ToString();
  env = rocksdb::NewCompositeEnv(fs);
  o.env = env.get();
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(o, "/db", &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  for (int k = 0; k < kKeys; k++) {
    std::string v;
    ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), Key(k), &v).ok()) << Key(k);
    ASSERT_EQ(CheckValue(k, v), versions[k]) << Key(k);
  }
  ASSERT_TRUE(db->Close().ok());
  db.reset();
  env.reset();
  fs.reset();
  CleanUp(name);
}

TEST(MigrationUnderLoad, LevelDb) {
  std::string name = test::UniqueName("migl");
  std::string spec = MakeSpec(name);
  std::unique_ptr<leveldb::Env> env;
  ASSERT_TRUE(NewHintLevelDbEnv(spec, &env).ok());
  std::shared_ptr<Filesystem> mounted;
  ASSERT_TRUE(AcquireMount("mem:" + name, &mounted).ok());
  leveldb::Options o;
  o.env = env.get();
  o.create_if_missing = true;
  o.write_buffer_size = 256 << 10;
  o.max_file_size = 240 << 10;
  o.compression = leveldb::kNoCompression;
  std::vector<int> versions;
  std::atomic<int> bad{0};
  {
    leveldb::DB* raw = nullptr;
    ASSERT_TRUE(leveldb::DB::Open(o, "/db", &raw).ok());
    std::unique_ptr<leveldb::DB> db(raw);
    ReadWhileWriting(
        [&](int k, int v) { return db->Put(leveldb::WriteOptions(), Key(k), Value(k, v)).ok(); },
        [&](int k, std::string* v) { return db->Get(leveldb::ReadOptions(), Key(k), v).ok(); },
        [&] {
          FsStats st = mounted->Stats();
          return st.migrations[0] + st.migrations[1] > 0;
        },
        &versions, &bad);
    EXPECT_EQ(bad.load(), 0);
    FsStats st = mounted->Stats();
    std::cout << "migrated: " << st.migrations[0] << " tables to fast, " << st.migrations[1] << " to slow\n";
    EXPECT_GT(st.migrations[0] + st.migrations[1], 0u) << "no migration ran";
  }
  env.reset();
  mounted.reset();
  leveldb::Status ls = NewHintLevelDbEnv(spec, &env);
  ASSERT_TRUE(ls.ok()) << ls.ToString();
  o.env = env.get();
  leveldb::DB* raw = nullptr;
  ASSERT_TRUE(leveldb::DB::Open(o, "/db", &raw).ok());
  std::unique_ptr<leveldb::DB> db(raw);
  for (int k = 0; k < kKeys; k++) {
    std::string v;
    ASSERT_TRUE(db->Get(leveldb::ReadOptions(), Key(k), &v).ok()) << Key(k);
    ASSERT_EQ(CheckValue(k, v), versions[k]) << Key(k);
  }
  db.reset();
  env.reset();
  CleanUp(name);
}

}  // namespace
}  // namespace hintfs
