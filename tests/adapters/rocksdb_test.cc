// RocksDB on hintfs, through the plugin exactly as applications reach it.
#include <gtest/gtest.h>

#include <map>
#include <mutex>

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/utilities/backup_engine.h>
#include <rocksdb/utilities/checkpoint.h>

#include "adapters/common/mount_registry.h"
#include "adapters/rocksdb/hintfs_rocksdb.h"
#include "fs/device/emulated_device.h"
#include "hints/file_tag.h"
#include "tests/fs/test_util.h"

namespace hintfs {
namespace {

std::string Key(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%08d", i);
  return buf;
}
std::string Value(int i, int round = 0) { return "value-" + std::to_string(i) + "-" + std::to_string(round) + std::string(80, 'v'); }

class RocksDbOnHintfs : public ::testing::Test {
 protected:
  void SetUp() override {
    spec_ = test::UniqueName("rocks");
    rocksdb::ConfigOptions cfg;
    ASSERT_TRUE(rocksdb::FileSystem::CreateFromString(cfg, std::string(kRocksDbScheme) + "mem:" + spec_, &fs_).ok());
    env_ = rocksdb::NewCompositeEnv(fs_);
    options_.env = env_.get();
    options_.create_if_missing = true;
    options_.write_buffer_size = 256 << 10;  // many flushes
    options_.target_file_size_base = 256 << 10;
    options_.max_bytes_for_level_base = 1 << 20;  // several levels
    options_.listeners.push_back(NewHintRocksListener());
  }
  void TearDown() override {
    db_.reset();
    env_.reset();
    fs_.reset();
    DestroyMemDevice(spec_);
    DestroyMemDevice(spec_ + ".slow");
  }

  void Open(const std::string& path = "/db/main") {
    rocksdb::DB* db = nullptr;
    rocksdb::Status s = rocksdb::DB::Open(options_, path, &db);
    ASSERT_TRUE(s.ok()) << s.ToString();
    db_.reset(db);
  }

  std::shared_ptr<Filesystem> Hintfs() {
    std::shared_ptr<Filesystem> fs;
    EXPECT_TRUE(AcquireMount("mem:" + spec_, &fs).ok());
    return fs;
  }

  std::string spec_;
  std::shared_ptr<rocksdb::FileSystem> fs_;
  std::unique_ptr<rocksdb::Env> env_;
  rocksdb::Options options_;
  std::unique_ptr<rocksdb::DB> db_;
};

TEST_F(RocksDbOnHintfs, ManyKeysAcrossFlushesCompactionsAndReopen) {
  Open();
  const int n = 120000;
  rocksdb::WriteOptions wo;
  for (int i = 0; i < n; i++) ASSERT_TRUE(db_->Put(wo, Key(i), Value(i)).ok());
  for (int i = 0; i < n; i += 10) ASSERT_TRUE(db_->Delete(wo, Key(i)).ok());
  for (int i = 1; i < n; i += 10) ASSERT_TRUE(db_->Put(wo, Key(i), Value(i, 1)).ok());
  ASSERT_TRUE(db_->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr).ok());
  ASSERT_TRUE(db_->Close().ok());
  db_.reset();
  Open();
  int seen = 0;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    int i = std::stoi(it->key().ToString().substr(3));
    ASSERT_NE(i % 10, 0) << "deleted key came back";
    ASSERT_EQ(it->value().ToString(), Value(i, i % 10 == 1 ? 1 : 0));
    seen++;
  }
  ASSERT_TRUE(it->status().ok());
  EXPECT_EQ(seen, n - n / 10);
  std::string v;
  EXPECT_TRUE(db_->Get(rocksdb::ReadOptions(), Key(10), &v).IsNotFound());
  ASSERT_TRUE(db_->Get(rocksdb::ReadOptions(), Key(11), &v).ok());
  EXPECT_EQ(v, Value(11, 1));
  it.reset();
  db_.reset();

  // The listener recorded every table's level; deeper levels exist.
  auto fs = Hintfs();
  std::vector<DirEntry> entries;
  ASSERT_TRUE(fs->ReadDir("/db/main", &entries).ok());
  int tables = 0, deep = 0;
  for (const auto& e : entries) {
    if (e.name.size() < 4 || e.name.substr(e.name.size() - 4) != ".sst") continue;
    FileStat st;
    ASSERT_TRUE(fs->Stat("/db/main/" + e.name, &st).ok());
    EXPECT_GE(FileTagOf(st.tag).level, 0) << e.name;
    EXPECT_EQ(FileTagOf(st.tag).reason, "compaction") << e.name;  // after a full compaction
    tables++;
    deep += FileTagOf(st.tag).level >= 1;
  }
  EXPECT_GT(tables, 3);
  EXPECT_GT(deep, 0);
  FsckReport report;
  ASSERT_TRUE(fs->Check(true, &report, nullptr).ok());
  EXPECT_TRUE(report.ok()) << (report.errors.empty() ? "" : report.errors[0]);
}

