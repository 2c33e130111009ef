// LevelDB on hintfs through the Env: the same coverage as RocksDB, and
// power cuts that must never lose a write acknowledged with sync=true.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <leveldb/db.h>
#include <leveldb/write_batch.h>
#include <nlohmann/json.hpp>

#include "adapters/common/mount_registry.h"
#include "adapters/leveldb/hintfs_leveldb.h"
#include "fs/device/emulated_device.h"
#include "fs/device/fault_injection.h"
#include "hints/block_index_keeper.h"
#include "hints/file_kind.h"
#include "tests/fs/test_util.h"

namespace hintfs {
namespace {

std::string Key(long i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%010ld", i);
  return buf;
}
std::string Value(long i, int round = 0) {
  return "value-" + std::to_string(i) + "-" + std::to_string(round) + std::string(90, 'l');
}

class LevelDbOnHintfs : public ::testing::Test {
 protected:
  void SetUp() override {
    spec_ = "mem:" + test::UniqueName("level");
    ASSERT_TRUE(NewHintLevelDbEnv(spec_, &env_).ok());
    options_.env = env_.get();
    options_.create_if_missing = true;
    options_.write_buffer_size = 256 << 10;
    options_.max_file_size = 256 << 10;
  }
  void TearDown() override {
    db_.reset();
    env_.reset();
    DestroyMemDevice(spec_.substr(4));
    DestroyMemDevice(spec_.substr(4) + ".slow");
  }
  void Open() {
    leveldb::DB* db = nullptr;
    leveldb::Status s = leveldb::DB::Open(options_, "/db/level", &db);
    ASSERT_TRUE(s.ok()) << s.ToString();
    db_.reset(db);
  }

