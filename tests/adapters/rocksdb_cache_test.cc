// RocksDB with the hintfs secondary cache: blocks evicted from a small block
// cache land in the SSD block cache and are served from it; every value read
// back is the one written. Without it, the mount's own caching, kept across a
// reopen.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include <nlohmann/json.hpp>
#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/secondary_cache.h>
#include <rocksdb/table.h>

#include "adapters/common/mount_registry.h"
#include "adapters/rocksdb/hintfs_rocksdb.h"
#include "cache/caching_filesystem.h"
#include "fs/device/emulated_device.h"
#include "tests/fs/test_util.h"

namespace hintfs {
namespace {

std::string Key(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "k%08d", i);
  return buf;
}
std::string Value(int i) { return std::string(150, static_cast<char>('a' + i % 26)) + std::to_string(i); }

// Fills a database through fs with a block cache far smaller than the data
// whose evictions go to secondary, compacts it, and reads it back skewed.
void FillAndReadSkewed(const std::shared_ptr<rocksdb::FileSystem>& fs,
                       const std::shared_ptr<rocksdb::SecondaryCache>& secondary) {
  auto env = rocksdb::NewCompositeEnv(fs);
  rocksdb::Options o;
  o.env = env.get();
  o.create_if_missing = true;
  o.compression = rocksdb::kNoCompression;
  rocksdb::LRUCacheOptions lru(256 << 10, 0, false, 0.5);
  lru.secondary_cache = secondary;
  rocksdb::BlockBasedTableOptions t;
  t.block_cache = rocksdb::NewLRUCache(lru);
  t.block_size = 4096;
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(o, "/db", &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  const int n = 20000;
  for (int i = 0; i < n; i++) ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), Key(i), Value(i)).ok());
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  ASSERT_TRUE(db->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr).ok());
  std::mt19937 rng(3);
  for (int round = 0; round < 40000; round++) {
    int k = static_cast<int>(rng() % 10 < 8 ? rng() % 2000 : rng() % n);  // skewed
    std::string v;
    ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), Key(k), &v).ok()) << Key(k);
    ASSERT_EQ(v, Value(k));
  }
  ASSERT_TRUE(db->Close().ok());
}

// The plugin filesystem and the secondary cache over one memory-backed
// mount with the SSD cache, and the mount itself; gone with the object.
struct CacheMount {
  std::string name = test::UniqueName("rsc");
  std::shared_ptr<rocksdb::FileSystem> fs;
  std::shared_ptr<rocksdb::SecondaryCache> secondary;
  std::shared_ptr<Filesystem> mounted;
  CachingFilesystem* caching = nullptr;

  // fast and slow: the memory devices' geometries; policy: the mount's.
  void Open(const char* fast, const char* slow, const std::string& policy) {
    setenv("HINTFS_MEM_FAST", fast, 1);
    setenv("HINTFS_MEM_SLOW", slow, 1);
    std::string spec = "mem:" + name + "?policy=" + policy + "&cache=all&cache_budget=4MiB";
    rocksdb::ConfigOptions cfg;
    ASSERT_TRUE(rocksdb::FileSystem::CreateFromString(cfg, std::string("hintfs://") + spec, &fs).ok());
    rocksdb::Status rs = rocksdb::SecondaryCache::CreateFromString(cfg, "hintfs://mem:" + name, &secondary);
    ASSERT_TRUE(rs.ok()) << rs.ToString();
    ASSERT_TRUE(AcquireMount("mem:" + name, &mounted).ok());
    caching = dynamic_cast<CachingFilesystem*>(mounted.get());
    ASSERT_NE(caching, nullptr);
  }
  ~CacheMount() {
    secondary.reset();
    caching = nullptr;
    fs.reset();
    mounted.reset();
    unsetenv("HINTFS_MEM_FAST");
    unsetenv("HINTFS_MEM_SLOW");
    DestroyMemDevice(name);
    DestroyMemDevice(name + ".slow");
  }
};

TEST(RocksDbSecondaryCache, EvictedBlocksAreServedFromTheSsdCache) {
  CacheMount c;
  // Tables on the slow tier; the cache gets 4 MiB of the fast one.
  c.Open("zone_size=512KiB&zones=24", "zone_size=512KiB&zones=200", "all-slow");
  EXPECT_FALSE(c.caching->file_admission()) << "RocksDB hints for itself";
  FillAndReadSkewed(c.fs, c.secondary);
  BlockCacheStats s = c.caching->cache()->stats();
  std::cout << "secondary cache: " << s.admitted << " admitted, " << s.hits << " hits of " << s.lookups
            << " lookups, " << s.evicted_zones << " zones evicted\n";
  EXPECT_GT(s.admitted, 0u);
  EXPECT_GT(s.hits, 0u);
  EXPECT_EQ(s.bad_blocks, 0u);
  c.secondary.reset();
  EXPECT_TRUE(c.caching->file_admission());
  c.caching = nullptr;
  c.fs.reset();
  c.mounted.reset();
  // The statistics outlive the mount.
  ASSERT_TRUE(AcquireMount("mem:" + c.name + "?policy=all-slow", &c.mounted).ok());
  auto saved = nlohmann::json::parse(c.mounted->Attributes().at("cache"));
  EXPECT_GT(saved["hits"].get<int>(), 0);
}

