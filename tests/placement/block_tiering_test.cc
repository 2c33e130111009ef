// Block tiering on a real (memory-backed) filesystem whose policy puts every
// table on the slow tier: hot blocks go up on reads, a new table's blocks
// holding hot keys go up when it is sealed, and the budget sends the
// coldest promoted blocks back down. The bytes always read back whole.
// (How the blocks find and give back room: block_tiering_room_test.cc.)
#include "tests/placement/block_tiering_fixture.h"

namespace hintfs {
namespace {

TEST_F(BlockTieringTest, HotBlocksOfASlowTableGoUp) {
  Start(1 << 20);
  test::ScratchDir dir;
  std::string table = test::WriteLevelDbTable(dir.File("t.ldb"), false, 2000);
  auto index = PutTable("/db/000005.ldb", table);
  ASSERT_GT(index->blocks.size(), 50u);
  for (size_t i = 0; i < 40; i++) ReadBlock("/db/000005.ldb", index->blocks[i], 1);
  ReadBlock("/db/000005.ldb", index->blocks[7], 4);
  ReadBlock("/db/000005.ldb", index->blocks[30], 4);
  tiering_->WaitIdle();
  EXPECT_TRUE(OnFast("/db/000005.ldb", index->blocks[7]));
  EXPECT_TRUE(OnFast("/db/000005.ldb", index->blocks[30]));
  EXPECT_FALSE(OnFast("/db/000005.ldb", index->blocks[18])) << "read once: not hot";
  // Their own bytes, not the 4 KiB device blocks they straddle.
  EXPECT_FALSE(OnFast("/db/000005.ldb", index->blocks[6]));
  EXPECT_FALSE(OnFast("/db/000005.ldb", index->blocks[8]));
  EXPECT_EQ(tiering_->stats().promoted_blocks, 2u);
  EXPECT_EQ(tiering_->stats().resident_bytes, index->blocks[7].size + index->blocks[30].size);
  EXPECT_EQ(ReadFile("/db/000005.ldb"), table);
  ExpectClean();
}

// A compaction writes the hot keys into a new table, with other block
// boundaries, on the slow tier: the new blocks holding them go up at once.
TEST_F(BlockTieringTest, WithRetentionANewTableKeepsTheHotKeysOnTheFastTier) {
  Start(1 << 20, /*retention=*/true);
  test::ScratchDir dir;
  auto old_index = PutTable("/db/000007.ldb", test::WriteLevelDbTable(dir.File("a.ldb"), false, 2000));
  std::string hot_key = test::TableKey(1234);
  const IndexedBlock& hot = old_index->blocks[BlockOf(*old_index, hot_key)];
  ReadBlock("/db/000007.ldb", hot, 5);
  tiering_->WaitIdle();
  ASSERT_TRUE(OnFast("/db/000007.ldb", hot));

  std::string fresh = test::WriteRocksDbTable(dir.File("b.sst"), 5, false, 2000, 1500);
  auto index = PutTable("/db/000009.sst", fresh);
  ASSERT_OK(fs_->Unlink("/db/000007.ldb"));
  tiering_->WaitIdle();
  const IndexedBlock& now = index->blocks[BlockOf(*index, hot_key)];
  EXPECT_TRUE(OnFast("/db/000009.sst", now)) << "retained";
  EXPECT_GE(tiering_->stats().retained_blocks, 1u);
  EXPECT_LE(tiering_->stats().retained_blocks, 3u) << "only the blocks that share keys with the hot one";
  EXPECT_EQ(ReadFile("/db/000009.sst"), fresh);
  ExpectClean();
}

TEST_F(BlockTieringTest, TheBudgetSendsTheColdestBlocksBackDown) {
  test::ScratchDir dir;
  std::string table = test::WriteLevelDbTable(dir.File("t.ldb"), false, 2000);
  Start(2500);  // two table blocks of about 1 KiB (moves take their bytes only), not three
  auto index = PutTable("/db/000011.ldb", table);
  ReadBlock("/db/000011.ldb", index->blocks[3], 2);
  ReadBlock("/db/000011.ldb", index->blocks[20], 2);
  tiering_->WaitIdle();
  ASSERT_EQ(tiering_->stats().promoted_blocks, 2u);
  ReadBlock("/db/000011.ldb", index->blocks[40], 6);  // hotter than both
  ReadBlock("/db/000011.ldb", index->blocks[60], 6);
  tiering_->WaitIdle();
  EXPECT_TRUE(OnFast("/db/000011.ldb", index->blocks[40]));
  EXPECT_TRUE(OnFast("/db/000011.ldb", index->blocks[60]));
  EXPECT_GE(tiering_->stats().demoted_blocks, 1u);
  EXPECT_LE(tiering_->stats().resident_bytes, 2500u) << "room is made before a move";
  EXPECT_FALSE(OnFast("/db/000011.ldb", index->blocks[3]) && OnFast("/db/000011.ldb", index->blocks[20]));
  EXPECT_EQ(ReadFile("/db/000011.ldb"), table);
  ExpectClean();
}

TEST_F(BlockTieringTest, WithoutRetentionANewTableWaitsForReads) {
  Start(1 << 20);
  test::ScratchDir dir;
  auto old_index = PutTable("/db/000015.ldb", test::WriteLevelDbTable(dir.File("a.ldb"), false, 2000));
  ReadBlock("/db/000015.ldb", old_index->blocks[BlockOf(*old_index, test::TableKey(777))], 5);
  tiering_->WaitIdle();
  auto index = PutTable("/db/000017.sst", test::WriteRocksDbTable(dir.File("b.sst"), 5, false, 2000, 1500));
  tiering_->WaitIdle();
  EXPECT_EQ(tiering_->stats().retained_blocks, 0u);
  const IndexedBlock& now = index->blocks[BlockOf(*index, test::TableKey(777))];
  EXPECT_FALSE(OnFast("/db/000017.sst", now));
  ReadBlock("/db/000017.sst", now, 1);  // already hot by its keys: one read moves it
  tiering_->WaitIdle();
  EXPECT_TRUE(OnFast("/db/000017.sst", now));
}

// Reads of blocks already on the fast tier (of tables placed or moved
// there) are no heat: only reads the slow tier served, and reads of blocks
// block tiering moved up, compete for the budget.
TEST_F(BlockTieringTest, ReadsOfFastTablesAreNoHeat) {
  Start(1 << 20);
  test::ScratchDir dir;
  auto index = PutTable("/db/000019.ldb", test::WriteLevelDbTable(dir.File("t.ldb"), false, 2000));
  ReadBlock("/db/000019.ldb", index->blocks[5], 3);
  tiering_->WaitIdle();
  ASSERT_TRUE(OnFast("/db/000019.ldb", index->blocks[5]));
  uint64_t reads = tiering_->heat().stats().reads;
  const double before = tiering_->heat().BlockScore(index->LowerBound(5), index->blocks[5].last_key);
  // Moved up: still counted, BlockTiering::kMovedReadsPerRecord at a time
  // (one of the reads above may have been of the moved block already).
  for (uint32_t i = 0; i < BlockTiering::kMovedReadsPerRecord; i++) {
    ReadBlock("/db/000019.ldb", index->blocks[5], 1);
    const uint64_t counted = tiering_->heat().stats().reads - reads;
    EXPECT_TRUE(counted == 0 || counted == BlockTiering::kMovedReadsPerRecord) << counted;
  }
  EXPECT_EQ(tiering_->heat().stats().reads, reads + BlockTiering::kMovedReadsPerRecord);
  EXPECT_GT(tiering_->heat().BlockScore(index->LowerBound(5), index->blocks[5].last_key),
            before + BlockTiering::kMovedReadsPerRecord - 1);
  reads += BlockTiering::kMovedReadsPerRecord;

  MigrateResult r;
  ASSERT_OK(fs_->MigrateFile("/db/000019.ldb", Tier::kFast, nullptr, &r));
  ReadBlock("/db/000019.ldb", index->blocks[40], 5);
  tiering_->WaitIdle();
  EXPECT_EQ(tiering_->heat().stats().reads, reads);
  EXPECT_EQ(tiering_->stats().fast_reads_ignored, 5u);
  EXPECT_EQ(tiering_->heat().Score(index->LowerBound(40), index->blocks[40].last_key), 0);
}

// The budget starts at a zone, doubles while the moved blocks serve more
// reads per byte than the fast tables and fill it, and halves while the
// tables serve more (sending the coldest blocks down, and the bytes back
// to placement), never under a zone.
TEST_F(BlockTieringTest, TheBudgetFollowsTheReadsPerByte) {
  const uint64_t zone = 64 << 10;
  Start(4 * zone, false, "zone_size=64KiB&zones=64");
  EXPECT_EQ(placement_.set_aside, zone) << "placement plans without the budget";
  test::ScratchDir dir;
  const std::string slow_bytes = test::WriteLevelDbTable(dir.File("a.ldb"), false, 20000);
  auto slow = PutTable("/db/000021.ldb", slow_bytes);
  // Blocks of about 1 KiB, every eighth.
  std::vector<IndexedBlock> hot;
  for (size_t i = 0; i < slow->blocks.size(); i += 8) hot.push_back(slow->blocks[i]);
  ASSERT_GT(hot.size(), 80u);
  auto fast = PutTable("/db/000023.ldb", test::WriteLevelDbTable(dir.File("b.ldb"), false, 2000));
  MigrateResult r;
  ASSERT_OK(fs_->MigrateFile("/db/000023.ldb", Tier::kFast, nullptr, &r));
  auto read_hot = [&](int times) {
    for (const IndexedBlock& b : hot) ReadBlock("/db/000021.ldb", b, times);
    tiering_->WaitIdle();
  };
  read_hot(2);  // they go up, as far as the budget lets them
  ASSERT_GT(tiering_->stats().resident_bytes, zone / 2);
  ASSERT_LE(tiering_->stats().resident_bytes, zone);
  tiering_->AdjustBudget();
  EXPECT_EQ(tiering_->stats().budget_bytes, zone) << "no reads served yet: nothing learned";
  EXPECT_EQ(tiering_->stats().min_score, 4) << "promotions that earned no reads: ranges must be hotter";
  for (uint64_t budget : {2 * zone, 4 * zone, 4 * zone}) {
    read_hot(1);
    tiering_->AdjustBudget();
    EXPECT_EQ(tiering_->stats().budget_bytes, budget) << "the blocks serve the reads and fill it";
    EXPECT_EQ(placement_.set_aside, budget);
  }
  read_hot(16);  // hotter than the score promotions now need
  ASSERT_GT(tiering_->stats().resident_bytes, 2 * zone);
  // A fresh interval, whose reads of moved blocks do not depend on how far
  // the mover had got while read_hot(16) ran.
  tiering_->AdjustBudget();
  ASSERT_EQ(tiering_->stats().budget_bytes, 4 * zone);
  read_hot(1);

  ReadBlock("/db/000023.ldb", fast->blocks[10], 500);  // the fast table is the better use
  tiering_->AdjustBudget();
  EXPECT_EQ(tiering_->stats().budget_bytes, 2 * zone);
  EXPECT_EQ(placement_.set_aside, 2 * zone);
  EXPECT_LE(tiering_->stats().resident_bytes, 2 * zone);
  EXPECT_GT(tiering_->stats().demoted_blocks, 0u);
  for (int round = 0; round < 3; round++) {
    ReadBlock("/db/000023.ldb", fast->blocks[10], 500);
    tiering_->AdjustBudget();
  }
  EXPECT_EQ(tiering_->stats().budget_bytes, zone) << "never under a zone";
  EXPECT_EQ(tiering_->stats().budget_changes, 4u);
  EXPECT_EQ(ReadFile("/db/000021.ldb"), slow_bytes);
  ExpectClean();
}

TEST(BlockTieringBudgetTest, ItGrowsOnlyWhenTheBlocksBeatTheTablesByAMargin) {
  EXPECT_EQ(BlockTiering::BudgetDirection(0.5, 1.0), -1);
  EXPECT_EQ(BlockTiering::BudgetDirection(1.0, 1.0), 0);
  EXPECT_EQ(BlockTiering::BudgetDirection(1.9, 1.0), 0) << "the next zone's blocks are colder";
  EXPECT_EQ(BlockTiering::BudgetDirection(2.0, 1.0), 1);
  EXPECT_EQ(BlockTiering::BudgetDirection(0.1, 0.0), 1) << "no table read at all";
  EXPECT_EQ(BlockTiering::BudgetDirection(0.0, 0.0), 1);
}

TEST_F(BlockTieringTest, NoBudgetMovesNothing) {
  Start(0);
  test::ScratchDir dir;
  auto index = PutTable("/db/000013.ldb", test::WriteLevelDbTable(dir.File("t.ldb"), false, 500));
  ReadBlock("/db/000013.ldb", index->blocks[2], 10);
  tiering_->WaitIdle();
  EXPECT_FALSE(OnFast("/db/000013.ldb", index->blocks[2]));
  EXPECT_EQ(tiering_->stats().promoted_blocks, 0u);
  EXPECT_EQ(tiering_->heat().stats().reads, 0u) << "off: reads cost no bookkeeping";
}

}  // namespace
}  // namespace hintfs