TEST_F(RocksDbOnHintfs, ColumnFamilies) {
  Open();
  rocksdb::ColumnFamilyHandle* cf = nullptr;
  ASSERT_TRUE(db_->CreateColumnFamily(rocksdb::ColumnFamilyOptions(options_), "cf1", &cf).ok());
  for (int i = 0; i < 5000; i++) {
    ASSERT_TRUE(db_->Put(rocksdb::WriteOptions(), cf, Key(i), "cf-" + std::to_string(i)).ok());
    ASSERT_TRUE(db_->Put(rocksdb::WriteOptions(), Key(i), "default-" + std::to_string(i)).ok());
  }
  ASSERT_TRUE(db_->DestroyColumnFamilyHandle(cf).ok());
  db_.reset();
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs = {
      {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions(options_)},
      {"cf1", rocksdb::ColumnFamilyOptions(options_)}};
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(rocksdb::DBOptions(options_), "/db/main", cfs, &handles, &db).ok());
  std::string v;
  ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), handles[1], Key(4321), &v).ok());
  EXPECT_EQ(v, "cf-4321");
  ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), handles[0], Key(4321), &v).ok());
  EXPECT_EQ(v, "default-4321");
  for (auto* h : handles) ASSERT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
  delete db;
}

// Every file's deletion reaches placement once: a WAL's from the mount's
// own view of unlinks, a table's from the listener and the MANIFEST (which
// agree, and are two sources by design), never a third time from the
// FileSystem's DeleteFile.
TEST_F(RocksDbOnHintfs, EachDeletionIsAnnouncedByItsSourcesOnly) {
  std::shared_ptr<Filesystem> fs;
  std::shared_ptr<HintBus> bus;
  ASSERT_TRUE(AcquireMount("mem:" + spec_, &fs, &bus).ok());
  std::mutex mu;
  std::map<std::string, int> deletions;
  uint64_t id = bus->Subscribe([&](const Hint& h) {
    if (h.kind != Hint::Kind::kFileDeleted) return;
    std::lock_guard<std::mutex> l(mu);
    deletions[h.path]++;
  });
  Open();
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < 3000; i++) ASSERT_TRUE(db_->Put(rocksdb::WriteOptions(), Key(i), Value(i, round)).ok());
    ASSERT_TRUE(db_->Flush(rocksdb::FlushOptions()).ok());  // its WAL is deleted
  }
  ASSERT_TRUE(db_->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr).ok());  // tables are
  db_.reset();
  bus->Unsubscribe(id);
  int wals = 0, tables = 0;
  for (const auto& [path, count] : deletions) {
    bool wal = path.size() > 4 && path.compare(path.size() - 4, 4, ".log") == 0;
    bool table = path.size() > 4 && path.compare(path.size() - 4, 4, ".sst") == 0;
    if (wal) {
      EXPECT_EQ(count, 1) << path;
      wals++;
    }
    if (table) {
      EXPECT_LE(count, 2) << path;
      tables++;
    }
  }
  EXPECT_GT(wals, 0);
  EXPECT_GT(tables, 0);
}

TEST_F(RocksDbOnHintfs, DestroyDbRemovesEverything) {
  Open();
  for (int i = 0; i < 20000; i++) ASSERT_TRUE(db_->Put(rocksdb::WriteOptions(), Key(i), Value(i)).ok());
  db_.reset();
  ASSERT_TRUE(rocksdb::DestroyDB("/db/main", options_).ok());
  std::vector<DirEntry> entries;
  Status s = Hintfs()->ReadDir("/db/main", &entries);
  EXPECT_TRUE(s.IsNotFound() || entries.empty()) << entries.size() << " files left";
}

TEST_F(RocksDbOnHintfs, CheckpointOpensAsACopy) {
  Open();
  for (int i = 0; i < 30000; i++) ASSERT_TRUE(db_->Put(rocksdb::WriteOptions(), Key(i), Value(i)).ok());
  ASSERT_TRUE(db_->Flush(rocksdb::FlushOptions()).ok());
  rocksdb::Checkpoint* cp = nullptr;
  ASSERT_TRUE(rocksdb::Checkpoint::Create(db_.get(), &cp).ok());
  rocksdb::Status s = cp->CreateCheckpoint("/db/checkpoint");
  delete cp;
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (int i = 0; i < 100; i++) ASSERT_TRUE(db_->Put(rocksdb::WriteOptions(), Key(i), "after").ok());
  db_.reset();
  Open("/db/checkpoint");
  std::string v;
  ASSERT_TRUE(db_->Get(rocksdb::ReadOptions(), Key(5), &v).ok());
  EXPECT_EQ(v, Value(5));
  ASSERT_TRUE(db_->Get(rocksdb::ReadOptions(), Key(29999), &v).ok());
}

