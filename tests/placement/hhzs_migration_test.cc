// hhzs's claims over time and what migration sees of them: held peaks, the
// wait for moves up, the room the tiering level kept, and the fill.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fs/clock.h"
#include "placement/hhzs_policy.h"
#include "placement/policy_registry.h"
#include "tests/placement/hhzs_test_fixture.h"

namespace hintfs {
namespace {

TEST_F(HhzsTest, HoldKeepsALevelsPeakClaimForAWhile) {
  for (uint64_t hold_ms : {0, 1000}) {
    HhzsConfig c;
    c.hold_ns = hold_ms * 1000000;
    Make(c);
    EXPECT_TRUE(Place("/db/000001.log", -1));
    EXPECT_TRUE(Place("/db/a.sst", 0));  // A0 = 1, D0 = 1
    // A compaction into L1 claims 6 slots, then ends without output.
    Publish(Hint::Kind::kCompactionBegin, 1, "", 1, 6, 1000);
    EXPECT_EQ(policy_->Decide(2, false, 10).tiering_level, HhzsPolicy::kMaxLevels);  // 2 + 6 < 10
    Publish(Hint::Kind::kCompactionEnd, 1, "", 1, 0, 1100);
    // A compaction into L2 selecting 5: without the hold, 2 + 0 + 5 < 10.
    Publish(Hint::Kind::kCompactionBegin, 2, "", 2, 5, 1200);
    HhzsPolicy::Decision d = policy_->Decide(2, false, 10);
    if (hold_ms == 0) {
      EXPECT_EQ(d.tiering_level, HhzsPolicy::kMaxLevels);
    } else {  // L1's claim of 6 is held: 2, 8, 13 >= 10, so t = 2 with 2 slots
      EXPECT_EQ(d.tiering_level, 2);
      EXPECT_EQ(d.reserved, 2);
    }
    // Once the hold has passed, L1's claim is its current one again.
    Publish(Hint::Kind::kFlushBegin, 3, "", 0, 0, 2500);
    EXPECT_EQ(policy_->Decide(2, false, 10).tiering_level, HhzsPolicy::kMaxLevels);
  }
}

// Moves up wait while the store's compactions write the levels above the
// tiering level (outputs created there, compactions into them begun), from
// the second latest such write: not for flushes, a lone compaction, or
// writes at or below L_t; up_wait_ms=0 is HHZS's migration, which never waits.
TEST_F(HhzsTest, MovesUpWaitForWritesAboveTheTieringLevel) {
  for (uint64_t wait_ms : {5000, 0}) {
    HhzsConfig c;
    c.up_moves_wait_ns = wait_ms * 1000000;
    Make(c);
    EXPECT_TRUE(Place("/db/000010.log", -1));
    for (int i = 0; i < 10; i++) Place("/db/l2-" + std::to_string(i) + ".sst", 2);
    ASSERT_EQ(policy_->Tiering().tiering_level, 2);
    EXPECT_EQ(policy_->Tiering().up_moves_wait_until_ns, 0u) << "L_t's own writes";
    Publish(Hint::Kind::kCompactionBegin, 9, "", 0, 2, /*time_ms=*/1000);  // an L0 -> L0 compaction
    Publish(Hint::Kind::kTableFileCreation, 0, "/db/l0-flushed.sst", 0, 0, /*time_ms=*/1200);  // a flush
    EXPECT_EQ(policy_->Tiering().up_moves_wait_until_ns, 0u) << "one compaction is no burst";
    Publish(Hint::Kind::kTableFileCreation, 0, "/db/l1-new.sst", 1, 0, /*time_ms=*/1500);
    Publish(Hint::Kind::kTableFileCreation, 0, "/db/l0-flushed2.sst", 0, 0, /*time_ms=*/1800);
    Publish(Hint::Kind::kTableFileCreation, 0, "/db/l3-new.sst", 3, 0, /*time_ms=*/9000);
    Publish(Hint::Kind::kCompactionBegin, 10, "", 2, 2, /*time_ms=*/9500);  // into L_t itself
    TieringView v = policy_->Tiering();
    EXPECT_EQ(v.tiering_level, 2);
    EXPECT_EQ(v.up_moves_wait_until_ns, wait_ms == 0 ? 0 : (1000 + wait_ms) * 1000000) << wait_ms;
    EXPECT_EQ(v.now_ns, 0u) << "the caller's clock, not the policy's";
  }
  // The state says how long moves are still held, on the hints' clock, so
  // that a harness can wait for them (adapters/bench/fs_activity.h).
  for (bool migration : {true, false}) {
    HhzsConfig c;
    c.services.migration = migration;
    Make(c);
    Place("/db/000011.log", -1);
    for (int i = 0; i < 10; i++) Place("/db/l2-" + std::to_string(i) + ".sst", 2);
    auto held_ms = [&] { return nlohmann::json::parse(policy_->StateJson())["up_moves_held_ms"].get<uint64_t>(); };
    EXPECT_EQ(held_ms(), 0u);
    const uint64_t now_ms = MonotonicNs() / 1000000;
    Publish(Hint::Kind::kTableFileCreation, 0, "/db/l1-a.sst", 1, 0, now_ms);
    Publish(Hint::Kind::kTableFileCreation, 0, "/db/l1-b.sst", 1, 0, now_ms);
    if (migration) {
      EXPECT_GT(held_ms(), 0u);
      EXPECT_LE(held_ms(), 5000u);
    } else {
      EXPECT_EQ(held_ms(), 0u) << "no migration holds nothing";
    }
  }
  std::shared_ptr<AllocationPolicy> p;
  ASSERT_TRUE(NewAllocationPolicy("hhzs:up_wait_ms=250", bus_, &p).ok());
  EXPECT_EQ(static_cast<HhzsPolicy*>(p.get())->config().up_moves_wait_ns, 250000000u);
  EXPECT_EQ(nlohmann::json::parse(p->StateJson())["up_wait_ms"], 250);
  EXPECT_FALSE(NewAllocationPolicy("hhzs:up_wait_ms=soon", bus_, &p).ok());
  EXPECT_FALSE(NewAllocationPolicy("hhzs:up_wait_ms=-1", bus_, &p).ok());
  EXPECT_FALSE(NewAllocationPolicy("hhzs:up_wait_ms=", bus_, &p).ok());
}

// The policy keeps L_t's reservation over time for migration, which moves
// tables up only into the room L_t kept over steady_room_ms: a compaction
// above L_t takes slots for a moment, and a table moved up at the peak
// would be moved down again at the next dip. steady_room_ms=0 and
// swap_margin=1 are HHZS's migration.
TEST_F(HhzsTest, MigrationSeesTheLeastRoomTheTieringLevelKept) {
  for (uint64_t window_ms : {30000, 0}) {
    HhzsConfig c;
    c.steady_room_ns = window_ms * 1000000;
    Make(c);
    Place("/db/000010.log", -1);
    for (int i = 0; i < 10; i++) Place("/db/l2-" + std::to_string(i) + ".sst", 2);
    const int64_t before = policy_->Tiering().reserved;
    ASSERT_EQ(policy_->Tiering().tiering_level, 2);
    Publish(Hint::Kind::kCompactionBegin, 7, "", 1, 3, /*time_ms=*/1000);  // L0 -> L1 claims 3 slots
    const int64_t dip = policy_->Tiering().reserved;
    EXPECT_EQ(dip, before - 3);
    Publish(Hint::Kind::kCompactionEnd, 7, "", 1, 0, /*time_ms=*/2000);
    TieringView v = policy_->Tiering();
    EXPECT_EQ(v.reserved, before) << "the reservation is back";
    EXPECT_EQ(v.swap_margin, 2.0);
    if (window_ms == 0) {
      EXPECT_EQ(v.steady_room_ns, 0u);
      continue;
    }
    EXPECT_EQ(v.steady_room_ns, 30000000000u);
    ASSERT_FALSE(v.reserved_history.empty());
    EXPECT_EQ(v.reserved_history.Floor(2500000000, v.steady_room_ns), dip);
    EXPECT_EQ(v.reserved_history.Floor(32000000000, v.steady_room_ns), before);
    EXPECT_EQ(v.reserved_history.SettlesAt(v.steady_room_ns), 32000000000u);
  }
  std::shared_ptr<AllocationPolicy> p;
  ASSERT_TRUE(NewAllocationPolicy("hhzs:steady_room_ms=0,swap_margin=1", bus_, &p).ok());
  auto state = nlohmann::json::parse(p->StateJson());
  EXPECT_EQ(state["steady_room_ms"], 0);
  EXPECT_EQ(state["swap_margin"], 1.0);
  ASSERT_TRUE(NewAllocationPolicy("hhzs:swap_margin=1.5", bus_, &p).ok());
  EXPECT_EQ(static_cast<HhzsPolicy*>(p.get())->config().swap_margin, 1.5);
  for (const char* bad : {"hhzs:swap_margin=0.5", "hhzs:swap_margin=x", "hhzs:swap_margin=", "hhzs:swap_margin=nan",
                          "hhzs:steady_room_ms=-1"}) {
    EXPECT_FALSE(NewAllocationPolicy(bad, bus_, &p).ok()) << bad;
  }
}

// The tiering level's reserved room is filled at rest by default;
// fill=upper leaves it to popularity migration (HHZS).
TEST_F(HhzsTest, FillReachesTheTieringLevelUnlessUpperIsAsked) {
  EXPECT_TRUE(HhzsConfig().fill_tiering_level);
  for (bool tiering : {true, false}) {
    HhzsConfig c;
    c.fill_tiering_level = tiering;
    Make(c);
    for (int i = 0; i < 10; i++) Place("/db/l2-" + std::to_string(i) + ".sst", 2);
    TieringView v = policy_->Tiering();
    ASSERT_EQ(v.tiering_level, 2);
    EXPECT_EQ(v.fill_tiering_level, tiering);
    EXPECT_EQ(nlohmann::json::parse(policy_->StateJson())["fill"], tiering ? "tiering" : "upper");
  }
  std::shared_ptr<AllocationPolicy> p;
  ASSERT_TRUE(NewAllocationPolicy("hhzs:fill=upper", bus_, &p).ok());
  EXPECT_FALSE(static_cast<HhzsPolicy*>(p.get())->config().fill_tiering_level);
  ASSERT_TRUE(NewAllocationPolicy("hhzs:fill=tiering", bus_, &p).ok());
  EXPECT_TRUE(static_cast<HhzsPolicy*>(p.get())->config().fill_tiering_level);
  EXPECT_FALSE(NewAllocationPolicy("hhzs:fill=all", bus_, &p).ok());
}

}  // namespace
}  // namespace hintfs
