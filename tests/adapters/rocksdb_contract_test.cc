// Where RocksDB's FileSystem contract is specific and hintfs must answer as
// RocksDB's own POSIX FileSystem does: reads without a buffer (mmap reads),
// the error codes of missing files, a URI without a device.
#include <gtest/gtest.h>

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>

#include "adapters/rocksdb/hintfs_rocksdb.h"
#include "fs/emulated_device.h"
#include "tests/fs/test_util.h"

namespace hintfs {
namespace {

class RocksDbContract : public ::testing::Test {
 protected:
  void SetUp() override {
    spec_ = test::UniqueName("contract");
    rocksdb::ConfigOptions cfg;
    ASSERT_TRUE(rocksdb::FileSystem::CreateFromString(cfg, std::string(kRocksDbScheme) + "mem:" + spec_, &fs_).ok());
    env_ = rocksdb::NewCompositeEnv(fs_);
  }
  void TearDown() override {
    env_.reset();
    fs_.reset();
    DestroyMemDevice(spec_);
    DestroyMemDevice(spec_ + ".slow");
  }
  std::string spec_;
  std::shared_ptr<rocksdb::FileSystem> fs_;
  std::unique_ptr<rocksdb::Env> env_;
};

// PlainTable needs allow_mmap_reads: RocksDB then reads with no buffer and
// keeps the slices while the file is open.
TEST_F(RocksDbContract, PlainTableWithMmapReads) {
  rocksdb::Options o;
  o.env = env_.get();
  o.create_if_missing = true;
  o.allow_mmap_reads = true;
  o.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(4));
  o.table_factory.reset(rocksdb::NewPlainTableFactory());
  o.write_buffer_size = 64 << 10;
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(o, "/db", &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  for (int i = 0; i < 5000; i++) {
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), "key" + std::to_string(100000 + i), std::string(50, 'a' + i % 26)).ok());
  }
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  ASSERT_TRUE(db->Close().ok());
  db.reset();
  ASSERT_TRUE(rocksdb::DB::Open(o, "/db", &raw).ok());
  db.reset(raw);
  for (int i = 0; i < 5000; i += 7) {
    std::string v;
    ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), "key" + std::to_string(100000 + i), &v).ok()) << i;
    EXPECT_EQ(v, std::string(50, 'a' + i % 26));
  }
}

TEST_F(RocksDbContract, MissingFilesAreIoErrorsWithPathNotFound) {
  rocksdb::IOOptions io;
  uint64_t size = 0;
  rocksdb::IOStatus s = fs_->GetFileSize("/nothing", io, &size, nullptr);
  EXPECT_TRUE(s.IsIOError() && s.IsPathNotFound()) << s.ToString();
  std::unique_ptr<rocksdb::FSSequentialFile> file;
  s = fs_->NewSequentialFile("/nothing", rocksdb::FileOptions(), &file, nullptr);
  EXPECT_TRUE(s.IsPathNotFound()) << s.ToString();
  std::vector<std::string> children;
  s = fs_->GetChildren("/no-dir", io, &children, nullptr);
  EXPECT_TRUE(s.IsPathNotFound()) << s.ToString();
  s = fs_->DeleteFile("/nothing", io, nullptr);
  EXPECT_TRUE(s.IsPathNotFound()) << s.ToString();
  s = fs_->FileExists("/nothing", io, nullptr);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
}

TEST_F(RocksDbContract, AUriWithoutADeviceIsRefused) {
  rocksdb::ConfigOptions cfg;
  std::shared_ptr<rocksdb::FileSystem> fs;
  rocksdb::Status s = rocksdb::FileSystem::CreateFromString(cfg, kRocksDbScheme, &fs);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("needs a member device"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace hintfs
