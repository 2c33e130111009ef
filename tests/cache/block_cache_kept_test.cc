// The block cache across mounts: what a clean close saves comes back byte
// for byte at the next open, what changed or was damaged does not, and a
// crash or a bad index costs the blocks, never the mount. Also the eviction
// order: zones that serve reads outlive those that do not.
#include <gtest/gtest.h>

#include <set>

#include "tests/cache/block_cache_fixture.h"

namespace hintfs {
namespace {

// Keys kept as "kept:KEY"; keys in stale_ are refused at the next open, as
// the file layer refuses blocks of a file that changed.
// Keys kept as the group "kept" and the key itself; keys in stale_ are
// refused at the next open, as the file layer refuses blocks of a file that
// changed; keys starting "gone" are not kept at all.
class PrefixMapping : public CacheKeyMapping {
 public:
  std::vector<KeptKey> ToKept(const std::vector<std::string>& keys) override {
    std::vector<KeptKey> out;
    for (const std::string& k : keys) out.push_back(k.rfind("gone", 0) == 0 ? KeptKey{} : KeptKey{"kept", k});
    return out;
  }
  std::vector<std::string> FromKept(const std::vector<KeptKey>& kept) override {
    std::vector<std::string> out;
    for (const KeptKey& k : kept) out.push_back(k.group != "kept" || stale_.count(k.item) ? "" : k.item);
    return out;
  }
  std::set<std::string> stale_;
};

class BlockCacheKeptTest : public test::BlockCacheFixture {
 protected:
  std::unique_ptr<BlockCache> OpenCache(uint64_t budget_zones, bool keep = true) {
    return BlockCacheFixture::OpenCache(budget_zones, "all", false, keep ? keys_ : nullptr);
  }

  static std::string Key(int i) { return "k" + std::to_string(i); }

  void Fill(BlockCache* cache, int from, int to) {
    for (int i = from; i < to; i++) ASSERT_TRUE(cache->Offer(Key(i), Block(i))) << i;
    cache->WaitForAdmissions();
  }

  std::vector<DirEntry> CacheFiles() {
    std::vector<DirEntry> files;
    EXPECT_OK(fs_->ReadDir(kCacheDirectory, &files));
    return files;
  }

