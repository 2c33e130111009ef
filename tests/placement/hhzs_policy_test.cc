// HHZS write-guided placement against hand-computed cases (HHZS §3.3).
#include <gtest/gtest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "fs/clock.h"
#include "hints/block_index_keeper.h"
#include "hints/file_tag.h"
#include "placement/hhzs_policy.h"
#include "placement/policy_registry.h"
#include "tests/placement/hhzs_test_fixture.h"

namespace hintfs {
namespace {

TEST_F(HhzsTest, DemandsTieringLevelAndReservedSlots) {
  EXPECT_FALSE(policy_->Tiering().known) << "no fast tier measured before the first allocation";
  EXPECT_TRUE(Place("/db/000010.log", -1));  // the WAL: always fast, one zone
  EXPECT_TRUE(policy_->Tiering().known);
  EXPECT_TRUE(Place("/db/a.sst", 0));
  EXPECT_EQ(policy_->demand(0), 1);          // L0's demand: the WAL zone in use
  EXPECT_TRUE(Place("/db/b.sst", 0));
  EXPECT_TRUE(Place("/db/c.sst", 1));
  EXPECT_TRUE(Place("/db/d.sst", 1));
  EXPECT_TRUE(Place("/db/e.sst", 1));
  EXPECT_EQ(policy_->allocated(0), 2);
  EXPECT_EQ(policy_->allocated(1), 3);

  // A compaction into L2 selects 2 tables: demand 2, then -1 per output.
  Publish(Hint::Kind::kCompactionBegin, 7, "", 2, 2);
  EXPECT_EQ(policy_->demand(2), 2);
  EXPECT_TRUE(Place("/db/f.sst", 2, 7));  // 3 + 3 + (0 + 2) = 8 < 10: no tiering level yet
  Publish(Hint::Kind::kCompactionOutput, 7, "/db/f.sst", 2);
  EXPECT_EQ(policy_->demand(2), 1);
  EXPECT_TRUE(Place("/db/g.sst", 2, 7));
  Publish(Hint::Kind::kCompactionOutput, 7, "/db/g.sst", 2);
  Publish(Hint::Kind::kCompactionEnd, 7, "", 2);
  EXPECT_EQ(policy_->demand(2), 0);
  EXPECT_EQ(policy_->allocated(2), 2);

  // A = {2,3,2}, D = {1,0,4} for another compaction into L2 selecting 4:
  // sums 3, 6, 12 >= 10, so t = 2 and L2 keeps 10 - 6 = 4 fast slots.
  Publish(Hint::Kind::kCompactionBegin, 8, "", 2, 4);
  HhzsPolicy::Decision d = policy_->Decide(2, false, 10);
  EXPECT_EQ(d.tiering_level, 2);
  EXPECT_EQ(d.reserved, 4);
  EXPECT_TRUE(Place("/db/h.sst", 2, 8));  // rule (iii): F2 = 2 of 4
  Publish(Hint::Kind::kCompactionOutput, 8, "/db/h.sst", 2);
  EXPECT_TRUE(Place("/db/i.sst", 2, 8));  // 3 of 4
  Publish(Hint::Kind::kCompactionOutput, 8, "/db/i.sst", 2);
  EXPECT_FALSE(Place("/db/j.sst", 2, 8));  // 4 of 4: the slow tier
  // A counts a level's tables on both tiers; F only the fast ones.
  EXPECT_EQ(policy_->allocated(2), 5);
  EXPECT_EQ(policy_->fast(2), 4);
  EXPECT_FALSE(Place("/db/k.sst", 3));     // below the tiering level: slow
  EXPECT_TRUE(Place("/db/l.sst", 1));      // above it: fast (rule ii)
  EXPECT_TRUE(policy_->Decide(0, true, 10).fast);  // flushes always fast (rule i)
  // A table keeps its first zone's tier.
  EXPECT_FALSE(Place("/db/j.sst", 2, 8));
  // Now A = {2,4,5}, D = {1,0,2}: sums 3, 7, 14, so t = 2 with 10 - 7 = 3
  // slots; deleting one fast L2 table leaves F2 = 3: still no free slot.
  Delete("/db/h.sst");
  EXPECT_EQ(policy_->allocated(2), 4);
  EXPECT_EQ(policy_->fast(2), 3);
  d = policy_->Decide(2, false, 10);
  EXPECT_EQ(d.tiering_level, 2);
  EXPECT_EQ(d.reserved, 3);
  EXPECT_FALSE(Place("/db/m.sst", 2, 8));
  // A second deletion frees one.
  Delete("/db/i.sst");
  EXPECT_TRUE(Place("/db/n.sst", 2, 8));

  // A = {2,4,5: f g j m n}, F = {2,4,3}, D = {1,0,2}.
  auto state = nlohmann::json::parse(policy_->StateJson());
  EXPECT_EQ(state["capacity_slots"], 10);
  EXPECT_EQ(state["tiering_level"], 2);
  EXPECT_EQ(state["reserved_for_tiering_level"], 3);
  EXPECT_EQ(state["levels"][1]["allocated"], 4);
  EXPECT_EQ(state["levels"][2]["allocated"], 5);
  EXPECT_EQ(state["levels"][2]["fast"], 3);
  EXPECT_EQ(state["levels"][2]["demand"], 2);

  // What migration plans against, and how a move changes it.
  TieringView v = policy_->Tiering();
  EXPECT_EQ(v.tiering_level, 2);
  EXPECT_EQ(v.reserved, 3);
  EXPECT_EQ(v.fast_at_tiering_level, 3);
  EXPECT_EQ(v.free_slots, 10 - (2 + 4 + 3));
  EXPECT_EQ(v.demand_below, 1);
  policy_->OnMigrated("/db/j.sst", Tier::kFast);
  EXPECT_EQ(policy_->fast(2), 4);
  EXPECT_EQ(policy_->allocated(2), 5);
  policy_->OnMigrated("/db/f.sst", Tier::kSlow);
  policy_->OnMigrated("/db/g.sst", Tier::kSlow);
  EXPECT_EQ(policy_->Tiering().fast_at_tiering_level, 2);
}

// With level_hold_ns (off by default) L_t is held at its lowest over that
// window: when a compaction into the next level shrinks L_t's claim for a
// moment, that next level's outputs still go slow (they would keep zones
// L_t's next outputs need); HHZS's own rule (level_hold_ns 0) sends them
// fast, and so does a lapsed hold.
TEST_F(HhzsTest, TheTieringLevelIsHeldAtItsLowest) {
  EXPECT_EQ(HhzsConfig().level_hold_ns, 0u);  // off by default
  for (uint64_t hold_ns : {uint64_t{0}, uint64_t{10} * 1000 * 1000 * 1000}) {
    HhzsConfig c;
    c.level_hold_ns = hold_ns;
    Make(c);
    for (int i = 0; i < 3; i++) ASSERT_TRUE(Place("/db/1" + std::to_string(i) + ".sst", 1));
    for (int i = 0; i < 7; i++) ASSERT_TRUE(Place("/db/2" + std::to_string(i) + ".sst", 2));
    EXPECT_EQ(policy_->Decide(2, false, 10).tiering_level, 2);  // 3 + 7 = 10 slots
    EXPECT_FALSE(Place("/db/30.sst", 3));
    Delete("/db/20.sst");  // a compaction into L3 ended: 3 + 6 < 10
    EXPECT_EQ(Place("/db/31.sst", 3), hold_ns == 0) << "hold " << hold_ns;
    auto state = nlohmann::json::parse(policy_->StateJson());
    if (hold_ns == 0) {
      EXPECT_TRUE(state["held_tiering_level"].is_null()) << "no level is held";
      continue;
    }
    EXPECT_EQ(policy_->Decide(3, false, 10).tiering_level, 2);
    EXPECT_EQ(state["held_tiering_level"], 2);
    // Once L_t has stayed deeper for the window, the hold lapses.
    Publish(Hint::Kind::kFileDeleted, 0, "/db/none.sst", -1, 0, 1 + hold_ns / 1000000);
    EXPECT_TRUE(Place("/db/32.sst", 3));
    EXPECT_EQ(policy_->Decide(3, false, 10).tiering_level, 3);
  }
}

// The tiering level's compaction reads fast tables it deletes when it ends:
// with replace_inputs (the default) its outputs take their slots; HHZS's rule
// (iii) as the paper has it counts them until then.
TEST_F(HhzsTest, ACompactionsOutputsTakeTheFastSlotsOfItsInputs) {
  for (bool replace : {true, false}) {
    HhzsConfig c;
    c.replace_inputs = replace;
    Make(c);
    EXPECT_TRUE(Place("/db/000010.log", -1));
    for (const char* t : {"/db/a.sst", "/db/b.sst"}) EXPECT_TRUE(Place(t, 0));
    for (const char* t : {"/db/c.sst", "/db/d.sst", "/db/e.sst"}) EXPECT_TRUE(Place(t, 1));
    for (const char* t : {"/db/f.sst", "/db/g.sst"}) EXPECT_TRUE(Place(t, 2));
    // A = {2,3,2}, D = {1,0,4}: t = 2 with 10 - 6 = 4 slots, two of them
    // held by f and g, which the compaction reads.
    Hint begin;
    begin.kind = Hint::Kind::kCompactionBegin;
    begin.job = 9;
    begin.level = 2;
    begin.count = 4;
    begin.time_ns = 1000000;
    begin.inputs = {HintFile{"/db/d.sst", 1}, HintFile{"/db/f.sst", 2}, HintFile{"/db/g.sst", 2}};
    bus_->Publish(begin);
    ASSERT_EQ(policy_->Decide(2, false, 10).reserved, 4);
    int fast_outputs = 0;
    for (const char* t : {"/db/h.sst", "/db/i.sst", "/db/j.sst", "/db/k.sst", "/db/l.sst"}) {
      fast_outputs += Place(t, 2, 9);
      Publish(Hint::Kind::kCompactionOutput, 9, t, 2);
    }
    EXPECT_EQ(fast_outputs, replace ? 4 : 2) << (replace ? "the inputs' slots too" : "only the free ones");
    // Capacity migration sees the same count: with replace_inputs, L2's
    // fast inputs f and g are no excess over its 4 slots (it would move two
    // tables down that the compaction's end frees anyway); by the paper's
    // rule, 2 outputs + 2 inputs fill the 4 slots.
    TieringView v = policy_->Tiering();
    EXPECT_EQ(v.tiering_level, 2);
    EXPECT_EQ(v.reserved, 4);
    EXPECT_EQ(v.fast_at_tiering_level, 4);
    // Once the inputs are gone, the outputs hold exactly the slots.
    Publish(Hint::Kind::kCompactionEnd, 9, "", 2);
    for (const char* t : {"/db/d.sst", "/db/f.sst", "/db/g.sst"}) Delete(t);
    EXPECT_EQ(policy_->fast(2), replace ? 4 : 2);
    EXPECT_EQ(nlohmann::json::parse(policy_->StateJson())["replace_inputs"], replace);
  }
  std::shared_ptr<AllocationPolicy> p;
  ASSERT_TRUE(NewAllocationPolicy("hhzs:replace_inputs=off", bus_, &p).ok());
  EXPECT_FALSE(static_cast<HhzsPolicy*>(p.get())->config().replace_inputs);
  EXPECT_FALSE(NewAllocationPolicy("hhzs:replace_inputs=maybe", bus_, &p).ok());
  ASSERT_TRUE(NewAllocationPolicy("hhzs:wal_window_ms=0", bus_, &p).ok());
  EXPECT_EQ(static_cast<HhzsPolicy*>(p.get())->config().wal_window_ns, 0u);
  EXPECT_EQ(HhzsConfig().wal_window_ns, 10'000'000'000u);
  EXPECT_FALSE(NewAllocationPolicy("hhzs:wal_window_ms=-1", bus_, &p).ok());
}

TEST_F(HhzsTest, ZonesOfOtherFilesAndAGrownWalShrinkTheCapacity) {
  EXPECT_TRUE(Place("/db/a.sst", 0));
  EXPECT_EQ(nlohmann::json::parse(policy_->StateJson())["capacity_slots"], 10);
  // A manifest holds a zone that is not a table's.
  EXPECT_TRUE(Place("/db/MANIFEST-000001", -1));
  EXPECT_TRUE(Place("/db/b.sst", 0));
  EXPECT_EQ(nlohmann::json::parse(policy_->StateJson())["capacity_slots"], 9);
  // The WAL outgrows its 2-zone budget: its third zone comes out of C too.
  for (int i = 0; i < 3; i++) EXPECT_TRUE(Place("/db/00001" + std::to_string(i) + ".log", -1));
  EXPECT_TRUE(Place("/db/c.sst", 0));
  EXPECT_EQ(nlohmann::json::parse(policy_->StateJson())["capacity_slots"], 8);
  EXPECT_EQ(policy_->demand(0), 3);
}

TEST_F(HhzsTest, InfoLogsGoToTheSlowTierOnceTheyGrow) {
  const uint64_t small = 12 * kTable / kInfoLogFastShare;  // of the 12-zone fast device
  EXPECT_TRUE(Place("/db/LOG", -1));
  EXPECT_TRUE(Place("/db/LOG", -1, 0, small - 1));
  EXPECT_FALSE(Place("/db/LOG", -1, 0, small));
  EXPECT_FALSE(Place("/db/LOG.old.1795482713670247", -1, 0, small));
  EXPECT_TRUE(Place("/db/OPTIONS-000005", -1, 0, small));
  EXPECT_TRUE(Place("/db/CURRENT", -1));
  EXPECT_TRUE(Place("/db/MANIFEST-000004", -1, 0, small));
  EXPECT_TRUE(Place(std::string(kBlockIndexDirectory) + "/00000000000004d2", -1));  // read at every mount
  // The filesystem asks again once the log reaches its share, not when its
  // zone is full.
  AllocationRequest log;
  log.path = "/db/LOG";
  log.file_size = 1000;
  EXPECT_EQ(policy_->AskAgainAfter(log, devices_[0]), small - 1000);
  EXPECT_EQ(policy_->AskAgainAfter(log, devices_[1]), UINT64_MAX) << "on the slow tier it stays";
  log.path = "/db/000012.sst";
  EXPECT_EQ(policy_->AskAgainAfter(log, devices_[0]), UINT64_MAX);
}

TEST_F(HhzsTest, SmallFilesPinWholeZonesOutOfTheCapacity) {
  EXPECT_TRUE(Place("/db/a.sst", 0));
  EXPECT_EQ(nlohmann::json::parse(policy_->StateJson())["capacity_slots"], 10);
  // A MANIFEST of a few hundred bytes: its live bytes are nothing, its zone
  // is one a table cannot have.
  devices_[0].free_zones--;
  devices_[0].role_zones[static_cast<int>(ZoneRole::kData)]++;
  devices_[0].live_bytes += 300;
  EXPECT_TRUE(Place("/db/b.sst", 0));
  EXPECT_EQ(nlohmann::json::parse(policy_->StateJson())["capacity_slots"], 9);
}

TEST_F(HhzsTest, TheWalBudgetGrowsToTheWalsPeak) {
  // The budget is two zones; with nothing of the WAL's in use both are held.
  EXPECT_EQ(policy_->ReservedEmptyZones(devices_[0], kTableClass), 2u);
  // Four WAL zones in use at once: the WAL outgrew its budget.
  for (int i = 0; i < 4; i++) EXPECT_TRUE(Place("/db/00000" + std::to_string(i) + ".log", -1));
  EXPECT_TRUE(Place("/db/a.sst", 0));  // the policy sees the WAL's four zones here
  EXPECT_EQ(nlohmann::json::parse(policy_->StateJson())["wal_peak_bytes"], 4 * kTable);
  // The WAL shrinks back to one zone; the zones of its peak stay held for it.
  for (int i = 1; i < 4; i++) Delete("/db/00000" + std::to_string(i) + ".log");
  EXPECT_EQ(policy_->ReservedEmptyZones(devices_[0], kTableClass), 3u);
  EXPECT_EQ(policy_->ReservedEmptyZones(devices_[0], kWalClass), 0u);
  // Tables are planned without those zones: 12 - 4 = 8 slots.
  EXPECT_TRUE(Place("/db/b.sst", 0));
  EXPECT_EQ(nlohmann::json::parse(policy_->StateJson())["capacity_slots"], 8);
}

// The peak is held for wal_window_ms after it (10 s by default; the hints
// above are all of 1 ms), then the room goes back to tables at once: a
// store at rest allocates nothing, so migration's clock lets it lapse.
TEST_F(HhzsTest, TheWalsPeakLapsesAfterItsWindow) {
  for (int held_for_good : {0, 1}) {
    HhzsConfig c;
    if (held_for_good) c.wal_window_ns = 0;
    Make(c);
    for (int i = 0; i < 4; i++) EXPECT_TRUE(Place("/db/00000" + std::to_string(i) + ".log", -1));
    EXPECT_TRUE(Place("/db/a.sst", 0));  // sees the WAL's four zones
    for (int i = 1; i < 4; i++) Delete("/db/00000" + std::to_string(i) + ".log");
    EXPECT_TRUE(Place("/db/b.sst", 0));  // the WAL is back in one zone
    ASSERT_EQ(nlohmann::json::parse(policy_->StateJson())["capacity_slots"], 8);
    ASSERT_EQ(policy_->Tiering().free_slots, 8 - 2);
    policy_->NoteTime(9'000'000'000);  // within the window
    EXPECT_EQ(policy_->ReservedEmptyZones(devices_[0], kTableClass), 3u);
    EXPECT_EQ(policy_->Tiering().free_slots, 6);
    policy_->NoteTime(11'000'000'000);  // past it
    if (held_for_good) {
      EXPECT_EQ(policy_->ReservedEmptyZones(devices_[0], kTableClass), 3u);
      EXPECT_EQ(policy_->Tiering().free_slots, 6);
      continue;
    }
    // The budget is its two configured zones again, one of them the WAL's.
    EXPECT_EQ(policy_->ReservedEmptyZones(devices_[0], kTableClass), 1u);
    EXPECT_EQ(policy_->Tiering().free_slots, 8) << "the two zones are tables' before any allocation";
    EXPECT_EQ(nlohmann::json::parse(policy_->StateJson())["wal_held_peak_bytes"], kTable);
    EXPECT_EQ(nlohmann::json::parse(policy_->StateJson())["wal_peak_bytes"], 4 * kTable);
    EXPECT_TRUE(Place("/db/c.sst", 0));
    EXPECT_EQ(nlohmann::json::parse(policy_->StateJson())["capacity_slots"], 10);
  }
}

// wal_peak=auto holds the peak where the tiers are far apart (an HDD under
// an SSD, or latencies unknown as the other tests' devices): over a SATA SSD
// under an NVMe SSD the budget stays at its two zones. on and off hold it
// or not whatever the devices are.
TEST_F(HhzsTest, TheWalsPeakIsHeldWhereTheTiersAreFarApart) {
  using Peak = HhzsConfig::WalPeak;
  struct Case {
    Peak peak;
    double slow_read_us;  // under a fast tier of 80 us reads
    bool held;
  };
  for (const Case& c : {Case{Peak::kAuto, 110, false}, Case{Peak::kAuto, 8695.7, true}, Case{Peak::kHold, 110, true},
                        Case{Peak::kNone, 8695.7, false}}) {
    SCOPED_TRACE(::testing::Message() << "wal_peak " << static_cast<int>(c.peak) << ", slow reads of "
                                      << c.slow_read_us << " us");
    HhzsConfig config;
    config.wal_peak = c.peak;
    Make(config);
    devices_[0].random_read_latency_us = 80;
    devices_[1].random_read_latency_us = c.slow_read_us;
    for (int i = 0; i < 4; i++) EXPECT_TRUE(Place("/db/00000" + std::to_string(i) + ".log", -1));
    EXPECT_TRUE(Place("/db/a.sst", 0));  // sees the WAL's four zones
    for (int i = 1; i < 4; i++) Delete("/db/00000" + std::to_string(i) + ".log");
    EXPECT_TRUE(Place("/db/b.sst", 0));  // the WAL is back in one zone
    // Held, the peak keeps three empty zones from tables and four slots from
    // their capacity; else the budget's two zones keep one and two.
    EXPECT_EQ(policy_->ReservedEmptyZones(devices_[0], kTableClass), c.held ? 3u : 1u);
    auto state = nlohmann::json::parse(policy_->StateJson());
    EXPECT_EQ(state["capacity_slots"], c.held ? 8 : 10);
    EXPECT_EQ(state["tiers_far"], c.slow_read_us > 1000);
    EXPECT_EQ(state["wal_budget_bytes"], (c.held ? 4 : 2) * kTable);
  }
  std::shared_ptr<AllocationPolicy> p;
  EXPECT_EQ(HhzsConfig().wal_peak, Peak::kAuto);
  for (const auto& [word, peak] : {std::pair<const char*, Peak>{"auto", Peak::kAuto}, {"on", Peak::kHold},
                                   {"off", Peak::kNone}}) {
    ASSERT_TRUE(NewAllocationPolicy(std::string("hhzs:wal_peak=") + word, bus_, &p).ok()) << word;
    EXPECT_EQ(static_cast<HhzsPolicy*>(p.get())->config().wal_peak, peak) << word;
    EXPECT_EQ(nlohmann::json::parse(p->StateJson())["wal_peak"], word);
  }
  EXPECT_FALSE(NewAllocationPolicy("hhzs:wal_peak=maybe", bus_, &p).ok());
}


// Every workload of the reproduction mounts a copy of a loaded store: the
// tables that load placed on the fast tier hold its slots.
TEST_F(HhzsTest, TablesOfEarlierMountsAreCounted) {
  auto table = [](const std::string& path, int level, uint64_t fast, uint64_t slow) {
    FileTag tag;
    tag.level = level;
    return MountedFile{path, kTableClass, EncodeFileTag(tag), fast, slow};
  };
  policy_->OnMountedFiles({table("/db/000010.sst", 1, kTable, 0), table("/db/000011.sst", 2, kTable, 0),
                           table("/db/000012.sst", 2, 100, kTable), table("/db/000013.sst", -1, kTable, 0),
                           MountedFile{"/db/MANIFEST-000001", ZoneRole::kData, "", 100, 0}});
  EXPECT_EQ(policy_->allocated(1), 1);
  EXPECT_EQ(policy_->fast(1), 1);
  EXPECT_EQ(policy_->allocated(2), 2);
  EXPECT_EQ(policy_->fast(2), 1) << "mostly on the slow tier";
  EXPECT_EQ(policy_->Tiering().free_slots, 0) << "no allocation seen yet: no capacity known";
  EXPECT_TRUE(Place("/db/a.sst", 0));
  EXPECT_EQ(policy_->Tiering().free_slots, 10 - 3);
  Publish(Hint::Kind::kFileDeleted, 0, "/db/000011.sst", -1);
  EXPECT_EQ(policy_->fast(2), 0);
}

// A trivial move rewrites nothing: a listener tells of it only in the
// compaction's end (its outputs are its inputs, a level down), the MANIFEST
// as the table added at its new level. Counted at the level it was written
// at, every table of a load's trivial moves stayed in L1 (18 "L1" tables
// against a true one; tiering level 1; nothing of L2 on the fast tier).
TEST_F(HhzsTest, TablesFollowTrivialMovesAndTheManifest) {
  ASSERT_TRUE(Place("/db/000020.sst", 1, 5));
  ASSERT_TRUE(Place("/db/000021.sst", 1, 5));
  ASSERT_EQ(policy_->allocated(1), 2);
  Hint end;
  end.kind = Hint::Kind::kCompactionEnd;
  end.job = 9;
  end.level = 2;
  end.reason = "compaction";
  end.time_ns = 2000000;
  end.outputs = {{"/db/000020.sst", 2}};
  bus_->Publish(end);
  EXPECT_EQ(policy_->allocated(1), 1);
  EXPECT_EQ(policy_->allocated(2), 1);
  EXPECT_EQ(policy_->fast(2), 1) << "still where it was";
  // A table found at mount under the level its tag kept, then the store's
  // new MANIFEST (written at open) names its level now.
  FileTag tag;
  tag.level = 1;
  policy_->OnMountedFiles({MountedFile{"/db/000030.sst", kTableClass, EncodeFileTag(tag), 0, kTable}});
  EXPECT_EQ(policy_->allocated(1), 2);
  Publish(Hint::Kind::kCompactionOutput, -1, "/db/000030.sst", 3);
  EXPECT_EQ(policy_->allocated(1), 1);
  EXPECT_EQ(policy_->allocated(3), 1);
  // A guess from the I/O pattern moves nothing.
  Hint guess;
  guess.kind = Hint::Kind::kCompactionOutput;
  guess.path = "/db/000030.sst";
  guess.level = 1;
  guess.reason = "inferred";
  bus_->Publish(guess);
  EXPECT_EQ(policy_->allocated(3), 1);
}

// A table finished larger than its zone: its tail holds one more zone of
// tables, no slot. Zones of table class past one per table with no such
// table (an output being written, a deleted table still open) are no tails.
TEST_F(HhzsTest, ZonesOfTableTailsAreNoSlots) {
  EXPECT_TRUE(Place("/db/a.sst", 2));
  EXPECT_EQ(nlohmann::json::parse(policy_->StateJson())["capacity_slots"], 10);
  devices_[0].free_zones--;
  devices_[0].role_zones[static_cast<int>(kTableClass)]++;
  devices_[0].live_bytes += kTable / 8;
  EXPECT_TRUE(Place("/db/b.sst", 2));
  EXPECT_EQ(nlohmann::json::parse(policy_->StateJson())["capacity_slots"], 10) << "a.sst fits its zone";
  EXPECT_EQ(nlohmann::json::parse(policy_->StateJson())["tail_zones"], 0);
  Hint finished;  // a.sst ran past its zone
  finished.kind = Hint::Kind::kCompactionOutput;
  finished.path = "/db/a.sst";
  finished.level = 2;
  finished.bytes = kTable + kTable / 8;
  finished.reason = "compaction";
  finished.time_ns = 1000000;
  bus_->Publish(finished);
  EXPECT_TRUE(Place("/db/c.sst", 2));
  EXPECT_EQ(nlohmann::json::parse(policy_->StateJson())["capacity_slots"], 9);
  EXPECT_EQ(nlohmann::json::parse(policy_->StateJson())["tail_zones"], 1);
}

// Tables the store finished larger than a zone are reported once two, and
// an eighth of the fast zones, are on the fast tier; zones of table class
// past one per table alone (a deleted table's zone not reset yet) are not.
TEST_F(HhzsTest, TablesLargerThanAZoneAreReported) {
  auto finish = [&](const std::string& path, uint64_t bytes) {
    Hint h;
    h.kind = Hint::Kind::kCompactionOutput;
    h.path = path;
    h.level = 2;
    h.bytes = bytes;
    h.reason = "compaction";
    h.time_ns = 1000000;
    bus_->Publish(h);
  };
  EXPECT_TRUE(Place("/db/a.sst", 2));
  finish("/db/a.sst", kTable + kTable / 2);
  devices_[0].free_zones -= 2;
  devices_[0].role_zones[static_cast<int>(kTableClass)] += 2;  // a's tail, and a zone not reset yet
  EXPECT_TRUE(Place("/db/b.sst", 2));
  EXPECT_EQ(nlohmann::json::parse(policy_->StateJson())["tail_zones"], 1) << "the zone not reset is no tail";
  EXPECT_EQ(policy_->warning(), "") << "one table over a zone is no news";
  finish("/db/b.sst", 2 * kTable - 1);
  EXPECT_TRUE(Place("/db/c.sst", 2));  // counted before c.sst lands
  nlohmann::json state = nlohmann::json::parse(policy_->StateJson());
  EXPECT_EQ(state["fast_tables_over_a_zone"], 2);
  EXPECT_NE(policy_->warning().find("2 of the 2 tables on the fast tier are larger than a zone"), std::string::npos)
      << policy_->warning();
  EXPECT_EQ(state["warning"], policy_->warning());
}

// Block indexes go to the fast tier, read at every mount, also while block
// tiering holds room there (each read from an HDD costs a seek per table).
TEST_F(HhzsTest, BlockIndexesStayFastBesideMovedBlocks) {
  const std::string index = std::string(kBlockIndexDirectory) + "/00000000000000a1";
  EXPECT_TRUE(Place(index, -1));
  EXPECT_TRUE(Place("/db/MANIFEST-000005", -1));
  policy_->SetAsideFastBytes(kTable);
  EXPECT_TRUE(Place(index + "2", -1)) << "read at every mount";
  EXPECT_TRUE(Place("/db/MANIFEST-000007", -1));
}

TEST_F(HhzsTest, MovedBlocksComeOutOfTheTablesShareNotTheWals) {
  // Block tiering holds three zones' worth: tables plan in 12 - 2 - 3.
  policy_->SetAsideFastBytes(3 * kTable);
  EXPECT_TRUE(Place("/db/a.sst", 0));
  EXPECT_EQ(nlohmann::json::parse(policy_->StateJson())["capacity_slots"], 7);
  // The budget grows in a phase that allocates nothing: migration plans
  // with the smaller capacity at once.
  policy_->SetAsideFastBytes(5 * kTable);
  EXPECT_EQ(policy_->Tiering().free_slots, 5 - 1);
  policy_->SetAsideFastBytes(3 * kTable);
  EXPECT_EQ(policy_->Tiering().free_slots, 7 - 1);
  // Moved blocks may not take the WAL's two empty zones, any more than a
  // table may.
  EXPECT_EQ(policy_->ReservedEmptyZones(devices_[0], kMovedBlocksClass), 2u);
  // Four zones of moved blocks (more than set aside): they count, once.
  for (int i = 0; i < 4; i++) {
    devices_[0].free_zones--;
    devices_[0].role_zones[static_cast<int>(kMovedBlocksClass)]++;
    devices_[0].live_bytes += kTable;
  }
  EXPECT_TRUE(Place("/db/b.sst", 0));
  EXPECT_EQ(nlohmann::json::parse(policy_->StateJson())["capacity_slots"], 6);
  EXPECT_EQ(policy_->ReservedEmptyZones(devices_[0], kMovedBlocksClass), 2u);
}
TEST_F(HhzsTest, OptionsLiveInTheRecordedName) {
  std::shared_ptr<AllocationPolicy> p;
  ASSERT_TRUE(NewAllocationPolicy("hhzs:table_bytes=4MiB,wal_budget=16MiB", bus_, &p).ok());
  std::shared_ptr<AllocationPolicy> q;
  ASSERT_TRUE(NewAllocationPolicy("hhzs:migration=off,migration_rate=8MiB,slow_read_iops=90,hold_ms=250", bus_, &q).ok());
  const HhzsConfig& c = static_cast<HhzsPolicy*>(q.get())->config();
  EXPECT_FALSE(c.services.migration);
  EXPECT_FALSE(c.services.migration_auto);
  EXPECT_TRUE(static_cast<HhzsPolicy*>(p.get())->config().services.migration_auto) << "hhzs's default";
  std::shared_ptr<AllocationPolicy> on;
  ASSERT_TRUE(NewAllocationPolicy("hhzs:migration=on", bus_, &on).ok());
  EXPECT_TRUE(static_cast<HhzsPolicy*>(on.get())->config().services.migration);
  EXPECT_FALSE(static_cast<HhzsPolicy*>(on.get())->config().services.migration_auto) << "on means on";
  EXPECT_EQ(c.services.migration_rate, 8u << 20);
  EXPECT_EQ(c.services.slow_read_iops, 90);
  EXPECT_EQ(c.hold_ns, 250000000u);
  EXPECT_FALSE(NewAllocationPolicy("hhzs:migration=maybe", bus_, &q).ok());
  EXPECT_FALSE(NewAllocationPolicy("hhzs:hold_ms=soon", bus_, &q).ok());
  EXPECT_FALSE(NewAllocationPolicy("hhzs:slow_read_iops=-1", bus_, &q).ok());
  EXPECT_EQ(p->name(), "hhzs:table_bytes=4MiB,wal_budget=16MiB");
  auto state = nlohmann::json::parse(p->StateJson());
  EXPECT_EQ(state["table_bytes"], 4u << 20);
  EXPECT_EQ(state["wal_budget_bytes"], 16u << 20);
  EXPECT_FALSE(NewAllocationPolicy("hhzs:table_bytes=lots", bus_, &p).ok());
  EXPECT_FALSE(NewAllocationPolicy("hhzs:colour=red", bus_, &p).ok());
}

// A new user's case: no options, a fast tier of 32 zones of 8 MiB. The WAL
// budget is two zones, the table size is a zone until tables are seen, then
// the tables' own size; tables of L0 and L1 go fast.
TEST(HhzsDefaults, LearnTheTableSizeAndHoldTwoZonesForTheWal) {
  constexpr uint64_t kZone = 8 << 20;
  auto bus = std::make_shared<HintBus>();
  std::shared_ptr<AllocationPolicy> p;
  ASSERT_TRUE(NewAllocationPolicy("hhzs", bus, &p).ok());
  auto* hhzs = static_cast<HhzsPolicy*>(p.get());
  std::vector<DeviceSpace> devices(2);
  devices[0].index = 0, devices[0].tier = Tier::kFast, devices[0].total_zones = 32;
  devices[0].free_zones = 32, devices[0].zone_capacity = kZone;
  devices[1].index = 1, devices[1].tier = Tier::kSlow, devices[1].total_zones = 128;
  devices[1].free_zones = 128, devices[1].zone_capacity = kZone;
  auto place = [&](const std::string& path, int level) {
    Hint h;
    h.kind = Hint::Kind::kTableFileCreation, h.path = path, h.level = level, h.reason = "flush";
    if (level >= 0) bus->Publish(h);
    AllocationRequest r;
    r.path = path;
    r.role = p->RoleForNewFile(path);
    std::vector<uint32_t> order;
    p->ChooseDevices(r, devices, &order);
    return !order.empty() && order[0] == 0;
  };
  EXPECT_TRUE(place("/db/CURRENT", -1));
  auto state = nlohmann::json::parse(p->StateJson());
  EXPECT_EQ(state["wal_budget_bytes"], 2 * kZone);
  EXPECT_EQ(state["table_bytes"], kZone);
  EXPECT_EQ(state["capacity_slots"], 30);
  EXPECT_EQ(state["warning"], "");
  EXPECT_EQ(p->ReservedEmptyZones(devices[0], kTableClass), 2u);
  // The store's tables are 25 MB (flushes of its 64 MiB memtables).
  for (int i = 0; i < 5; i++) {
    Hint out;
    out.kind = Hint::Kind::kCompactionOutput, out.path = "/db/00001" + std::to_string(i) + ".sst";
    out.level = 0, out.bytes = 25300663 + i, out.reason = "flush";
    bus->Publish(out);
  }
  EXPECT_EQ(hhzs->table_bytes(), 25300663u + 2);  // the median
  EXPECT_TRUE(place("/db/000020.sst", 0));
  EXPECT_TRUE(place("/db/000021.sst", 1));
  state = nlohmann::json::parse(p->StateJson());
  EXPECT_EQ(state["capacity_slots"], (32 - 2) * kZone / (25300663 + 2));
  EXPECT_EQ(state["tables_seen"], 5);
}

// Options that leave no fast room for a table are reported, not silent.
TEST(HhzsDefaults, ABudgetThatFillsTheFastTierIsReported) {
  auto bus = std::make_shared<HintBus>();
  std::shared_ptr<AllocationPolicy> p;
  ASSERT_TRUE(NewAllocationPolicy("hhzs:wal_budget=256MiB", bus, &p).ok());
  std::vector<DeviceSpace> devices(1);
  devices[0].tier = Tier::kFast, devices[0].total_zones = 32, devices[0].free_zones = 32;
  devices[0].zone_capacity = 8 << 20;
  p->OnMount(devices);  // said at mount, before any table
  std::string warning = static_cast<HhzsPolicy*>(p.get())->warning();
  EXPECT_NE(warning.find("no room for a table"), std::string::npos) << warning;
  AllocationRequest r;
  r.path = "/db/000005.sst";
  r.role = kTableClass;
  std::vector<uint32_t> order;
  p->ChooseDevices(r, devices, &order);
  warning = static_cast<HhzsPolicy*>(p.get())->warning();
  EXPECT_NE(warning.find("no room for a table"), std::string::npos) << warning;
  EXPECT_EQ(nlohmann::json::parse(p->StateJson())["warning"], warning);
  EXPECT_EQ(nlohmann::json::parse(p->StateJson())["capacity_slots"], 0);
}

}  // namespace
}  // namespace hintfs