TEST_F(RocksDbOnHintfs, BackupAndRestore) {
  Open();
  for (int i = 0; i < 30000; i++) ASSERT_TRUE(db_->Put(rocksdb::WriteOptions(), Key(i), Value(i)).ok());
  rocksdb::BackupEngine* be = nullptr;
  rocksdb::BackupEngineOptions bo("/backups", env_.get());
  ASSERT_TRUE(rocksdb::BackupEngine::Open(env_.get(), bo, &be).ok());
  std::unique_ptr<rocksdb::BackupEngine> engine(be);
  rocksdb::IOStatus s = engine->CreateNewBackup(db_.get(), /*flush_before_backup=*/true);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE(engine->VerifyBackup(1, /*verify_with_checksum=*/true).ok());
  db_.reset();
  s = engine->RestoreDBFromLatestBackup("/db/restored", "/db/restored");
  ASSERT_TRUE(s.ok()) << s.ToString();
  engine.reset();
  Open("/db/restored");
  std::string v;
  for (int i = 0; i < 30000; i += 997) {
    ASSERT_TRUE(db_->Get(rocksdb::ReadOptions(), Key(i), &v).ok());
    EXPECT_EQ(v, Value(i));
  }
}

TEST_F(RocksDbOnHintfs, WalRecoveryAfterUncleanShutdown) {
  options_.write_buffer_size = 64 << 20;  // nothing flushes: only the WAL has the data
  Open();
  rocksdb::WriteOptions sync;
  sync.sync = true;
  for (int i = 0; i < 3000; i++) ASSERT_TRUE(db_->Put(sync, Key(i), Value(i)).ok());
  db_.reset();  // no Close, no flush
  Open();
  std::string v;
  for (int i = 0; i < 3000; i++) {
    ASSERT_TRUE(db_->Get(rocksdb::ReadOptions(), Key(i), &v).ok()) << i;
    ASSERT_EQ(v, Value(i));
  }
}

TEST_F(RocksDbOnHintfs, InfoLogOutlivesTheFileSystem) {
  Open();
  std::shared_ptr<rocksdb::Logger> log = db_->GetOptions().info_log;
  ASSERT_NE(log, nullptr);
  db_.reset();
  env_.reset();
  fs_.reset();
  // RocksDB closed the log with the DB; using it now must be a harmless no-op.
  rocksdb::Log(rocksdb::InfoLogLevel::INFO_LEVEL, log, "written after the file system object is gone");
  log->Flush();
  log.reset();  // the mount it kept alive goes with it
  std::shared_ptr<Filesystem> fs;
  ASSERT_TRUE(AcquireMount("mem:" + spec_, &fs).ok());
  std::unique_ptr<FileReader> r;
  ASSERT_TRUE(fs->OpenReader("/db/main/LOG", &r).ok());
  std::string text(r->Size(), '\0');
  size_t got = 0;
  ASSERT_TRUE(r->Read(0, text.size(), &text[0], &got).ok());
  EXPECT_NE(text.find("RocksDB version"), std::string::npos);
  EXPECT_EQ(text.find("written after the file system object is gone"), std::string::npos);
}

TEST_F(RocksDbOnHintfs, EnvFromUriAndBadUris) {
  rocksdb::ConfigOptions cfg;
  rocksdb::Env* env = nullptr;
  std::shared_ptr<rocksdb::Env> guard;
  ASSERT_TRUE(rocksdb::Env::CreateFromUri(cfg, "", std::string(kRocksDbScheme) + "mem:" + spec_, &env, &guard).ok());
  ASSERT_NE(env, nullptr);
  std::shared_ptr<rocksdb::FileSystem> bad;
  EXPECT_FALSE(rocksdb::FileSystem::CreateFromString(cfg, "hintfs://file:/nonexistent/ssd.img", &bad).ok());
  // Options in the URI: a policy and device options; unknown ones are errors.
  std::string other = test::UniqueName("opts");
  std::shared_ptr<rocksdb::FileSystem> with_options;
  ASSERT_TRUE(rocksdb::FileSystem::CreateFromString(
                  cfg, "hintfs://mem:" + other + "?policy=fast-first&profile_scale=10", &with_options)
                  .ok());
  // The same device again with other options would be a second mount: refused.
  EXPECT_FALSE(rocksdb::FileSystem::CreateFromString(cfg, "hintfs://mem:" + other + "?policy=fast-first", &bad).ok());
  std::shared_ptr<rocksdb::FileSystem> same;
  EXPECT_TRUE(rocksdb::FileSystem::CreateFromString(cfg, "hintfs://mem:" + other, &same).ok());
  EXPECT_FALSE(rocksdb::FileSystem::CreateFromString(cfg, "hintfs://mem:" + spec_ + "?policy=nope", &bad).ok());
  EXPECT_FALSE(rocksdb::FileSystem::CreateFromString(cfg, "hintfs://mem:" + test::UniqueName("x") + "?bogus=1", &bad).ok());
  with_options.reset();
  same.reset();
  DestroyMemDevice(other);
  DestroyMemDevice(other + ".slow");
  std::shared_ptr<rocksdb::EventListener> listener;
  ASSERT_TRUE(rocksdb::EventListener::CreateFromString(cfg, kRocksDbListenerName, &listener).ok());
  EXPECT_STREQ(listener->Name(), kRocksDbListenerName);
}

}  // namespace
}  // namespace hintfs
