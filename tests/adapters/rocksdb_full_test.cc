// A RocksDB that filled the filesystem frees itself: it reopens (its
// recovery flush writes a table), deletes a key range and compacts, without
// dropping the database. Table writes may use the zones the filesystem keeps
// back for writes that free space (MountOptions::reserve_zones, checked on
// its own in tests/fs/reserve_test.cc).
//
// The store reopens with automatic compactions off, as an operator reopens a
// full store: otherwise a compaction scheduled at open (L0 over its trigger)
// may need more room than is left, fail with NoSpace, and from then on RocksDB
// refuses compactions unless the filesystem reports about twice their inputs
// free (SstFileManager's check after a NoSpace error: "Compaction too
// large"), the deleting one included. Whether that happens depends on the
// tree's shape where the fill stopped, not on the filesystem.
#include <gtest/gtest.h>

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>

#include "adapters/common/mount_registry.h"
#include "adapters/rocksdb/hintfs_rocksdb.h"
#include "tests/fs/test_util.h"

namespace hintfs {
namespace {

struct Db {
  std::shared_ptr<rocksdb::FileSystem> fs;
  std::unique_ptr<rocksdb::Env> env;
  std::unique_ptr<rocksdb::DB> db;
};

rocksdb::Status OpenDb(const std::string& spec, Db* d, bool auto_compactions) {
  rocksdb::ConfigOptions cfg;
  rocksdb::Status s = rocksdb::FileSystem::CreateFromString(cfg, kRocksDbScheme + spec, &d->fs);
  if (!s.ok()) return s;
  d->env = rocksdb::NewCompositeEnv(d->fs);
  rocksdb::Options o;
  o.env = d->env.get();
  o.create_if_missing = true;
  o.write_buffer_size = 8 << 20;  // a big log to flush at reopen
  o.target_file_size_base = 2 << 20;
  o.max_bytes_for_level_base = 8 << 20;
  o.disable_auto_compactions = !auto_compactions;
  rocksdb::DB* raw = nullptr;
  s = rocksdb::DB::Open(o, "/db", &raw);
  d->db.reset(raw);
  return s;
}

constexpr uint64_t kKeySpace = 10000000;

std::string Key(uint64_t i) {
  char k[24];
  std::snprintf(k, sizeof(k), "k%015llu", static_cast<unsigned long long>(i));
  return k;
}

// Fills until a Put fails for lack of space; returns the keys written.
uint64_t Fill(const std::string& spec) {
  Db d;
  EXPECT_TRUE(OpenDb(spec, &d, /*auto_compactions=*/true).ok());
  std::string value(400, 'v');
  uint64_t i = 0;
  for (; i < kKeySpace; i++) {
    // Scattered keys: every compaction rewrites overlapping tables.
    rocksdb::Status s = d.db->Put(rocksdb::WriteOptions(), Key((i * 2654435761ull) % kKeySpace), value);
    if (!s.ok()) {
      EXPECT_TRUE(s.IsNoSpace() || s.IsIOError()) << s.ToString();
      std::cout << "first failed Put: " << s.ToString() << "\n";
      break;
    }
  }
  d.db->Close().PermitUncheckedError();  // the store may be read-only now
  return i;
}

// The full store reopens, deletes everything but a few keys and compacts.
rocksdb::Status Recover(const std::string& spec) {
  Db d;
  rocksdb::Status s = OpenDb(spec, &d, /*auto_compactions=*/false);
  if (!s.ok()) return s;
  s = d.db->DeleteRange(rocksdb::WriteOptions(), d.db->DefaultColumnFamily(), Key(100), Key(kKeySpace));
  if (s.ok()) s = d.db->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr);
  std::string v;
  if (s.ok()) s = d.db->Get(rocksdb::ReadOptions(), Key(0), &v);  // the first key written, kept
  if (s.ok()) s = d.db->Put(rocksdb::WriteOptions(), "after", "recovery");
  rocksdb::Status c = d.db->Close();
  return s.ok() ? c : s;
}

uint64_t LiveBytes(const std::string& spec) {
  std::shared_ptr<Filesystem> fs;
  EXPECT_TRUE(AcquireMount(spec, &fs).ok());
  std::vector<DeviceUsage> usage;
  EXPECT_TRUE(fs->Usage(&usage).ok());
  uint64_t live = 0;
  for (const DeviceUsage& u : usage) live += u.live_bytes;
  return live;
}

TEST(RocksDbFull, AFullStoreDeletesAndCompactsItsWayBack) {
  test::ScratchDir dir;
  MkfsOptions mkfs;
  mkfs.devices = {{Tier::kFast, "file:" + dir.File("ssd.img") + "?zone_size=2MiB&zones=12"},
                  {Tier::kSlow, "file:" + dir.File("hdd.img") + "?zone_size=2MiB&zones=24"}};
  ASSERT_TRUE(Filesystem::Mkfs(mkfs).ok());
  const std::string spec = "file:" + dir.File("ssd.img");
  uint64_t written = Fill(spec);
  ASSERT_GT(written, 10000u);
  uint64_t full = LiveBytes(spec);
  rocksdb::Status s = Recover(spec);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_LT(LiveBytes(spec), full / 4) << "compaction freed too little";
  std::cout << "keys written until full: " << written << ", live bytes full: " << full
            << ", after recovery: " << LiveBytes(spec) << "\n";
}

}  // namespace
}  // namespace hintfs
