// The read oracle on small stores laid out by hand, where each oracle's
// choice can be worked out on paper.
#include <gtest/gtest.h>

#include "adapters/bench/read_oracle.h"

namespace hintfs {
namespace {

// Two tables of four 100-byte blocks (450 bytes with index and footer), A
// on the fast tier and B on the slow one; records of 50 bytes, two per
// block at most:
//   A (L1): [a0 .30, a0c 0] [a1 .05, a1b .05] [a2 .05] [a3 0]      = .45
//   B (L2): [b0 .25] [b1 .20] [b2 .05] [b3 .05]                    = .55
void Build(ReadOracle* o) {
  const OracleBlock fast{100, false}, slow{100, true};
  size_t a = o->AddTable(7, 1, 450, {fast, fast, fast, fast});
  size_t b = o->AddTable(8, 2, 450, {slow, slow, slow, slow});
  o->AddKey("a0", a, 0);
  o->AddKey("a0c", a, 0);
  o->AddKey("a1", a, 1);
  o->AddKey("a1b", a, 1);
  o->AddKey("a2", a, 2);
  o->AddKey("a3", a, 3);
  for (int i = 0; i < 4; i++) o->AddKey("b" + std::to_string(i), b, static_cast<size_t>(i));
  const std::pair<const char*, double> reads[] = {{"a0", .30}, {"a0c", 0},  {"a1", .05}, {"a1b", .05},
                                                  {"a2", .05}, {"a3", 0},   {"b0", .25}, {"b1", .20},
                                                  {"b2", .05}, {"b3", .05}};
  for (const auto& [key, p] : reads) o->AddRecordReads(key, 50, p);
}

TEST(ReadOracle, FinerGrainServesMoreFromTheSameRoom) {
  ReadOracle o;
  Build(&o);
  std::vector<OracleShares> s = o.Shares({200, 450, 0});
  ASSERT_EQ(s.size(), 3u);
  // 200 bytes: no table fits; blocks A0 and B0; records a0, b0, b1, one of .05.
  EXPECT_EQ(s[0].fast_bytes, 200u);
  EXPECT_NEAR(s[0].tables, 1.0, 1e-9);
  EXPECT_NEAR(s[0].blocks, 0.45, 1e-9);
  EXPECT_NEAR(s[0].records, 0.20, 1e-9);
  // 450 bytes: table B; blocks A0, B0, B1, A1; every record read at all.
  EXPECT_NEAR(s[1].tables, 0.45, 1e-9);
  EXPECT_NEAR(s[1].blocks, 0.15, 1e-9);
  EXPECT_NEAR(s[1].records, 0.0, 1e-9);
  // No fast tier: everything is slow.
  EXPECT_NEAR(s[2].tables, 1.0, 1e-9);
  EXPECT_NEAR(s[2].blocks, 1.0, 1e-9);
  EXPECT_NEAR(s[2].records, 1.0, 1e-9);

  std::map<int, LevelReads> levels = o.Levels();
  ASSERT_EQ(levels.size(), 2u);
  EXPECT_EQ(levels[1].tables, 1u);
  EXPECT_EQ(levels[1].bytes, 450u);
  EXPECT_NEAR(levels[1].read_share, 0.45, 1e-9);
  EXPECT_NEAR(levels[2].read_share, 0.55, 1e-9);
  EXPECT_NEAR(o.MemoryShare(), 0.0, 1e-9);
}

TEST(ReadOracle, KeysNoTableHoldsAreMemoryReads) {
  ReadOracle o;
  Build(&o);
  o.AddRecordReads("not-in-any-table", 50, 0.25);
  EXPECT_NEAR(o.MemoryShare(), 0.2, 1e-9);
  // Shares are of the reads that reach a device: unchanged.
  EXPECT_NEAR(o.Shares({450})[0].tables, 0.45, 1e-9);
}

// The store's block cache takes the hottest blocks' reads: they reach no
// device, and every share is of the rest.
TEST(ReadOracle, TheStoresBlockCacheServesTheHottestBlocks) {
  ReadOracle o;
  Build(&o);
  EXPECT_EQ(o.KeepHottestInMemory(250), 2u) << "A0 (.30) and B0 (.25); B1 no longer fits";
  EXPECT_NEAR(o.MemoryShare(), 0.55, 1e-9);
  // On devices: A1 .10 and A2 .05 fast, B1 .20, B2 .05 and B3 .05 slow.
  EXPECT_NEAR(o.StartSlowShare(), 0.30 / 0.45, 1e-9);
  std::vector<OracleShares> s = o.Shares({100});
  EXPECT_NEAR(s[0].blocks, 0.25 / 0.45, 1e-9) << "100 bytes hold B1, the hottest block left (.20)";
  EXPECT_NEAR(s[0].records, 0.20 / 0.45, 1e-9) << "b1 (.20) and a record of .05";
  std::map<int, LevelReads> levels = o.Levels();
  EXPECT_NEAR(levels[1].read_share, 0.15 / 0.45, 1e-9);
}

// A key in several tables is read from the shallowest level's, at L0 from
// the newest, whatever the order the tables were added in.
TEST(ReadOracle, ReadsGoToTheShallowestCopy) {
  ReadOracle o;
  const std::vector<OracleBlock> one{{100, true}};
  size_t deep = o.AddTable(3, 3, 100, one);
  size_t newer_l0 = o.AddTable(12, 0, 100, one);
  size_t older_l0 = o.AddTable(11, 0, 100, one);
  size_t mid = o.AddTable(5, 2, 100, one);
  for (size_t t : {deep, newer_l0, older_l0, mid}) o.AddKey("k", t, 0);
  o.AddKey("deep-only", deep, 0);
  o.AddRecordReads("k", 10, 0.75);
  o.AddRecordReads("deep-only", 10, 0.25);
  std::map<int, LevelReads> levels = o.Levels();
  EXPECT_NEAR(levels[0].read_share, 0.75, 1e-9);
  EXPECT_NEAR(levels[2].read_share, 0.0, 1e-9);
  EXPECT_NEAR(levels[3].read_share, 0.25, 1e-9);
  // One 100-byte table fits: the newer L0 one, which has all of k's reads.
  EXPECT_NEAR(o.Shares({100})[0].tables, 0.25, 1e-9);
}

// Left alone, B's reads stay slow; a policy that promotes at the first read
// still pays one slow read per slow block the run touches.
TEST(ReadOracle, OnlineBoundPaysTheFirstReadOfEverySlowBlock) {
  ReadOracle o;
  Build(&o);
  EXPECT_NEAR(o.StartSlowShare(), 0.55, 1e-9);
  // One read: slow with B's probability.
  EXPECT_NEAR(o.Online(1, RunMix{}).online_share, 0.55, 1e-9);
  EXPECT_NEAR(o.Online(1, RunMix{}).placed_share, 0.55, 1e-9);
  // Two: the expected distinct B blocks, (1-.75^2)+(1-.8^2)+2(1-.95^2), halved.
  EXPECT_NEAR(o.Online(2, RunMix{}).online_share, 0.9925 / 2, 1e-9);
  EXPECT_NEAR(o.Online(2, RunMix{}).device_reads, 2.0, 1e-9);
  // A long run reads B's four blocks once each, then from the fast tier.
  EXPECT_NEAR(o.Online(1000000, RunMix{}).online_share, 4.0 / 1000000, 1e-9);
  EXPECT_NEAR(o.Online(0, RunMix{}).online_share, 0.0, 1e-9);
}

// A run that writes what it reads reads a record from a device only until
// its first write; after that the memtable (or an L0 table on the fast
// tier) has it.
TEST(ReadOracle, WritesLeaveOnlyTheReadsBeforeAKeysFirstWrite) {
  ReadOracle o;
  const OracleBlock slow{100, true};
  size_t t = o.AddTable(8, 2, 450, {slow, slow});
  o.AddKey("hot", t, 0);
  o.AddKey("cold", t, 1);
  o.AddRecordReads("hot", 50, 0.5);
  o.AddRecordReads("cold", 50, 0.5);
  // Reads only, two operations: one device read per operation, and the
  // hot block is read at all with probability 1-.5^2 (the cold one too).
  OnlineBound reads_only = o.Online(2, RunMix{});
  EXPECT_NEAR(reads_only.device_reads, 2.0, 1e-9);
  EXPECT_NEAR(reads_only.online_share, 2 * 0.75 / 2, 1e-9);
  // Half reads, half updates: per record, reads before the first write are
  // r/w (1 - (1 - w p)^n) = 1 - .75^2 = .4375; the first operation that
  // picks it reads with probability 1/2: (1 - .5^2) / 2 = .375 per block.
  OnlineBound half = o.Online(2, RunMix{0.5, 0.5, 0});
  EXPECT_NEAR(half.device_reads, 2 * 0.4375, 1e-9);
  EXPECT_NEAR(half.placed_share, 1.0, 1e-9);
  EXPECT_NEAR(half.online_share, 2 * 0.375 / (2 * 0.4375), 1e-9);
  // Read-modify-writes read first, so every record picked is read once
  // from a device, and never again once written: the bound is 1, the same
  // as the placement, however long the run.
  OnlineBound rmw = o.Online(1000, RunMix{0, 0, 1});
  EXPECT_NEAR(rmw.device_reads, 2.0, 1e-9);
  EXPECT_NEAR(rmw.online_share, 1.0, 1e-9);
}

// A store whose every read is the memtable's: nothing is slow, and nothing fails.
TEST(ReadOracle, NoTablesNoDeviceReads) {
  ReadOracle o;
  o.AddRecordReads("k", 10, 1.0);
  EXPECT_NEAR(o.MemoryShare(), 1.0, 1e-9);
  EXPECT_NEAR(o.StartSlowShare(), 0.0, 1e-9);
  EXPECT_NEAR(o.Online(100, RunMix{}).online_share, 0.0, 1e-9);
  EXPECT_NEAR(o.Online(100, RunMix{0.5, 0.5, 0}).device_reads, 0.0, 1e-9);
  EXPECT_NEAR(o.Shares({100})[0].blocks, 0.0, 1e-9);
  EXPECT_TRUE(o.Levels().empty());
  EXPECT_TRUE(o.HottestTables(3).empty());
}

TEST(ReadOracle, HottestThatFitPassesOverWhatDoesNotFit) {
  // Densest first: (10, 5) then (100, 20) does not fit in 50, (40, 4) does.
  EXPECT_NEAR(HottestThatFit({{100, 20}, {10, 5}, {40, 4}}, 50), 9.0, 1e-9);
  EXPECT_NEAR(HottestThatFit({{0, 1}, {10, 1}}, 0), 1.0, 1e-9);  // no bytes: free
  EXPECT_NEAR(HottestThatFit({}, 100), 0.0, 1e-9);
}

}  // namespace
}  // namespace hintfs
