// Real stores written on the host filesystem for the tests of what hintfs
// reads from their MANIFESTs: keys "key<N>" with 200-byte random values,
// buffers and tables of 64 KiB so that both flush and compact.
#ifndef HINTFS_TESTS_HINTS_TEST_STORES_H_
#define HINTFS_TESTS_HINTS_TEST_STORES_H_

#include <gtest/gtest.h>

#include <dirent.h>

#include <random>
#include <string>
#include <vector>

#include <leveldb/db.h>
#include <rocksdb/db.h>

#include "tests/hints/test_tables.h"

namespace hintfs {
namespace test {

// The names in dir (host filesystem).
inline std::vector<std::string> List(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  while (struct dirent* e = d ? readdir(d) : nullptr) names.push_back(e->d_name);
  if (d) closedir(d);
  return names;
}

// The path of dir's MANIFEST, or empty if it has none.
inline std::string FindManifest(const std::string& dir) {
  for (const auto& n : List(dir)) {
    if (n.rfind("MANIFEST-", 0) == 0) return dir + "/" + n;
  }
  return "";
}

// Writes a RocksDB store in dir and returns its MANIFEST's path.
inline std::string WriteRocksDb(const std::string& dir) {
  rocksdb::Options o;
  o.create_if_missing = true;
  o.write_buffer_size = 64 << 10;
  o.target_file_size_base = 64 << 10;
  o.max_bytes_for_level_base = 256 << 10;
  o.level0_file_num_compaction_trigger = 2;
  o.compression = rocksdb::kNoCompression;
  rocksdb::DB* db = nullptr;
  EXPECT_TRUE(rocksdb::DB::Open(o, dir, &db).ok());
  std::mt19937_64 rng(3);
  std::string v(200, 'x');
  for (int i = 0; i < 40000; i++) {
    for (char& c : v) c = static_cast<char>(rng());
    db->Put(rocksdb::WriteOptions(), "key" + std::to_string(rng() % 30000), v);
  }
  db->Flush(rocksdb::FlushOptions());
  db->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr);
  delete db;
  return FindManifest(dir);
}

// The same for LevelDB (tables *.ldb).
inline std::string WriteLevelDb(const std::string& dir) {
  leveldb::Options o;
  o.create_if_missing = true;
  o.write_buffer_size = 64 << 10;
  o.max_file_size = 64 << 10;
  o.compression = leveldb::kNoCompression;
  leveldb::DB* db = nullptr;
  EXPECT_TRUE(leveldb::DB::Open(o, dir, &db).ok());
  std::mt19937_64 rng(4);
  std::string v(200, 'x');
  for (int i = 0; i < 40000; i++) {
    for (char& c : v) c = static_cast<char>(rng());
    db->Put(leveldb::WriteOptions(), "key" + std::to_string(rng() % 30000), v);
  }
  db->CompactRange(nullptr, nullptr);
  delete db;
  return FindManifest(dir);
}

}  // namespace test
}  // namespace hintfs

#endif  // HINTFS_TESTS_HINTS_TEST_STORES_H_
