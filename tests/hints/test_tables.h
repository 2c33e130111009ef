// Table files written by the real stores' table builders, for the tests of
// what hintfs reads from tables (table_map.h, block_index.h): keys
// "keyNNNNNNNN" in order, values of 60-99 bytes.
#ifndef HINTFS_TESTS_HINTS_TEST_TABLES_H_
#define HINTFS_TESTS_HINTS_TEST_TABLES_H_

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <leveldb/env.h>
#include <leveldb/options.h>
#include <leveldb/table_builder.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/table.h>

namespace hintfs {
namespace test {

inline std::string TableKey(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "key%08d", i);
  return buf;
}
inline std::string TableValue(int i) { return std::string(60 + i % 40, static_cast<char>('a' + i % 26)); }

inline std::string Slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A LevelDB table of n keys at path, 1 KiB blocks; returns its bytes.
inline std::string WriteLevelDbTable(const std::string& path, bool snappy, int n) {
  leveldb::Options o;
  o.block_size = 1024;
  o.compression = snappy ? leveldb::kSnappyCompression : leveldb::kNoCompression;
  leveldb::WritableFile* f = nullptr;
  EXPECT_TRUE(leveldb::Env::Default()->NewWritableFile(path, &f).ok());
  leveldb::TableBuilder b(o, f);
  for (int i = 0; i < n; i++) {
    // LevelDB tables hold internal keys: the user key and an 8-byte tag.
    b.Add(TableKey(i) + std::string("\x01\x00\x00\x00\x00\x00\x00\x00", 8), TableValue(i));
  }
  EXPECT_TRUE(b.Finish().ok());
  EXPECT_TRUE(f->Close().ok());
  delete f;
  return Slurp(path);
}

// A RocksDB block-based table of n keys at path; returns its bytes.
inline std::string WriteRocksDbTable(const std::string& path, int format_version, bool snappy, int n,
                                     size_t block_size = 1024) {
  rocksdb::Options o;
  o.compression = snappy ? rocksdb::kSnappyCompression : rocksdb::kNoCompression;
  rocksdb::BlockBasedTableOptions t;
  t.format_version = static_cast<uint32_t>(format_version);
  t.block_size = block_size;
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  rocksdb::SstFileWriter w(rocksdb::EnvOptions(), o);
  EXPECT_TRUE(w.Open(path).ok());
  for (int i = 0; i < n; i++) EXPECT_TRUE(w.Put(TableKey(i), TableValue(i)).ok());
  EXPECT_TRUE(w.Finish().ok());
  return Slurp(path);
}

}  // namespace test
}  // namespace hintfs

#endif  // HINTFS_TESTS_HINTS_TEST_TABLES_H_