  std::string spec_;
  std::unique_ptr<leveldb::Env> env_;
  leveldb::Options options_;
  std::unique_ptr<leveldb::DB> db_;
};

TEST_F(LevelDbOnHintfs, ManyKeysAcrossCompactionsAndReopen) {
  Open();
  const long n = 110000;
  for (long i = 0; i < n; i++) ASSERT_TRUE(db_->Put(leveldb::WriteOptions(), Key(i), Value(i)).ok());
  leveldb::WriteBatch batch;
  for (long i = 0; i < n; i += 10) batch.Delete(Key(i));
  for (long i = 1; i < n; i += 10) batch.Put(Key(i), Value(i, 1));
  ASSERT_TRUE(db_->Write(leveldb::WriteOptions(), &batch).ok());
  db_->CompactRange(nullptr, nullptr);
  db_.reset();
  Open();
  long seen = 0;
  std::unique_ptr<leveldb::Iterator> it(db_->NewIterator(leveldb::ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    long i = std::atol(it->key().ToString().substr(3).c_str());
    ASSERT_NE(i % 10, 0);
    ASSERT_EQ(it->value().ToString(), Value(i, i % 10 == 1 ? 1 : 0));
    seen++;
  }
  ASSERT_TRUE(it->status().ok());
  EXPECT_EQ(seen, n - n / 10);
  it.reset();
  std::string stats;
  ASSERT_TRUE(db_->GetProperty("leveldb.stats", &stats));
  db_.reset();
  std::shared_ptr<Filesystem> fs;
  ASSERT_TRUE(AcquireMount(spec_, &fs).ok());
  FsckReport report;
  ASSERT_TRUE(fs->Check(true, &report, nullptr).ok());
  EXPECT_TRUE(report.ok());
}

TEST_F(LevelDbOnHintfs, DestroyAndRepair) {
  Open();
  for (long i = 0; i < 20000; i++) ASSERT_TRUE(db_->Put(leveldb::WriteOptions(), Key(i), Value(i)).ok());
  db_.reset();
  ASSERT_TRUE(leveldb::RepairDB("/db/level", options_).ok());
  Open();
  std::string v;
  ASSERT_TRUE(db_->Get(leveldb::ReadOptions(), Key(12345), &v).ok());
  EXPECT_EQ(v, Value(12345));
  db_.reset();
  ASSERT_TRUE(leveldb::DestroyDB("/db/level", options_).ok());
  EXPECT_FALSE(env_->FileExists("/db/level/CURRENT"));
}

TEST_F(LevelDbOnHintfs, SecondOpenIsLockedOut) {
  Open();
  leveldb::DB* other = nullptr;
  EXPECT_FALSE(leveldb::DB::Open(options_, "/db/level", &other).ok());
  delete other;
}

TEST_F(LevelDbOnHintfs, ManifestTellsPlacementTheLevels) {
  // LevelDB sends no hints: its MANIFEST, read as it is written, does.
  spec_ = "mem:" + test::UniqueName("levelpol");
  ASSERT_TRUE(NewHintLevelDbEnv(spec_ + "?policy=b2", &env_).ok());
  options_.env = env_.get();
  Open();
  for (long i = 0; i < 60000; i++) ASSERT_TRUE(db_->Put(leveldb::WriteOptions(), Key(i), Value(i)).ok());
  db_->CompactRange(nullptr, nullptr);
  db_.reset();
  std::shared_ptr<Filesystem> fs;
  ASSERT_TRUE(AcquireMount(spec_, &fs).ok());
  auto knowledge = nlohmann::json::parse(fs->PolicyStateJson())["level_knowledge"];
  EXPECT_GT(knowledge["known_levels"].get<int>(), 0) << knowledge.dump();
  std::cout << "leveldb level knowledge: " << knowledge.dump() << "\n";
}

// LevelDB names no compaction to anyone: hintfs infers each one from the
// scans of its inputs before its first output, and the MANIFEST scores it.
TEST_F(LevelDbOnHintfs, CompactionsAreInferredFromTheirReads) {
  spec_ = "mem:" + test::UniqueName("levelinf");
  ASSERT_TRUE(NewHintLevelDbEnv(spec_ + "?policy=hhzs", &env_).ok());
  options_.env = env_.get();
  options_.write_buffer_size = 128 << 10;
  options_.max_file_size = 128 << 10;
  Open();
  std::mt19937_64 rng(7);
  for (long i = 0; i < 80000; i++) {
    long k = static_cast<long>(rng() % 50000);
    ASSERT_TRUE(db_->Put(leveldb::WriteOptions(), Key(k), Value(k, static_cast<int>(i))).ok());
  }
  db_.reset();
  std::shared_ptr<Filesystem> fs;
  ASSERT_TRUE(AcquireMount(spec_, &fs).ok());
  auto k = nlohmann::json::parse(fs->PolicyStateJson())["level_knowledge"];
  std::cout << "leveldb compaction inference: " << k.dump() << "\n";
  EXPECT_GT(k["inferred_compactions"].get<int>(), 0) << k.dump();
  EXPECT_GT(k["inferred_outputs_right"].get<int>(), k["inferred_outputs_wrong"].get<int>()) << k.dump();
  EXPECT_GT(k["inferred_inputs_right"].get<int>(), k["inferred_inputs_wrong"].get<int>()) << k.dump();
}

// LevelDB reads a compaction's inputs a block at a time: the filesystem
// reads them ahead (fs/readahead.h), unless the URI says readahead=off.
TEST_F(LevelDbOnHintfs, CompactionsReadTheirInputsAhead) {
  std::unique_ptr<leveldb::Env> bad;
  EXPECT_FALSE(NewHintLevelDbEnv("mem:" + test::UniqueName("levelra") + "?readahead=lots", &bad).ok());
  for (const std::string& query : {std::string(""), std::string("?readahead=off")}) {
    db_.reset();
    env_.reset();
    spec_ = "mem:" + test::UniqueName("levelra");
    ASSERT_TRUE(NewHintLevelDbEnv(spec_ + query, &env_).ok());
    options_.env = env_.get();
    Open();
    std::mt19937_64 rng(3);  // random keys: sequential ones would make every compaction a move
    for (long i = 0; i < 40000; i++) {
      long k = static_cast<long>(rng() % 30000);
      ASSERT_TRUE(db_->Put(leveldb::WriteOptions(), Key(k), Value(k)).ok());
    }
    ASSERT_TRUE(db_->Put(leveldb::WriteOptions(), Key(31415), Value(31415)).ok());
    db_->CompactRange(nullptr, nullptr);
    std::string v;
    ASSERT_TRUE(db_->Get(leveldb::ReadOptions(), Key(31415), &v).ok());
    EXPECT_EQ(v, Value(31415));
    std::shared_ptr<Filesystem> fs;
    ASSERT_TRUE(AcquireMount(spec_, &fs).ok());
    FsStats st = fs->Stats();
    if (query.empty()) {
      EXPECT_GT(st.readahead_fetches, 0u);
      EXPECT_GT(st.readahead_reads_served, 10 * st.readahead_fetches) << "blocks per window read";
    } else {
      EXPECT_EQ(st.readahead_fetches, 0u);
      EXPECT_EQ(st.readahead_reads_served, 0u);
    }
    fs.reset();
    db_.reset();
    env_.reset();
    DestroyMemDevice(spec_.substr(4));
    DestroyMemDevice(spec_.substr(4) + ".slow");
  }
}

// Every table LevelDB leaves behind has a block index, built from the bytes
// it wrote (no table read back, none rebuilt at the next mount).
TEST_F(LevelDbOnHintfs, EveryTableGetsABlockIndexAsItIsWritten) {
  options_.compression = leveldb::kNoCompression;  // the values compress to almost nothing
  options_.write_buffer_size = 128 << 10;
  options_.max_file_size = 128 << 10;
  Open();
  std::mt19937_64 rng(5);
  for (long i = 0; i < 40000; i++) {
    long k = static_cast<long>(rng() % 30000);
    ASSERT_TRUE(db_->Put(leveldb::WriteOptions(), Key(k), Value(k, static_cast<int>(i))).ok());
  }
  // Compactions done: closing in the middle of one would leave its partial
  // output behind, a file named like a table that is none (and gets no index).
  db_->CompactRange(nullptr, nullptr);
  db_.reset();
  env_.reset();  // the last holder: the mount stops and saves the keeper's statistics
  std::shared_ptr<Filesystem> fs;
  ASSERT_TRUE(AcquireMount(spec_, &fs).ok());
  auto stats = nlohmann::json::parse(fs->Attributes()["block_index"]);
  EXPECT_GT(stats["indexed"].get<int>(), 10) << stats.dump();
  EXPECT_EQ(stats["read_back"].get<int>(), 0) << stats.dump();
  EXPECT_EQ(stats["unparsable"].get<int>(), 0) << stats.dump();
  std::vector<DirEntry> tables, indexes;
  ASSERT_TRUE(fs->ReadDir("/db/level", &tables).ok());
  ASSERT_TRUE(fs->ReadDir(kBlockIndexDirectory, &indexes).ok());
  std::set<std::string> want, have;
  for (const DirEntry& e : tables) {
    if (IsTableFile(e.name)) want.insert(fmt::format("{:016x}", e.inode));
  }
  for (const DirEntry& e : indexes) have.insert(e.name);
  EXPECT_GE(want.size(), 2u);
  EXPECT_EQ(have, want) << "one index per live table, none for deleted ones";
  FsckReport report;
  CheckBlockIndexes(fs.get(), &report);
  EXPECT_TRUE(report.errors.empty() && report.warnings.empty());
}

// Block tiering under LevelDB: with all-slow its tables live on the slow
// tier; reads of a few keys again and again move their blocks up, and every
// key still reads back.
TEST_F(LevelDbOnHintfs, HotBlocksOfSlowTablesMoveUp) {
  db_.reset();
  env_.reset();
  DestroyMemDevice(spec_.substr(4));  // the fixture's, unused here
  DestroyMemDevice(spec_.substr(4) + ".slow");
  spec_ = "mem:" + test::UniqueName("blocks");
  ASSERT_TRUE(NewHintLevelDbEnv(spec_ + "?policy=all-slow&blocks=1MiB", &env_).ok());
  options_.env = env_.get();
  options_.compression = leveldb::kNoCompression;
  options_.write_buffer_size = 128 << 10;
  options_.max_file_size = 128 << 10;
  Open();
  for (long i = 0; i < 20000; i++) ASSERT_TRUE(db_->Put(leveldb::WriteOptions(), Key(i), Value(i)).ok());
  db_->CompactRange(nullptr, nullptr);
  leveldb::ReadOptions uncached;
  uncached.fill_cache = false;  // every Get reads its block from the filesystem
  std::string v;
  // Tables are indexed, and blocks moved, in the background: read until the
  // tables hold ten 8 KiB moves on the fast tier (or give up after many rounds).
  std::shared_ptr<Filesystem> fs;
  ASSERT_TRUE(AcquireMount(spec_, &fs).ok());
  auto fast_table_bytes = [&] {
    std::vector<DirEntry> entries;
    uint64_t fast = 0;
    if (!fs->ReadDir("/db/level", &entries).ok()) return fast;
    for (const DirEntry& e : entries) {
      FileStat st;
      if (!IsTableFile(e.name) || !fs->Stat("/db/level/" + e.name, &st).ok()) continue;
      for (const Extent& x : st.extents) {
        if (fs->superblock().members[x.device].tier == Tier::kFast) fast += x.length;
      }
    }
    return fast;
  };
  for (int round = 0; round < 2000 && fast_table_bytes() < 20 * 4096; round++) {
    for (long k = 1000; k < 20000; k += 1000) {
      ASSERT_TRUE(db_->Get(uncached, Key(k), &v).ok());
      ASSERT_EQ(v, Value(k));
    }
    if (round % 10 == 9) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  fs.reset();
  db_.reset();
  env_.reset();
  ASSERT_TRUE(AcquireMount(spec_, &fs).ok());
  auto stats = nlohmann::json::parse(fs->Attributes()["block_tiering"]);
  EXPECT_GE(stats["promoted_blocks"].get<int>(), 10) << stats.dump();
  EXPECT_LE(stats["resident_bytes"].get<uint64_t>(), (1u << 20) + 8192) << stats.dump();
  fs.reset();
  ASSERT_TRUE(NewHintLevelDbEnv(spec_, &env_).ok());
  options_.env = env_.get();
  Open();
  for (long k = 0; k < 20000; k += 7) {
    ASSERT_TRUE(db_->Get(leveldb::ReadOptions(), Key(k), &v).ok());
    ASSERT_EQ(v, Value(k));
  }
}

// LevelDB runs under every placement policy (levels from its MANIFEST and
// the I/O pattern) and reads back what it wrote.
class LevelDbUnderPolicy : public ::testing::TestWithParam<std::string> {};

TEST_P(LevelDbUnderPolicy, WritesCompactsAndReadsBack) {
  std::string name = test::UniqueName("lpol");
  setenv("HINTFS_MEM_FAST", "zone_size=256KiB&zones=24", 1);
  setenv("HINTFS_MEM_SLOW", "zone_size=256KiB&zones=200", 1);
  std::unique_ptr<leveldb::Env> env;
  ASSERT_TRUE(NewHintLevelDbEnv("mem:" + name + "?policy=" + GetParam(), &env).ok());
  leveldb::Options o;
  o.env = env.get();
  o.create_if_missing = true;
  o.write_buffer_size = 128 << 10;
  o.max_file_size = 128 << 10;
  {
    leveldb::DB* raw = nullptr;
    ASSERT_TRUE(leveldb::DB::Open(o, "/db", &raw).ok());
    std::unique_ptr<leveldb::DB> db(raw);
    std::mt19937_64 rng(3);
    for (long i = 0; i < 30000; i++) {
      long k = static_cast<long>(rng() % 20000);
      ASSERT_TRUE(db->Put(leveldb::WriteOptions(), Key(k), Value(k, static_cast<int>(i))).ok());
    }
    db->CompactRange(nullptr, nullptr);
  }
  std::shared_ptr<Filesystem> fs;
  ASSERT_TRUE(AcquireMount("mem:" + name, &fs).ok());
  std::vector<DirEntry> entries;
  ASSERT_TRUE(fs->ReadDir("/db", &entries).ok());
  bool any_fast = false, any_slow = false;
  for (const auto& e : entries) {
    FileStat st;
    ASSERT_TRUE(fs->Stat("/db/" + e.name, &st).ok());
    for (const Extent& x : st.extents) {
      (fs->superblock().members[x.device].tier == Tier::kFast ? any_fast : any_slow) = true;
    }
  }
  if (GetParam() == "all-slow") {
    EXPECT_FALSE(any_fast);
  }
  if (GetParam() == "all-fast" || GetParam() == "fast-first") {
    EXPECT_TRUE(any_fast);
  }
  EXPECT_TRUE(any_fast || any_slow);
  fs.reset();
  {
    leveldb::DB* raw = nullptr;
    ASSERT_TRUE(leveldb::DB::Open(o, "/db", &raw).ok());
    std::unique_ptr<leveldb::DB> db(raw);
    std::mt19937_64 rng(3);
    std::map<long, int> last;
    for (long i = 0; i < 30000; i++) last[static_cast<long>(rng() % 20000)] = static_cast<int>(i);
    for (const auto& [k, round] : last) {
      std::string v;
      ASSERT_TRUE(db->Get(leveldb::ReadOptions(), Key(k), &v).ok()) << Key(k);
      ASSERT_EQ(v, Value(k, round));
    }
  }
  env.reset();
  unsetenv("HINTFS_MEM_FAST");
  unsetenv("HINTFS_MEM_SLOW");
  DestroyMemDevice(name);
  DestroyMemDevice(name + ".slow");
}

INSTANTIATE_TEST_SUITE_P(Policies, LevelDbUnderPolicy,
                         ::testing::Values("fast-first", "hhzs:table_bytes=256KiB,wal_budget=512KiB", "auto",
                                           "b1", "b2", "b3", "b4", "all-fast", "all-slow"),
                         [](const auto& info) {
                           std::string n = info.param.substr(0, info.param.find(':'));
                           for (char& c : n) if (c == '-') c = '_';
                           return n;
                         });

TEST(LevelDbCrash, PowerCutNeverLosesSyncedWrites) {
  int cycles = std::getenv("HINTFS_CRASH_CYCLES") ? std::atoi(std::getenv("HINTFS_CRASH_CYCLES")) : 50;
  std::string name = test::UniqueName("lpower");
  std::mt19937_64 rng(11);
  long acked = 0, verified = 0;
  for (int cycle = 0; cycle < cycles; cycle++) {
    std::string domain = name + "-" + std::to_string(cycle);
    uint64_t cut_after = 20 + rng() % 400;
    setenv("HINTFS_DEVICE_PARAMS", ("power_domain=" + domain + "&power_cut_after=" + std::to_string(cut_after)).c_str(), 1);
    long last = acked - 1;
    {
      std::unique_ptr<leveldb::Env> env;
      ASSERT_TRUE(NewHintLevelDbEnv("mem:" + name, &env).ok());
      leveldb::Options options;
      options.env = env.get();
      options.create_if_missing = true;
      options.write_buffer_size = 64 << 10;
      leveldb::DB* db = nullptr;
      if (leveldb::DB::Open(options, "/db", &db).ok()) {
        leveldb::WriteOptions sync;
        sync.sync = true;
        for (long i = acked; i < acked + 100000; i++) {
          if (!db->Put(sync, Key(i), Value(i)).ok()) break;
          last = i;
        }
        delete db;
      }
    }
    unsetenv("HINTFS_DEVICE_PARAMS");
    ResetPowerDomain(domain);
    std::unique_ptr<leveldb::Env> env;
    ASSERT_TRUE(NewHintLevelDbEnv("mem:" + name, &env).ok());
    leveldb::Options options;
    options.env = env.get();
    leveldb::DB* raw = nullptr;
    leveldb::Status s = leveldb::DB::Open(options, "/db", &raw);
    ASSERT_TRUE(s.ok()) << "cycle " << cycle << ": " << s.ToString();
    std::unique_ptr<leveldb::DB> db(raw);
    for (long i = 0; i <= last; i++) {
      std::string v;
      s = db->Get(leveldb::ReadOptions(), Key(i), &v);
      ASSERT_TRUE(s.ok() && v == Value(i)) << "cycle " << cycle << ": acknowledged key " << i << " lost";
    }
    verified += last + 1;
    acked = last + 1;
    std::string v;
    while (db->Get(leveldb::ReadOptions(), Key(acked), &v).ok()) acked++;
    std::shared_ptr<Filesystem> fs;
    ASSERT_TRUE(AcquireMount("mem:" + name, &fs).ok());
    FsckReport report;
    ASSERT_TRUE(fs->Check(false, &report, nullptr).ok());
    ASSERT_TRUE(report.ok()) << "cycle " << cycle << ": fsck: " << report.errors[0];
  }
  std::cout << "leveldb power-cut cycles: " << cycles << ", acknowledged writes verified: " << verified
            << ", keys in the final DB: " << acked << "\n";
  DestroyMemDevice(name);
  DestroyMemDevice(name + ".slow");
}

}  // namespace
}  // namespace hintfs
