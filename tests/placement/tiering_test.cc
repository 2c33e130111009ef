// What cache=auto, migration=auto and block tiering resolve to.
#include "placement/tiering.h"

#include <gtest/gtest.h>

namespace hintfs {
namespace {

TEST(ResolveCacheAdmission, AutoIsEveryBlockInBorrowedRoomUnlessBlocksTakeRoom) {
  EXPECT_EQ(ResolveCacheAdmission("auto", false), "all");
  EXPECT_TRUE(CacheBorrowsFreeZones("auto", "auto"));
  EXPECT_EQ(ResolveCacheAdmission("auto", true), "off") << "block tiering over an HDD promotes the hot blocks";
  // Anything configured is kept; a named admission keeps HHZS's budget
  // unless the room is named too.
  for (const char* c : {"off", "all", "cbf", "expsmooth"}) {
    EXPECT_EQ(ResolveCacheAdmission(c, false), c);
    EXPECT_EQ(ResolveCacheAdmission(c, true), c);
  }
  EXPECT_FALSE(CacheBorrowsFreeZones("auto", "all"));
  EXPECT_TRUE(CacheBorrowsFreeZones("free", "all"));
  EXPECT_FALSE(CacheBorrowsFreeZones("budget", "auto"));
}

TEST(CheckCacheOption, TakesEachOptionsValuesAndNamesThemOtherwise) {
  for (const char* c : {"off", "auto", "all", "cbf", "expsmooth"}) EXPECT_TRUE(CheckCacheOption("cache", c).ok()) << c;
  for (const char* r : {"budget", "free", "auto"}) EXPECT_TRUE(CheckCacheOption("cache_room", r).ok()) << r;
  Status bad = CheckCacheOption("cache", "free");
  EXPECT_TRUE(bad.IsInvalidArgument());
  EXPECT_EQ(bad.message(), "cache is off, auto, all, cbf or expsmooth, not 'free'");
  EXPECT_EQ(CheckCacheOption("cache_room", "all").message(), "cache_room is budget, free or auto, not 'all'");
  EXPECT_FALSE(CheckCacheOption("cache_size", "auto").ok());
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

// Tables larger than a zone are reported once they are two and an eighth of
// the fast zones, naming the RocksDB option that makes tables outgrow zones.
TEST(TablesOutgrowZones, SpeaksUpAtTwoTablesAndAnEighthOfTheZones) {
  EXPECT_EQ(TablesOutgrowZones(0, 10, 22, 2 << 20), "");
  EXPECT_EQ(TablesOutgrowZones(1, 3, 4, 2 << 20), "") << "one table is no news";
  EXPECT_EQ(TablesOutgrowZones(2, 10, 22, 2 << 20), "") << "under an eighth";
  const std::string w = TablesOutgrowZones(3, 9, 22, 2 << 20);
  EXPECT_NE(w.find("3 of the 9 tables on the fast tier are larger than a zone (2.0 MiB)"), std::string::npos) << w;
  EXPECT_NE(w.find("level_compaction_dynamic_file_size=false"), std::string::npos);
}

TEST(BlocksTakeRoomFromTables, OverAnHddNotOverASataSsd) {
  EXPECT_TRUE(BlocksTakeRoomFromTables(59.1, 8695.7)) << "zn540 over st14000";
  EXPECT_FALSE(BlocksTakeRoomFromTables(80, 110)) << "pm9a3 over s4610";
  EXPECT_TRUE(BlocksTakeRoomFromTables(190.0, 1596.1)) << "hotrap-nitro over hotrap-gp3 (HotRAP's testbed)";
  EXPECT_TRUE(BlocksTakeRoomFromTables(0, 110)) << "unknown: as before";
}

}  // namespace
}  // namespace hintfs
