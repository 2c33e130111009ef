// HHZS workload-aware migration decisions (HHZS §3.4) on hand-built cases.
#include <gtest/gtest.h>

#include <limits>

#include "placement/migration_planner.h"

namespace hintfs {
namespace {

TableView T(const std::string& path, int level, bool fast, double read_rate = 0, bool compacting = false) {
  TableView t;
  t.path = path;
  t.level = level;
  t.fast = fast;
  t.bytes = 1 << 20;
  t.read_rate = read_rate;
  t.compacting = compacting;
  return t;
}

// A slow L3 table whose keys' sequence numbers the MANIFEST recorded.
TableView Aged(const std::string& path, uint64_t oldest, uint64_t newest) {
  TableView t = T(path, 3, false);
  t.seqnos_known = true;
  t.oldest_seqno = oldest;
  t.newest_seqno = newest;
  return t;
}

TieringView Tiering(int t, int64_t reserved, int64_t fast_at_t, int64_t free_slots, int64_t demand_below) {
  TieringView v;
  v.tiering_level = t;
  v.reserved = reserved;
  v.fast_at_tiering_level = fast_at_t;
  v.free_slots = free_slots;
  v.demand_below = demand_below;
  return v;
}

TEST(MigrationPlannerTest, PriorityIsLevelThenReadRateThenNewest) {
  EXPECT_TRUE(HigherPriority(T("a", 1, true, 0), T("b", 2, true, 100)));
  EXPECT_TRUE(HigherPriority(T("a", 2, true, 5), T("b", 2, true, 1)));
  EXPECT_FALSE(HigherPriority(T("a", 2, true, 1), T("b", 2, true, 5)));
  // Equally read: the later table number, however many digits it has.
  EXPECT_TRUE(HigherPriority(T("/db/000124.sst", 2, true), T("/db/000123.sst", 2, true)));
  EXPECT_TRUE(HigherPriority(T("/db/1000000.sst", 2, true), T("/db/999999.sst", 2, true)));
  EXPECT_FALSE(HigherPriority(T("/db/000123.sst", 2, true), T("/db/000124.sst", 2, true)));
  EXPECT_FALSE(HigherPriority(T("/db/000123.sst", 2, true), T("/db/000123.sst", 2, true)));
}

// Where the MANIFEST gave the keys' sequence numbers, equally read tables
// go by the age of their keys, not by their names: the one with the newer
// newest key, then with the newer oldest key.
TEST(MigrationPlannerTest, EquallyReadTablesGoByTheirKeysAge) {
  // A later compaction's output of keys the bottom zeroed, against a table a
  // trivial move brought down with the load's last keys.
  EXPECT_TRUE(HigherPriority(Aged("/db/001520.sst", 255795, 399364), Aged("/db/001583.sst", 0, 0)));
  EXPECT_TRUE(HigherPriority(Aged("/db/000010.sst", 0, 399364), Aged("/db/000011.sst", 0, 390000)));
  EXPECT_TRUE(HigherPriority(Aged("/db/000010.sst", 350000, 399364), Aged("/db/000011.sst", 0, 399364)));
  // Reads still come first; without sequence numbers on both, the names.
  TableView read = Aged("/db/000001.sst", 0, 0);
  read.read_rate = 1;
  EXPECT_TRUE(HigherPriority(read, Aged("/db/000002.sst", 255795, 399364)));
  EXPECT_TRUE(HigherPriority(T("/db/000124.sst", 3, false), Aged("/db/000123.sst", 255795, 399364)));
  EXPECT_FALSE(HigherPriority(Aged("/db/000123.sst", 1, 2), Aged("/db/000123.sst", 1, 2)));
}

// A table the MANIFEST has not numbered yet outranks every numbered one, so
// the order stays an order. By name against numbered tables, these three
// made a cycle: numbered/050 over numbered/200 by keys, 200 over the
// unnumbered 100 by name, and 100 over 050 by name.
TEST(MigrationPlannerTest, TablesNotYetNumberedKeepTheOrderAcyclic) {
  const std::vector<TableView> tables = {Aged("/db/000050.sst", 0, 399000), T("/db/000100.sst", 3, false),
                                         Aged("/db/000200.sst", 0, 10)};
  EXPECT_TRUE(HigherPriority(tables[1], tables[0]));
  EXPECT_TRUE(HigherPriority(tables[1], tables[2]));
  EXPECT_TRUE(HigherPriority(tables[0], tables[2]));
  for (const TableView& a : tables) {
    for (const TableView& b : tables) {
      if (&a == &b) continue;
      EXPECT_NE(HigherPriority(a, b), HigherPriority(b, a)) << a.path << " " << b.path;
      for (const TableView& c : tables) {
        if (HigherPriority(a, b) && HigherPriority(b, c)) {
          EXPECT_TRUE(HigherPriority(a, c)) << a.path << " " << c.path;
        }
      }
    }
  }
}

TEST(MigrationPlannerTest, CapacityMovesTheColdestFastTableBelowTheTieringLevel) {
  // t = 2; a fast L3 table exists: the lowest-priority fast table leaves.
  std::vector<TableView> tables = {T("l1", 1, true), T("l2", 2, true, 3), T("l3-hot", 3, true, 9),
                                   T("l3-cold", 3, true, 1), T("l3-busy", 3, true, 0, /*compacting=*/true),
                                   T("unknown", -1, true)};
  MigrationPlan p = PlanMigration(tables, Tiering(2, 5, 1, 0, 0), 0, 0);
  EXPECT_EQ(p.reason, MigrationPlan::Reason::kCapacity);
  EXPECT_EQ(p.path, "l3-cold");  // never a compaction input or a table of unknown level
  EXPECT_FALSE(p.to_fast);
}

TEST(MigrationPlannerTest, CapacityTrimsTheTieringLevelToItsReservation) {
  std::vector<TableView> tables = {T("l1", 1, true), T("a", 2, true, 4), T("b", 2, true, 2), T("c", 2, false)};
  // L2 has 2 fast tables but only 1 reserved slot.
  MigrationPlan p = PlanMigration(tables, Tiering(2, 1, 2, 0, 0), 0, 0);
  EXPECT_EQ(p.reason, MigrationPlan::Reason::kCapacity);
  EXPECT_EQ(p.path, "b");
  // Within the reservation nothing moves; nor without a tiering level.
  EXPECT_EQ(PlanMigration(tables, Tiering(2, 2, 2, 0, 0), 0, 0).reason, MigrationPlan::Reason::kNone);
  EXPECT_EQ(PlanMigration(tables, TieringView(), 0, 0).reason, MigrationPlan::Reason::kNone);
}

// A policy that has not measured the fast tier yet knows no capacity:
// nothing moves, down or up.
TEST(MigrationPlannerTest, NothingMovesBeforeThePolicyKnowsItsCapacity) {
  std::vector<TableView> tables = {T("l2", 2, true), T("l3", 3, true), T("l1", 1, false, 5)};
  TieringView unknown = Tiering(0, 0, 0, 0, 0);  // what a capacity of zero gives
  ASSERT_EQ(PlanMigration(tables, unknown, 0, 0).reason, MigrationPlan::Reason::kCapacity);
  unknown.known = false;
  EXPECT_EQ(PlanMigration(tables, unknown, 1000, 100).reason, MigrationPlan::Reason::kNone);
  TieringView roomy;  // every level fits
  roomy.known = false;
  roomy.free_slots = 10;
  EXPECT_EQ(PlanMigration(tables, roomy, 1000, 100).reason, MigrationPlan::Reason::kNone);
}

TEST(MigrationPlannerTest, AnExcessOfCompactionInputsWaitsForTheCompaction) {
  // The only fast table deeper than t is being compacted; the coldest movable
  // one is above t, which capacity migration must not touch.
  std::vector<TableView> tables = {T("l1", 1, true), T("l3", 3, true, 0, /*compacting=*/true)};
  EXPECT_EQ(PlanMigration(tables, Tiering(2, 3, 0, 0, 0), 0, 0).reason, MigrationPlan::Reason::kNone);
}

TEST(MigrationPlannerTest, PopularityIsAMoveUpUnderASlowTierBottleneck) {
  std::vector<TableView> tables = {T("fast", 1, true), T("hot", 2, false, 50), T("warm", 2, false, 10),
                                   T("deep", 3, false, 500)};
  TieringView v = Tiering(2, 4, 1, 3, 1);
  // Slow-tier reads above half its IOPS: the highest-priority slow table at
  // L_t or above moves fast (3 free slots > 1 slot of demand above L_t; L2
  // has room), never the hotter table below L_t.
  MigrationPlan p = PlanMigration(tables, v, 51, 100);
  EXPECT_EQ(p.reason, MigrationPlan::Reason::kPopularity);
  EXPECT_EQ(p.path, "hot");
  EXPECT_TRUE(p.to_fast);
  // At or below half its IOPS (or with the IOPS unknown) L_t's reserved
  // room stays empty: which of its tables deserve it, only reads tell.
  EXPECT_EQ(PlanMigration(tables, v, 50, 100).reason, MigrationPlan::Reason::kNone);
  EXPECT_EQ(PlanMigration(tables, v, 500, 0).reason, MigrationPlan::Reason::kNone);
}

TEST(MigrationPlannerTest, FreeSlotsAreFilledWithTablesPlacementWouldPutThereNow) {
  // After a load's compaction debt: L1 and L2 tables wait on the slow tier,
  // unread, while the fast tier has room (t = 3, one slot reserved for L3).
  std::vector<TableView> tables = {T("l1", 1, false), T("l2", 2, false, 4), T("l3", 3, false, 9),
                                   T("l2-busy", 2, false, 0, /*compacting=*/true), T("unknown", -1, false)};
  MigrationPlan p = PlanMigration(tables, Tiering(3, 1, 0, 8, 2), 0, 0);
  EXPECT_EQ(p.reason, MigrationPlan::Reason::kFill);
  EXPECT_EQ(p.path, "l1") << "the level first, whatever the reads";
  EXPECT_TRUE(p.to_fast);
  tables[0].fast = true;
  EXPECT_EQ(PlanMigration(tables, Tiering(3, 1, 0, 7, 2), 0, 0).path, "l2");
  tables[1].fast = true;
  // L_t's reserved room is not filled without read pressure (its size moves
  // with every compaction's demand); under it, the read table takes it.
  EXPECT_EQ(PlanMigration(tables, Tiering(3, 1, 0, 6, 2), 0, 0).reason, MigrationPlan::Reason::kNone);
  p = PlanMigration(tables, Tiering(3, 1, 0, 6, 2), 60, 100);
  EXPECT_EQ(p.reason, MigrationPlan::Reason::kPopularity);
  EXPECT_EQ(p.path, "l3");
  EXPECT_EQ(PlanMigration(tables, Tiering(3, 1, 1, 6, 2), 60, 100).reason, MigrationPlan::Reason::kNone);
  // Free slots the demands above L_t will take are no room; nor are
  // compaction inputs or tables of unknown level movable.
  tables[1].fast = false;
  EXPECT_EQ(PlanMigration(tables, Tiering(3, 1, 0, 2, 2), 0, 0).reason, MigrationPlan::Reason::kNone);
  tables[1].fast = true;
  tables[2].level = 4;
  EXPECT_EQ(PlanMigration(tables, Tiering(3, 1, 0, 6, 2), 0, 0).reason, MigrationPlan::Reason::kNone);
}

TEST(MigrationPlannerTest, TheTieringLevelsRoomIsFilledNewestFirstWhenAsked) {
  std::vector<TableView> tables = {T("/db/000010.sst", 1, true), T("/db/000020.sst", 2, true),
                                   T("/db/000021.sst", 2, false), T("/db/000022.sst", 2, false),
                                   T("/db/000030.sst", 3, false)};
  // t = 2 with 3 slots reserved, 1 of them used, 4 free beyond no demand.
  TieringView v = Tiering(2, 3, 1, 4, 0);
  EXPECT_EQ(PlanMigration(tables, v, 0, 0).reason, MigrationPlan::Reason::kNone) << "popularity's room by default";
  v.fill_tiering_level = true;
  MigrationPlan p = PlanMigration(tables, v, 0, 0);
  EXPECT_EQ(p.reason, MigrationPlan::Reason::kFill);
  EXPECT_EQ(p.path, "/db/000022.sst");
  EXPECT_TRUE(p.to_fast);
  // Never past the reservation, never below L_t, nor into room the demands
  // above L_t will take.
  tables[3].fast = true;
  v.fast_at_tiering_level = 2;
  EXPECT_EQ(PlanMigration(tables, v, 0, 0).path, "/db/000021.sst");
  v.fast_at_tiering_level = 3;
  EXPECT_EQ(PlanMigration(tables, v, 0, 0).reason, MigrationPlan::Reason::kNone);
  v.fast_at_tiering_level = 2;
  v.demand_below = 4;
  EXPECT_EQ(PlanMigration(tables, v, 0, 0).reason, MigrationPlan::Reason::kNone);
  // Nor while the upper levels are written.
  v.demand_below = 0;
  v.up_moves_wait_until_ns = 5000;
  v.now_ns = 4000;
  EXPECT_EQ(PlanMigration(tables, v, 0, 0).reason, MigrationPlan::Reason::kNone);
}

TEST(MigrationPlannerTest, PopularitySwapsWhenTheFastTierIsFull) {
  std::vector<TableView> tables = {T("l1", 1, true, 1), T("l2-cold", 2, true, 1), T("l2-hot", 2, false, 40)};
  // Free slots do not exceed the demand above L_t: swap with the coldest fast table.
  MigrationPlan p = PlanMigration(tables, Tiering(2, 1, 1, 1, 1), 200, 100);
  EXPECT_EQ(p.reason, MigrationPlan::Reason::kSwap);
  EXPECT_EQ(p.path, "l2-hot");
  EXPECT_EQ(p.swap_out, "l2-cold");
  // A slow table that does not outrank the coldest fast one stays.
  tables[2].read_rate = 0.5;
  EXPECT_EQ(PlanMigration(tables, Tiering(2, 1, 1, 1, 1), 200, 100).reason, MigrationPlan::Reason::kNone);
}

// While the store writes the levels above L_t, nothing moves up, neither by
// fill nor by reads; capacity still moves tables down.
TEST(MigrationPlannerTest, MovesUpWaitWhileTheUpperLevelsAreWritten) {
  std::vector<TableView> tables = {T("l1", 1, false), T("l2-cold", 2, true, 1), T("l2-hot", 2, false, 40)};
  TieringView fill = Tiering(3, 1, 0, 8, 2);
  TieringView swap = Tiering(2, 1, 1, 1, 1);
  for (TieringView* v : {&fill, &swap}) {
    v->up_moves_wait_until_ns = 5000;
    v->now_ns = 4999;
  }
  EXPECT_EQ(PlanMigration(tables, fill, 0, 0).reason, MigrationPlan::Reason::kNone);
  EXPECT_EQ(PlanMigration(tables, fill, 200, 100).reason, MigrationPlan::Reason::kNone);
  EXPECT_EQ(PlanMigration(tables, swap, 200, 100).reason, MigrationPlan::Reason::kNone);
  TieringView over = swap;
  over.fast_at_tiering_level = 2;  // L2 over its one reserved slot
  tables[1].fast = tables[2].fast = true;
  EXPECT_EQ(PlanMigration(tables, over, 200, 100).reason, MigrationPlan::Reason::kCapacity);
  tables[2].fast = false;
  // The wait over (or no clock given), the same moves are made.
  for (uint64_t now : {uint64_t{5000}, uint64_t{0}}) {
    fill.now_ns = swap.now_ns = now;
    EXPECT_EQ(PlanMigration(tables, fill, 0, 0).reason, MigrationPlan::Reason::kFill) << now;
    EXPECT_EQ(PlanMigration(tables, swap, 200, 100).reason, MigrationPlan::Reason::kSwap) << now;
  }
}

TEST(MigrationPlannerTest, RecentFloorIsTheLeastValueWithinTheWindow) {
  RecentFloor f;
  EXPECT_TRUE(f.empty());
  f.Note(1000, 8);
  EXPECT_EQ(f.Floor(1000, 500), 8);
  EXPECT_EQ(f.SettlesAt(500), 0u) << "one value: the floor is the value now";
  f.Note(2000, 3);  // a dip
  f.Note(2200, 9);  // and a peak past the first value
  EXPECT_EQ(f.Floor(2300, 500), 3);
  EXPECT_EQ(f.Floor(0, 500), 3) << "no clock: the least kept";
  // The dip ended at 2200: it counts until 2200 + 500.
  EXPECT_EQ(f.SettlesAt(500), 2700u);
  EXPECT_EQ(f.Floor(2699, 500), 3);
  EXPECT_EQ(f.Floor(2700, 500), 9);
  // A value no larger replaces those it undercuts; equal values are no change.
  f.Note(3000, 9);
  EXPECT_EQ(f.SettlesAt(500), 2700u);
  f.Note(3100, 2);
  EXPECT_EQ(f.Floor(3100, 500), 2);
  EXPECT_EQ(f.SettlesAt(500), 0u);
  f.Clear();
  EXPECT_TRUE(f.empty());
}

// Under steady writes L_t's reservation dips with every compaction above it:
// moves up use the room it kept over the window, capacity the room it has now.
TEST(MigrationPlannerTest, MovesUpFillOnlyTheRoomTheTieringLevelKept) {
  std::vector<TableView> tables = {T("l2-fast", 2, true, 30), T("l2-hot", 2, false, 40)};
  TieringView v = Tiering(2, 6, 1, 8, 0);  // 6 slots reserved for L2 now, 1 used
  v.swap_margin = 2;  // 40 reads/s are no reason to swap out a table read 30 times
  v.reserved_history.Note(1000, 6);
  v.reserved_history.Note(2000, 1);  // a dip to 1 slot ...
  v.reserved_history.Note(3000, 6);  // ... that ended at 3000
  v.steady_room_ns = 10000;
  v.now_ns = 5000;
  EXPECT_EQ(PlanMigration(tables, v, 200, 100).reason, MigrationPlan::Reason::kNone);
  v.fill_tiering_level = true;
  EXPECT_EQ(PlanMigration(tables, v, 0, 0).reason, MigrationPlan::Reason::kNone);
  // The dip out of the window, the room is the reservation's again.
  v.now_ns = 13000;
  MigrationPlan p = PlanMigration(tables, v, 200, 100);
  EXPECT_EQ(p.reason, MigrationPlan::Reason::kPopularity);
  EXPECT_EQ(p.path, "l2-hot");
  // Without a window (HHZS) the reservation now decides at once.
  v.now_ns = 5000;
  v.steady_room_ns = 0;
  EXPECT_EQ(PlanMigration(tables, v, 200, 100).reason, MigrationPlan::Reason::kPopularity);
  // Capacity never waits for the floor: over the reservation now, down.
  v.steady_room_ns = 10000;
  v.reserved = 0;
  p = PlanMigration(tables, v, 200, 100);
  EXPECT_EQ(p.reason, MigrationPlan::Reason::kCapacity);
  EXPECT_EQ(p.path, "l2-fast");
}

TEST(MigrationPlannerTest, ASwapWithinALevelNeedsItsMarginOfReads) {
  std::vector<TableView> tables = {T("l2-fast", 2, true, 1.0), T("l2-slow", 2, false, 1.9)};
  TieringView v = Tiering(2, 1, 1, 0, 0);  // no room: only a swap can move it up
  EXPECT_EQ(PlanMigration(tables, v, 200, 100).reason, MigrationPlan::Reason::kSwap) << "HHZS: any more reads";
  v.swap_margin = 2;
  EXPECT_EQ(PlanMigration(tables, v, 200, 100).reason, MigrationPlan::Reason::kNone);
  tables[1].read_rate = 2.1;
  EXPECT_EQ(PlanMigration(tables, v, 200, 100).reason, MigrationPlan::Reason::kSwap);
  // Across levels the level decides, whatever the reads.
  tables = {T("l2-fast", 2, true, 5.0), T("l1-slow", 1, false, 0.5)};
  v.reserved = 0;  // no room at any level
  v.fast_at_tiering_level = 0;
  MigrationPlan p = PlanMigration(tables, v, 200, 100);
  EXPECT_EQ(p.reason, MigrationPlan::Reason::kSwap);
  EXPECT_EQ(p.path, "l1-slow");
}

// A cache borrowing the empty room serves reads from it: a move up into that
// room (fill or popularity) is made only for a table read more often than a
// zone of the room serves; swaps take no room and go on.
TEST(MigrationPlannerTest, MovesUpIntoFreeRoomMustOutreadTheCacheThere) {
  std::vector<TableView> tables = {T("l1", 1, false, 0.5), T("l2-hot", 2, false, 3), T("l3", 3, false, 9)};
  TieringView v = Tiering(2, 4, 0, 6, 1);
  v.free_room_read_rate = 2;
  // l1 (above L_t) is read less than a zone of the cache: it stays; l2-hot
  // outreads the cache and takes L_t's room under read pressure.
  MigrationPlan p = PlanMigration(tables, v, 200, 100);
  EXPECT_EQ(p.reason, MigrationPlan::Reason::kPopularity);
  EXPECT_EQ(p.path, "l2-hot");
  tables[1].read_rate = 1.5;
  EXPECT_EQ(PlanMigration(tables, v, 200, 100).reason, MigrationPlan::Reason::kNone);
  // Not measured yet: nothing takes the room.
  tables[1].read_rate = 3;
  v.free_room_read_rate = std::numeric_limits<double>::infinity();
  EXPECT_EQ(PlanMigration(tables, v, 200, 100).reason, MigrationPlan::Reason::kNone);
  v.fill_tiering_level = true;
  EXPECT_EQ(PlanMigration(tables, v, 0, 0).reason, MigrationPlan::Reason::kNone);
  // Nor does a swap go ahead while there is room whose worth is unknown.
  tables.push_back(T("l2-cold", 2, true, 0.1));
  EXPECT_EQ(PlanMigration(tables, v, 200, 100).reason, MigrationPlan::Reason::kNone);
  tables.pop_back();
  // No cache there (0): the upper level fills as before, read or not.
  v.free_room_read_rate = 0;
  p = PlanMigration(tables, v, 0, 0);
  EXPECT_EQ(p.reason, MigrationPlan::Reason::kFill);
  EXPECT_EQ(p.path, "l1");
  // A swap frees what it takes: the cache's rate does not hold it back.
  tables = {T("l2-cold", 2, true, 0.1), T("l2-hot", 2, false, 1)};
  v = Tiering(2, 1, 1, 6, 1);
  v.free_room_read_rate = 5;
  v.swap_margin = 2;
  p = PlanMigration(tables, v, 200, 100);
  EXPECT_EQ(p.reason, MigrationPlan::Reason::kSwap);
  EXPECT_EQ(p.swap_out, "l2-cold");
}
}  // namespace
}  // namespace hintfs