  std::shared_ptr<PrefixMapping> keys_ = std::make_shared<PrefixMapping>();
};

TEST_F(BlockCacheKeptTest, ACleanCloseKeepsEveryBlockForTheNextMount) {
  {
    auto cache = OpenCache(6);
    Fill(cache.get(), 0, 100);  // two zones, the second half full
    ASSERT_OK(cache->Close());
  }
  Remount();
  auto cache = OpenCache(6);
  EXPECT_EQ(cache->stats().kept_blocks, 100u);
  for (int i = 0; i < 100; i++) {
    std::string v;
    ASSERT_TRUE(cache->Lookup(Key(i), &v)) << i;
    ASSERT_EQ(v, Block(i));
  }
  // The index is consumed: a crash from here on starts the next mount empty.
  for (const DirEntry& e : CacheFiles()) EXPECT_NE(e.name, "index");
  // New blocks go to zones of their own, after the kept ones.
  Fill(cache.get(), 100, 110);
  std::string v;
  ASSERT_TRUE(cache->Lookup(Key(105), &v));
  EXPECT_EQ(v, Block(105));
  EXPECT_EQ(cache->stats().zones, 3u);
  ASSERT_OK(cache->Close());
  ExpectClean();
}

TEST_F(BlockCacheKeptTest, ChangedOrUnkeptBlocksAreDropped) {
  {
    auto cache = OpenCache(6);
    Fill(cache.get(), 0, 70);
    ASSERT_TRUE(cache->Offer("gone1", Block(1000)));  // its mapping keeps nothing
    cache->WaitForAdmissions();
    ASSERT_OK(cache->Close());
  }
  keys_->stale_ = {Key(3), Key(65)};  // what they name changed in between
  Remount();
  auto cache = OpenCache(6);
  EXPECT_EQ(cache->stats().kept_blocks, 68u);
  std::string v;
  EXPECT_FALSE(cache->Lookup(Key(3), &v));
  EXPECT_FALSE(cache->Lookup(Key(65), &v));
  EXPECT_FALSE(cache->Lookup("gone1", &v));
  ASSERT_TRUE(cache->Lookup(Key(64), &v));
  EXPECT_EQ(v, Block(64));
}

TEST_F(BlockCacheKeptTest, ADamagedIndexStartsTheCacheEmpty) {
  {
    auto cache = OpenCache(6);
    Fill(cache.get(), 0, 70);
    ASSERT_OK(cache->Close());
  }
  std::string index = ReadFile(kCacheIndexFile);
  ASSERT_GT(index.size(), 100u);
  for (size_t at : {size_t{0}, size_t{9}, index.size() / 2, index.size() - 1}) {
    std::string bad = index;
    bad[at] ^= 0x20;
    WriteFile(kCacheIndexFile, bad);
    auto cache = OpenCache(6);
    EXPECT_EQ(cache->stats().blocks, 0u) << "byte " << at;
    EXPECT_TRUE(CacheFiles().empty()) << "byte " << at;
    // Put the kept state back for the next damage.
    Fill(cache.get(), 0, 70);
    ASSERT_OK(cache->Close());
    index = ReadFile(kCacheIndexFile);
  }
  WriteFile(kCacheIndexFile, index.substr(0, index.size() / 3));  // truncated
  auto cache = OpenCache(6);
  EXPECT_EQ(cache->stats().blocks, 0u);
}

TEST_F(BlockCacheKeptTest, AZoneFileNotAsSavedLosesItsBlocks) {
  {
    auto cache = OpenCache(6);
    Fill(cache.get(), 0, 100);
    ASSERT_OK(cache->Close());
  }
  std::vector<DirEntry> files = CacheFiles();
  ASSERT_EQ(files.size(), 3u);  // two zones and the index
  // The newest zone's file is rewritten shorter.
  std::string newest;
  for (const DirEntry& e : files) {
    if (e.name != "index") newest = std::max(newest, e.name);
  }
  WriteFile(std::string(kCacheDirectory) + "/" + newest, "short");
  auto cache = OpenCache(6);
  EXPECT_EQ(cache->stats().kept_blocks, static_cast<uint64_t>(kBlocksPerZone));
  std::string v;
  EXPECT_TRUE(cache->Lookup(Key(0), &v));
  EXPECT_FALSE(cache->Lookup(Key(64), &v));
  EXPECT_EQ(CacheFiles().size(), 1u);  // the rewritten zone and the index are gone
}

TEST_F(BlockCacheKeptTest, WithoutKeysOrAfterACrashNothingIsKept) {
  {
    auto cache = OpenCache(6, /*keep=*/false);
    Fill(cache.get(), 0, 70);
    ASSERT_OK(cache->Close());
  }
  EXPECT_TRUE(CacheFiles().empty());
  // A crash: the cache's files are there, no index is.
  WriteFile(std::string(kCacheDirectory) + "/0000000000000009", Block(9));
  auto cache = OpenCache(6);
  EXPECT_EQ(cache->stats().blocks, 0u);
  EXPECT_TRUE(CacheFiles().empty());
}

TEST_F(BlockCacheKeptTest, ZonesThatServeReadsOutliveOlderOnesThatDoNot) {
  const int z = kBlocksPerZone;
  auto cache = OpenCache(6);
  Fill(cache.get(), 0, 6 * z);  // six full zones: the budget
  std::string v;
  ASSERT_TRUE(cache->Lookup(Key(10), &v));  // the oldest zone serves a read
  Fill(cache.get(), 6 * z, 6 * z + 1);      // a seventh zone: one must go
  EXPECT_EQ(cache->stats().evicted_blocks, static_cast<uint64_t>(z));
  EXPECT_FALSE(cache->Lookup(Key(z), &v)) << "the second oldest zone served nothing and goes first";
  // The oldest lost its mark in passing: the next eviction takes it.
  Fill(cache.get(), 6 * z + 1, 7 * z + 1);
  EXPECT_EQ(cache->stats().evicted_blocks, static_cast<uint64_t>(2 * z));
  EXPECT_FALSE(cache->Lookup(Key(10), &v));
  ASSERT_TRUE(cache->Lookup(Key(2 * z), &v));
  EXPECT_EQ(v, Block(2 * z));
}

// With every fast zone full at the close (but the filesystem's own reserve),
// the index takes the oldest cache zone's place rather than the whole cache
// being lost (session 92: a store's fourth restart found nothing kept).
TEST_F(BlockCacheKeptTest, ACloseWithNoEmptyZoneGivesTheIndexTheOldestZone) {
  const int z = kBlocksPerZone;
  {
    auto cache = OpenCache(6);
    Fill(cache.get(), 0, 6 * z);
    ASSERT_EQ(cache->stats().zones, 6u);
    std::vector<DeviceUsage> usage;
    ASSERT_OK(fs_->Usage(&usage));
    std::mt19937_64 rng(8);
    // Everything else the fast tier holds, and more (the rest spills to the slow tier).
    WriteFile("/data", Random(&rng, (usage[0].empty_zones + 2) * usage[0].zone_data_bytes));
    ASSERT_OK(fs_->Usage(&usage));
    ASSERT_LE(usage[0].empty_zones, 2u);  // what the filesystem keeps back for itself
    ASSERT_EQ(cache->stats().zones, 6u);
    ASSERT_OK(cache->Close());
  }
  Remount();
  auto cache = OpenCache(6);
  // Every zone but the oldest is kept, the one being filled too: its file
  // took its zone with its first block, so its close needs no other.
  EXPECT_EQ(cache->stats().kept_blocks, static_cast<uint64_t>(5 * z));
  std::string v;
  EXPECT_FALSE(cache->Lookup(Key(0), &v));
  ASSERT_TRUE(cache->Lookup(Key(z), &v));
  EXPECT_EQ(v, Block(z));
}

// A cache closed and then destroyed after its filesystem was unmounted (as
// a mount's teardown may order them): the destructor's Close touches
// nothing. It used to clear the zone lender first, on the freed filesystem
// (a crash in about one run in four; under AddressSanitizer, every time).
TEST_F(BlockCacheKeptTest, AClosedCacheOutlivesItsFilesystem) {
  auto cache = OpenCache(6);
  Fill(cache.get(), 0, 2 * kBlocksPerZone);
  ASSERT_OK(cache->Close());
  Remount();
  cache.reset();
  cache = OpenCache(6);
  EXPECT_EQ(cache->stats().kept_blocks, uint64_t{2 * kBlocksPerZone});
}

// Each cache file fills exactly what its zone holds of files, from the
// zone's start: dropping one frees a zone, and the saved index is no part
// of any.
TEST_F(BlockCacheKeptTest, EveryCacheFileIsAZoneOfItsOwn) {
  for (int mount = 0; mount < 2; mount++) {
    auto cache = OpenCache(6);
    Fill(cache.get(), 1000 * mount, 1000 * mount + 3 * kBlocksPerZone + 5);
    ASSERT_OK(cache->Close());
    Remount();
  }
  auto cache = OpenCache(6);
  std::set<std::pair<uint32_t, uint32_t>> seen;
  for (const DirEntry& e : CacheFiles()) {
    const std::string path = std::string(kCacheDirectory) + "/" + e.name;
    FileStat st;
    ASSERT_OK(fs_->Stat(path, &st));
    ASSERT_EQ(st.extents.size(), 1u) << path;
    EXPECT_EQ(st.extents[0].offset % (256 << 10), 0u) << path << ": a zone's start";
    EXPECT_EQ(st.size, uint64_t{kBlocksPerZone} * 4096) << path;
    EXPECT_TRUE(seen.insert({st.extents[0].device, st.extents[0].zone}).second) << path;
  }
  EXPECT_EQ(seen.size(), 6u);
}

}  // namespace
}  // namespace hintfs