TEST(RocksDbSecondaryCache, BlocksOfFastTierTablesAreNotCached) {
  // HHZS caches only blocks read from the HDD: with every table on the fast
  // tier, evictions are hinted and looked up but nothing is admitted.
  CacheMount c;
  c.Open("zone_size=512KiB&zones=40", "zone_size=512KiB&zones=40", "all-fast");
  FillAndReadSkewed(c.fs, c.secondary);
  BlockCacheStats s = c.caching->cache()->stats();
  EXPECT_GT(s.lookups, 1000u);
  EXPECT_EQ(s.admitted, 0u);
  EXPECT_EQ(s.hits, 0u);
}

// Reads keys skewed, as FillAndReadSkewed does, from the database it left.
void ReadSkewed(const std::shared_ptr<rocksdb::FileSystem>& fs) {
  auto env = rocksdb::NewCompositeEnv(fs);
  rocksdb::Options o;
  o.env = env.get();
  rocksdb::BlockBasedTableOptions t;
  t.block_cache = rocksdb::NewLRUCache(256 << 10);
  t.block_size = 4096;
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(o, "/db", &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  std::mt19937 rng(4);
  for (int round = 0; round < 20000; round++) {
    int k = static_cast<int>(rng() % 10 < 8 ? rng() % 2000 : rng() % 20000);
    std::string v;
    ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), Key(k), &v).ok()) << Key(k);
    ASSERT_EQ(v, Value(k));
  }
  ASSERT_TRUE(db->Close().ok());
}

// Without the secondary cache the mount caches RocksDB's reads of slow-tier
// tables by file and offset, and keeps them across a clean unmount: the
// store reopened finds its hot blocks there, and reads the values it wrote.
TEST(RocksDbSsdCache, AReopenedStoreFindsItsHotBlocksInTheKeptCache) {
  const std::string name = test::UniqueName("rkc");
  const std::string spec = "hintfs://mem:" + name + "?policy=all-slow&cache=all&cache_budget=4MiB";
  setenv("HINTFS_MEM_FAST", "zone_size=512KiB&zones=24", 1);
  setenv("HINTFS_MEM_SLOW", "zone_size=512KiB&zones=200", 1);
  rocksdb::ConfigOptions cfg;
  std::shared_ptr<rocksdb::FileSystem> fs;
  ASSERT_TRUE(rocksdb::FileSystem::CreateFromString(cfg, spec, &fs).ok());
  FillAndReadSkewed(fs, nullptr);
  fs.reset();  // the last user: the mount closes, and its cache with it
  ASSERT_TRUE(rocksdb::FileSystem::CreateFromString(cfg, spec, &fs).ok());
  std::shared_ptr<Filesystem> mounted;
  ASSERT_TRUE(AcquireMount("mem:" + name, &mounted).ok());
  auto* caching = dynamic_cast<CachingFilesystem*>(mounted.get());
  ASSERT_NE(caching, nullptr);
  const BlockCacheStats kept = caching->cache()->stats();
  EXPECT_GT(kept.kept_blocks, 100u);
  ReadSkewed(fs);
  const BlockCacheStats s = caching->cache()->stats();
  std::cout << "kept cache: " << kept.kept_blocks << " blocks kept, " << s.hits << " hits of " << s.lookups
            << " lookups after the reopen\n";
  EXPECT_GT(s.hits, 100u);
  EXPECT_EQ(s.bad_blocks, 0u);
  caching = nullptr;
  mounted.reset();
  fs.reset();
  unsetenv("HINTFS_MEM_FAST");
  unsetenv("HINTFS_MEM_SLOW");
  DestroyMemDevice(name);
  DestroyMemDevice(name + ".slow");
}

TEST(RocksDbSecondaryCache, RefusedWithoutACache) {
  std::string name = test::UniqueName("rsc");
  std::shared_ptr<Filesystem> mounted;
  ASSERT_TRUE(AcquireMount("mem:" + name + "?policy=b2", &mounted).ok());
  rocksdb::ConfigOptions cfg;
  std::shared_ptr<rocksdb::SecondaryCache> secondary;
  EXPECT_FALSE(rocksdb::SecondaryCache::CreateFromString(cfg, "hintfs://mem:" + name, &secondary).ok());
  mounted.reset();
  DestroyMemDevice(name);
  DestroyMemDevice(name + ".slow");
}

}  // namespace
}  // namespace hintfs
