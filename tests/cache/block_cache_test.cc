// The block cache on a real (memory-backed) filesystem: blocks come back
// byte for byte, zones are evicted oldest first, the WAL takes its budget
// back, and closing leaves nothing but the saved statistics.
#include <gtest/gtest.h>

#include <random>

#include <nlohmann/json.hpp>

#include "cache/block_cache.h"
#include "hints/file_tag.h"
#include "tests/fs/fs_fixture.h"

namespace hintfs {
namespace {

using test::FsGeometry;
using test::FsTest;

// Write-ahead logs get the WAL role, as the LSM policies do it.
class WalRolePolicy : public FastFirstPolicy {
 public:
  ZoneRole RoleForNewFile(const std::string& path) override {
    return path.size() > 4 && path.compare(path.size() - 4, 4, ".log") == 0 ? kWalClass : ZoneRole::kData;
  }
};

class BlockCacheTest : public FsTest {
 protected:
  void SetUp() override {
    FsTest::SetUp();
    Format();  // fast: 24 zones of 256 KiB
    MountOptions o;
    o.policy = std::make_shared<WalRolePolicy>();
    Mount(o);
  }

  std::unique_ptr<BlockCache> OpenCache(uint64_t budget_zones, const std::string& admission = "all") {
    BlockCacheOptions o;
    o.admission = admission;
    o.budget_bytes = budget_zones * (256 << 10);
    std::unique_ptr<BlockCache> cache;
    EXPECT_OK(BlockCache::Open(fs_.get(), o, &cache));
    return cache;
  }

  static std::string Block(int i) {
    std::mt19937_64 rng(static_cast<uint64_t>(i));
    return Random(&rng, 4096);
  }
};

TEST_F(BlockCacheTest, ServesTheBytesItWasGiven) {
  auto cache = OpenCache(6);
  for (int i = 0; i < 100; i++) EXPECT_TRUE(cache->Offer("k" + std::to_string(i), Block(i)));
  for (int i = 0; i < 100; i++) {
    std::string v;
    ASSERT_TRUE(cache->Lookup("k" + std::to_string(i), &v)) << i;
    EXPECT_EQ(v, Block(i));
  }
  std::string v;
  EXPECT_FALSE(cache->Lookup("missing", &v));
  cache->Erase("k5");
  EXPECT_FALSE(cache->Lookup("k5", &v));
  BlockCacheStats s = cache->stats();
  EXPECT_EQ(s.hits, 100u);
  EXPECT_EQ(s.misses, 2u);
  EXPECT_EQ(s.admitted, 100u);
  EXPECT_EQ(s.blocks, 99u);
  // The cache's files are on the fast tier with the cache role.
  std::vector<ZoneReport> zones;
  ASSERT_OK(fs_->Zones(&zones));
  int cache_zones = 0;
  for (const ZoneReport& z : zones) {
    if (z.role == kCacheClass) {
      cache_zones++;
      EXPECT_EQ(fs_->superblock().members[z.device].tier, Tier::kFast);
    }
  }
  EXPECT_GT(cache_zones, 0);
}

TEST_F(BlockCacheTest, EvictsTheOldestZoneFirst) {
  // 6 budget zones: at most 6 cache files of 64 blocks each.
  auto cache = OpenCache(6);
  const int n = 1000;
  for (int i = 0; i < n; i++) ASSERT_TRUE(cache->Offer("k" + std::to_string(i), Block(i))) << i;
  BlockCacheStats s = cache->stats();
  EXPECT_GT(s.evicted_zones, 0u);
  EXPECT_LE(s.zones, 6u);
  // What is left is exactly the newest blocks: FIFO, whole zones at a time.
  int first_present = -1;
  for (int i = 0; i < n; i++) {
    std::string v;
    bool hit = cache->Lookup("k" + std::to_string(i), &v);
    if (hit && first_present < 0) first_present = i;
    if (first_present >= 0) {
      ASSERT_TRUE(hit) << "block " << i << " evicted while an older one stayed";
      ASSERT_EQ(v, Block(i));
    }
  }
  EXPECT_GT(first_present, 0);
  EXPECT_EQ(first_present % 64, 0) << "eviction drops whole zones";
  EXPECT_EQ(static_cast<uint64_t>(n - first_present), cache->stats().blocks);
}

TEST_F(BlockCacheTest, TheWalTakesItsBudgetBack) {
  auto cache = OpenCache(6);
  for (int i = 0; i < 256; i++) cache->Offer("k" + std::to_string(i), Block(i));
  uint32_t before = static_cast<uint32_t>(cache->stats().zones);
  EXPECT_GE(before, 3u);
  // The WAL grows by three zones.
  std::unique_ptr<FileWriter> wal;
  ASSERT_OK(fs_->OpenWriter("/000001.log", WriteMode::kTruncate, &wal));
  ASSERT_OK(wal->Append(std::string(3 * (256 << 10) - 8192, 'w')));
  ASSERT_OK(wal->Sync());
  for (int i = 256; i < 1024; i++) cache->Offer("k" + std::to_string(i), Block(i));
  // 6 budget zones - 3 WAL zones = 3 cache zones at most.
  EXPECT_LE(cache->stats().zones, 3u);
  std::vector<DeviceUsage> usage;
  ASSERT_OK(fs_->Usage(&usage));
  EXPECT_LE(usage[0].role_zones[static_cast<int>(kWalClass)] +
                usage[0].role_zones[static_cast<int>(kCacheClass)],
            6u);
  ASSERT_OK(wal->Close());
}

TEST_F(BlockCacheTest, AdmissionPolicyDecides) {
  auto cache = OpenCache(6, "cbf");  // hot after 3 windows: nothing yet
  EXPECT_FALSE(cache->Offer("cold", Block(1)));
  EXPECT_EQ(cache->stats().rejected, 1u);
}

TEST_F(BlockCacheTest, CloseSavesStatsAndLeavesNoFiles) {
  {
    auto cache = OpenCache(6);
    for (int i = 0; i < 70; i++) cache->Offer("k" + std::to_string(i), Block(i));
    std::string v;
    cache->Lookup("k1", &v);
    ASSERT_OK(cache->Close());
    EXPECT_FALSE(cache->Lookup("k1", &v));
  }
  std::vector<DirEntry> left;
  ASSERT_OK(fs_->ReadDir(kCacheDirectory, &left));
  EXPECT_TRUE(left.empty());
  Remount();
  auto saved = nlohmann::json::parse(fs_->Attributes().at("cache"));
  EXPECT_EQ(saved["admitted"], 70);
  EXPECT_EQ(saved["hits"], 1);
  EXPECT_EQ(saved["admission"], "all");
  // A cache left behind by a crash is cleared by the next one.
  WriteFile(std::string(kCacheDirectory) + "/0000000000000009", "stale");
  auto cache = OpenCache(6);
  ASSERT_OK(fs_->ReadDir(kCacheDirectory, &left));
  EXPECT_TRUE(left.empty());
  ExpectClean();
}

}  // namespace
}  // namespace hintfs
