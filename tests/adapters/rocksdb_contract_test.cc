// Where RocksDB's FileSystem contract is specific and hintfs must answer as
// RocksDB's own POSIX FileSystem does: reads without a buffer (mmap reads),
// the error codes of missing files, a URI without a device, files written in
// place (NewRandomRWFile), a second writer of a live file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/sst_file_reader.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/table_properties.h>
#include <rocksdb/table.h>

#include "adapters/rocksdb/hintfs_rocksdb.h"
#include "fs/device/emulated_device.h"
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
  rocksdb::Options DbOptions() {
    rocksdb::Options o;
    o.env = env_.get();
    o.create_if_missing = true;
    return o;
  }
  // The DB at /db, or null (the failure recorded).
  std::unique_ptr<rocksdb::DB> OpenDb(const rocksdb::Options& o) {
    rocksdb::DB* raw = nullptr;
    rocksdb::Status s = rocksdb::DB::Open(o, "/db", &raw);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return std::unique_ptr<rocksdb::DB>(raw);
  }
  std::string spec_;
  std::shared_ptr<rocksdb::FileSystem> fs_;
  std::unique_ptr<rocksdb::Env> env_;
};

// PlainTable needs allow_mmap_reads: RocksDB then reads with no buffer and
// keeps the slices while the file is open.
TEST_F(RocksDbContract, PlainTableWithMmapReads) {
  rocksdb::Options o = DbOptions();
  o.allow_mmap_reads = true;
  o.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(4));
  o.table_factory.reset(rocksdb::NewPlainTableFactory());
  o.write_buffer_size = 64 << 10;
  std::unique_ptr<rocksdb::DB> db = OpenDb(o);
  ASSERT_NE(db, nullptr);
  for (int i = 0; i < 5000; i++) {
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), "key" + std::to_string(100000 + i), std::string(50, 'a' + i % 26)).ok());
  }
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  ASSERT_TRUE(db->Close().ok());
  db.reset();
  db = OpenDb(o);
  ASSERT_NE(db, nullptr);
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

// Ingestion with write_global_seqno patches the ingested table in place
// through NewRandomRWFile (without it RocksDB keeps the sequence number only
// in its MANIFEST).
TEST_F(RocksDbContract, IngestionPatchesTheGlobalSequenceNumberInPlace) {
  rocksdb::Options o = DbOptions();
  std::unique_ptr<rocksdb::DB> db = OpenDb(o);
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), "k05", "old").ok());  // overlaps: a global seqno is needed
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), o);
  ASSERT_TRUE(writer.Open("/ingest.sst").ok());
  for (int i = 0; i < 10; i++) ASSERT_TRUE(writer.Put("k0" + std::to_string(i), "new" + std::to_string(i)).ok());
  ASSERT_TRUE(writer.Finish().ok());
  rocksdb::IngestExternalFileOptions ingest;
  ingest.write_global_seqno = true;
  ingest.move_files = false;
  rocksdb::Status s = db->IngestExternalFile({"/ingest.sst"}, ingest);
  ASSERT_TRUE(s.ok()) << s.ToString();
  // The table itself carries its sequence number (RocksDB keeps it only in
  // the MANIFEST when the file cannot be written in place).
  std::vector<rocksdb::LiveFileMetaData> live;
  db->GetLiveFilesMetaData(&live);
  auto ingested = std::find_if(live.begin(), live.end(), [](const auto& f) { return f.smallestkey == "k00"; });
  ASSERT_NE(ingested, live.end());  // (the other is the memtable, flushed first)
  rocksdb::SstFileReader reader(o);
  ASSERT_TRUE(reader.Open(ingested->db_path + ingested->name).ok());
  const auto& props = reader.GetTableProperties()->user_collected_properties;
  auto seqno = props.find("rocksdb.external_sst_file.global_seqno");
  ASSERT_NE(seqno, props.end());
  ASSERT_EQ(seqno->second.size(), 8u);
  uint64_t global_seqno = 0;
  std::memcpy(&global_seqno, seqno->second.data(), 8);  // fixed64, little-endian as the host here
  EXPECT_GT(global_seqno, 0u);
  ASSERT_TRUE(db->Close().ok());
  db.reset();
  db = OpenDb(o);
  ASSERT_NE(db, nullptr);
  std::string v;
  ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), "k05", &v).ok());
  EXPECT_EQ(v, "new5");  // the ingested table's seqno is above the old Put's
}

// A second writer of a file a live DB writes is refused (Busy), as hintfs
// files have one writer; the DB goes on unharmed, and readers (dump tools)
// see what it wrote.
TEST_F(RocksDbContract, ASecondWriterOfALiveFileIsRefusedAndTheDbGoesOn) {
  rocksdb::Options o = DbOptions();
  std::unique_ptr<rocksdb::DB> db = OpenDb(o);
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), "a", "1").ok());
  std::vector<std::string> children;
  ASSERT_TRUE(fs_->GetChildren("/db", rocksdb::IOOptions(), &children, nullptr).ok());
  int refused = 0;
  for (const std::string& c : children) {
    if (c.find(".log") == std::string::npos && c.rfind("MANIFEST", 0) != 0) continue;
    std::unique_ptr<rocksdb::FSWritableFile> w;
    rocksdb::IOStatus s = fs_->NewWritableFile("/db/" + c, rocksdb::FileOptions(), &w, nullptr);
    EXPECT_TRUE(s.IsBusy()) << c << ": " << s.ToString();
    std::unique_ptr<rocksdb::FSSequentialFile> r;
    EXPECT_TRUE(fs_->NewSequentialFile("/db/" + c, rocksdb::FileOptions(), &r, nullptr).ok()) << c;
    refused++;
  }
  EXPECT_EQ(refused, 2);  // the live log and manifest
  rocksdb::DB* second = nullptr;
  EXPECT_FALSE(rocksdb::DB::Open(o, "/db", &second).ok());  // its LOCK is held
  ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), "b", "2").ok());
  ASSERT_TRUE(db->Close().ok());
  db.reset();
  db = OpenDb(o);
  ASSERT_NE(db, nullptr);
  std::string v;
  ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), "a", &v).ok());
  EXPECT_EQ(v, "1");
  ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), "b", &v).ok());
  EXPECT_EQ(v, "2");
}

}  // namespace
}  // namespace hintfs
