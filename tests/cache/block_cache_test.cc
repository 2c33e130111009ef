// The block cache on a real (memory-backed) filesystem: blocks come back
// byte for byte, zones are evicted oldest first, the WAL takes its budget
// back, and closing leaves nothing but the saved statistics.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cache/block_cache_fixture.h"

namespace hintfs {
namespace {

using test::FsGeometry;

class BlockCacheTest : public test::BlockCacheFixture {};

TEST_F(BlockCacheTest, ServesTheBytesItWasGiven) {
  auto cache = OpenCache(6);
  for (int i = 0; i < 100; i++) EXPECT_TRUE(cache->Offer("k" + std::to_string(i), Block(i)));
  cache->WaitForAdmissions();
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
  // 6 budget zones: at most 6 cache files of kBlocksPerZone blocks each.
  auto cache = OpenCache(6);
  const int n = 1000;
  for (int i = 0; i < n; i++) ASSERT_TRUE(cache->Offer("k" + std::to_string(i), Block(i))) << i;
  cache->WaitForAdmissions();
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
  EXPECT_EQ(first_present % kBlocksPerZone, 0) << "eviction drops whole zones";
  EXPECT_EQ(static_cast<uint64_t>(n - first_present), cache->stats().blocks);
}

TEST_F(BlockCacheTest, TheWalTakesItsBudgetBack) {
  auto cache = OpenCache(6);
  for (int i = 0; i < 256; i++) cache->Offer("k" + std::to_string(i), Block(i));
  cache->WaitForAdmissions();
  uint32_t before = static_cast<uint32_t>(cache->stats().zones);
  EXPECT_GE(before, 3u);
  // The WAL grows by three zones.
  std::unique_ptr<FileWriter> wal;
  ASSERT_OK(fs_->OpenWriter("/000001.log", WriteMode::kTruncate, &wal));
  ASSERT_OK(wal->Append(std::string(3 * kBlocksPerZone * 4096 - 8192, 'w')));  // three zones
  ASSERT_OK(wal->Sync());
  for (int i = 256; i < 1024; i++) cache->Offer("k" + std::to_string(i), Block(i));
  cache->WaitForAdmissions();
  // 6 budget zones - 3 WAL zones = 3 cache zones at most.
  EXPECT_LE(cache->stats().zones, 3u);
  std::vector<DeviceUsage> usage;
  ASSERT_OK(fs_->Usage(&usage));
  EXPECT_LE(usage[0].role_zones[static_cast<int>(kWalClass)] +
                usage[0].role_zones[static_cast<int>(kCacheClass)],
            6u);
  ASSERT_OK(wal->Close());
}

// Offers blocks first..last-1 and waits until the cache has written them.
void OfferRange(BlockCache* cache, int first, int last, std::string (*block)(int)) {
  for (int i = first; i < last; i++) cache->Offer("k" + std::to_string(i), block(i));
  cache->WaitForAdmissions();
}

TEST_F(BlockCacheTest, ABorrowingCacheFillsEmptyZonesAndGivesThemBackToWriters) {
  auto cache = OpenCache(0, "all", /*borrow=*/true);
  OfferRange(cache.get(), 0, 3000, &Block);
  std::vector<DeviceUsage> usage;
  ASSERT_OK(fs_->Usage(&usage));
  const uint32_t held = static_cast<uint32_t>(cache->stats().zones);
  // All the empty zones but those it leaves (and one it found empty while
  // it filled its newest), though its budget is none.
  EXPECT_GE(held, 10u);
  EXPECT_LE(usage[0].empty_zones, BlockCache::kEmptyZonesLeft + 1);
  // A file nearly as large as the fast tier's free zones and the cache's
  // together (zones keep a trailer, the filesystem two empty, the cache the
  // zone it fills) lands wholly on the fast tier: the cache gives its zones
  // back. The cache's zones are the filesystem's count of its class: the
  // cache can hold more files than that (20 files in 17 zones in a run under
  // CPU load; why is not known), and sized by its file count the file
  // spilled in about 1 run in 20, and in 1 in 4 under load.
  const uint64_t zone = 256 << 10;
  const uint32_t cache_zones = usage[0].role_zones[static_cast<int>(kCacheClass)];
  const uint64_t bytes = (cache_zones - 2 + usage[0].empty_zones - 2) * zone;
  std::mt19937_64 rng(3);
  const std::string data = Random(&rng, bytes);
  WriteFile("/table.sst", data);
  BlockCacheStats s = cache->stats();
  for (const auto& [device, z] : ZonesOf("/table.sst")) {
    EXPECT_EQ(fs_->superblock().members[device].tier, Tier::kFast)
        << "zone " << z << " held " << held << " empty " << usage[0].empty_zones << " given back "
        << s.given_back_zones << " left " << s.zones;
  }
  EXPECT_EQ(ReadFile("/table.sst"), data);
  EXPECT_GE(s.given_back_zones, cache_zones - 2);  // each gives back at most one of the filesystem's zones
  EXPECT_EQ(s.zones, held - s.given_back_zones);
  // What it still holds is served intact; what it gave back is a miss.
  int hits = 0;
  for (int i = 0; i < 3000; i++) {
    std::string v;
    if (cache->Lookup("k" + std::to_string(i), &v)) {
      ASSERT_EQ(v, Block(i));
      hits++;
    }
  }
  EXPECT_EQ(static_cast<uint64_t>(hits), cache->stats().blocks);
  EXPECT_EQ(cache->stats().bad_blocks, 0u);
  ASSERT_OK(cache->Close());
  ExpectClean();
}

// The zone a borrowing cache is filling goes back too when it holds no
// other: a table that finds the fast tier full but for it lands there, the
// blocks it held are misses, and the cache fills again once zones come free.
TEST_F(BlockCacheTest, ABorrowingCacheGivesBackTheZoneItIsFilling) {
  auto cache = OpenCache(0, "all", /*borrow=*/true);
  OfferRange(cache.get(), 0, 10, &Block);  // a few blocks: one zone, being filled
  ASSERT_EQ(cache->stats().zones, 1u);
  std::vector<DeviceUsage> usage;
  ASSERT_OK(fs_->Usage(&usage));
  const uint64_t zone = 256 << 10;
  std::mt19937_64 rng(6);
  const std::string filler = Random(&rng, (usage[0].empty_zones - 2) * (zone - 4096));
  WriteFile("/filler", filler);  // leaves the two empty zones the filesystem keeps
  const std::string table = Random(&rng, zone / 2);
  WriteFile("/table.sst", table);
  for (const auto& [device, z] : ZonesOf("/table.sst")) {
    EXPECT_EQ(fs_->superblock().members[device].tier, Tier::kFast) << "zone " << z;
  }
  BlockCacheStats s = cache->stats();
  EXPECT_EQ(s.given_back_zones, 1u);
  EXPECT_EQ(s.zones, 0u);
  EXPECT_EQ(s.blocks, 0u);
  std::string v;
  EXPECT_FALSE(cache->Lookup("k3", &v));
  EXPECT_EQ(ReadFile("/table.sst"), table);
  EXPECT_EQ(ReadFile("/filler"), filler);
  // Room again: the cache opens a zone and serves what it admits (blocks
  // missed twice: it last found itself full).
  ASSERT_OK(fs_->Unlink("/filler"));
  ASSERT_OK(fs_->SyncMetadata());
  OfferRange(cache.get(), 100, 110, &Block);
  OfferRange(cache.get(), 100, 110, &Block);
  ASSERT_TRUE(cache->Lookup("k105", &v));
  EXPECT_EQ(v, Block(105));
  ASSERT_OK(cache->Close());
  ExpectClean();
}

TEST_F(BlockCacheTest, MigrationToTheFastTierGetsTheZonesABorrowingCacheHolds) {
  std::mt19937_64 rng(4);
  const std::string data = Random(&rng, 4 * (256 << 10));
  WriteFile("/t.sst", data);
  MigrateResult r;
  ASSERT_OK(fs_->MigrateFile("/t.sst", Tier::kSlow, nullptr, &r));
  auto cache = OpenCache(0, "all", /*borrow=*/true);
  OfferRange(cache.get(), 0, 3000, &Block);
  ASSERT_GE(cache->stats().zones, 10u);
  ASSERT_OK(fs_->MigrateFile("/t.sst", Tier::kFast, nullptr, &r));
  for (const auto& [device, z] : ZonesOf("/t.sst")) {
    EXPECT_EQ(fs_->superblock().members[device].tier, Tier::kFast) << "zone " << z;
  }
  EXPECT_GE(cache->stats().given_back_zones, 2u);
  EXPECT_EQ(ReadFile("/t.sst"), data);
  ASSERT_OK(cache->Close());
  ExpectClean();
}

TEST_F(BlockCacheTest, AFullBorrowingCacheAdmitsOnlyBlocksMissedTwice) {
  auto cache = OpenCache(0, "all", /*borrow=*/true);
  OfferRange(cache.get(), 0, 3000, &Block);  // more than the fast tier holds
  const uint64_t admitted = cache->stats().admitted;
  ASSERT_GT(cache->stats().turned_away, 0u) << "the cache never filled";
  // New blocks missed once are turned away once the newest zone is full...
  const uint64_t turned_away = cache->stats().turned_away;
  OfferRange(cache.get(), 10000, 10200, &Block);
  EXPECT_GE(cache->stats().turned_away, turned_away + 190);
  EXPECT_LE(cache->stats().admitted, admitted + 10);  // (the newest zone's room)
  // ...and taken when they miss again.
  OfferRange(cache.get(), 10000, 10200, &Block);
  EXPECT_GE(cache->stats().admitted, admitted + 190);
  std::string v;
  ASSERT_TRUE(cache->Lookup("k10150", &v));
  EXPECT_EQ(v, Block(10150));
}

TEST_F(BlockCacheTest, TheWalGetsACacheZoneAtOnce) {
  // Files fill the fast tier but for the cache's budget, which the cache
  // holds; a WAL then needs a zone.
  auto cache = OpenCache(4);
  OfferRange(cache.get(), 0, 4 * kBlocksPerZone, &Block);
  ASSERT_EQ(cache->stats().zones, 4u);
  std::vector<DeviceUsage> usage;
  ASSERT_OK(fs_->Usage(&usage));
  std::mt19937_64 rng(5);
  WriteFile("/data", Random(&rng, (usage[0].empty_zones - 2) * (256 << 10)));
  ASSERT_OK(fs_->Usage(&usage));
  ASSERT_LE(usage[0].empty_zones, 2u);
  std::unique_ptr<FileWriter> wal;
  ASSERT_OK(fs_->OpenWriter("/000001.log", WriteMode::kTruncate, &wal));
  ASSERT_OK(wal->Append(std::string(3 * kBlocksPerZone * 4096 - 8192, 'w')));  // three zones
  ASSERT_OK(wal->Sync());
  ASSERT_OK(wal->Close());
  for (const auto& [device, z] : ZonesOf("/000001.log")) {
    EXPECT_EQ(fs_->superblock().members[device].tier, Tier::kFast) << "zone " << z;
  }
  EXPECT_GE(cache->stats().given_back_zones, 1u);
  // A file of another class gets nothing from a cache within its budget.
  const uint64_t given = cache->stats().given_back_zones;
  WriteFile("/more", Random(&rng, 2 * (256 << 10)));
  EXPECT_EQ(cache->stats().given_back_zones, given);
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
    cache->WaitForAdmissions();
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
