// A block cache on a memory-backed filesystem (fast: 24 zones of 256 KiB,
// kBlocksPerZone blocks of 4 KiB each), mounted with write-ahead logs in the WAL's class as
// the LSM policies place them. Shared by the block cache's tests.
#ifndef HINTFS_TESTS_CACHE_BLOCK_CACHE_FIXTURE_H_
#define HINTFS_TESTS_CACHE_BLOCK_CACHE_FIXTURE_H_

#include <memory>
#include <random>
#include <string>

#include "cache/block_cache.h"
#include "hints/file_tag.h"
#include "tests/fs/fs_fixture.h"

namespace hintfs {
namespace test {

// Write-ahead logs get the WAL role, as the LSM policies do it.
class WalRolePolicy : public FastFirstPolicy {
 public:
  ZoneRole RoleForNewFile(const std::string& path) override {
    return path.size() > 4 && path.compare(path.size() - 4, 4, ".log") == 0 ? kWalClass : ZoneRole::kData;
  }
};

class BlockCacheFixture : public FsTest {
 protected:
  // Blocks of 4 KiB a cache zone holds: a zone's 256 KiB less the block the
  // filesystem keeps for its checksum trailer.
  static constexpr int kBlocksPerZone = 63;

  void SetUp() override {
    FsTest::SetUp();
    Format();
    MountOptions o;
    o.policy = std::make_shared<WalRolePolicy>();
    Mount(o);
  }

  // keys: kept across clean unmounts with that mapping (null: volatile).
  std::unique_ptr<BlockCache> OpenCache(uint64_t budget_zones, const std::string& admission = "all",
                                        bool borrow = false, std::shared_ptr<CacheKeyMapping> keys = nullptr) {
    BlockCacheOptions o;
    o.admission = admission;
    o.budget_bytes = budget_zones * (256 << 10);
    o.borrow_free_zones = borrow;
    o.keys = std::move(keys);
    std::unique_ptr<BlockCache> cache;
    EXPECT_OK(BlockCache::Open(fs_.get(), o, &cache));
    return cache;
  }

  // 4 KiB of bytes that depend on i.
  static std::string Block(int i) {
    std::mt19937_64 rng(static_cast<uint64_t>(i));
    return Random(&rng, 4096);
  }
};

}  // namespace test
}  // namespace hintfs

#endif  // HINTFS_TESTS_CACHE_BLOCK_CACHE_FIXTURE_H_
