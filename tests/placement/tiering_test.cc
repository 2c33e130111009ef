// What cache=auto resolves to from the tiers' read latencies.
#include "placement/tiering.h"

#include <gtest/gtest.h>

namespace hintfs {
namespace {

TEST(ResolveCacheAdmission, TheCachePaysOverAnHddNotOverASataSsd) {
  // zn540 over st14000 (HHZS): a hit saves ~8.6 ms.
  EXPECT_EQ(ResolveCacheAdmission("auto", 59.1, 8695.7), "all");
  // pm9a3 over s4610 (HyperDB): a hit saves ~30 us of a 110 us read.
  EXPECT_EQ(ResolveCacheAdmission("auto", 80, 110), "off");
  EXPECT_EQ(ResolveCacheAdmission("auto", 80, 879), "off");
  EXPECT_EQ(ResolveCacheAdmission("auto", 80, 880), "all");
  // Unknown latencies (drives without a profile) keep HHZS's cache.
  EXPECT_EQ(ResolveCacheAdmission("auto", 0, 110), "all");
  EXPECT_EQ(ResolveCacheAdmission("auto", 80, 0), "all");
  // Anything configured is kept.
  for (const char* c : {"off", "all", "cbf", "expsmooth"}) EXPECT_EQ(ResolveCacheAdmission(c, 80, 110), c);
  // Block tiering keeps the hot blocks up: auto leaves the cache off, a configured cache stays.
  EXPECT_EQ(ResolveCacheAdmission("auto", 59.1, 8695.7, /*block_tiering=*/true), "off");
  EXPECT_EQ(ResolveCacheAdmission("all", 59.1, 8695.7, /*block_tiering=*/true), "all");
}

TEST(ResolveMigration, AutoLeavesTablesInPlaceOnlyUnderBlockTieringOverCloseTiers) {
  // configured, automatic, block tiering, fast and slow read latencies
  EXPECT_FALSE(ResolveMigration(true, true, true, 80, 110)) << "pm9a3 over s4610, blocks on";
  EXPECT_TRUE(ResolveMigration(true, true, false, 80, 110)) << "no blocks: HHZS's migration";
  EXPECT_TRUE(ResolveMigration(true, true, true, 59.1, 8695.7)) << "over an HDD";
  EXPECT_TRUE(ResolveMigration(true, true, true, 0, 110)) << "unknown latencies";
  EXPECT_TRUE(ResolveMigration(true, false, true, 80, 110)) << "migration=on is kept";
  EXPECT_FALSE(ResolveMigration(false, false, false, 59.1, 8695.7)) << "migration=off is kept";
}

TEST(BlocksTakeRoomFromTables, OverAnHddNotOverASataSsd) {
  EXPECT_TRUE(BlocksTakeRoomFromTables(59.1, 8695.7)) << "zn540 over st14000";
  EXPECT_FALSE(BlocksTakeRoomFromTables(80, 110)) << "pm9a3 over s4610";
  EXPECT_TRUE(BlocksTakeRoomFromTables(0, 110)) << "unknown: as before";
}

}  // namespace
}  // namespace hintfs
