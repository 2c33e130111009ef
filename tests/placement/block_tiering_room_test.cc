// Block tiering's room on the fast tier (placement/block_tiering_room.cc):
// moves that run out of metadata or fast room, zones of moved blocks sent
// down whole, room asked of placement or taken only where free, the blocks
// sent down when the tiering turns off, and blocks an earlier mount moved.
#include "tests/placement/block_tiering_fixture.h"

namespace hintfs {
namespace {

// Every move splits the table's extents. When the filesystem refuses moves
// for want of metadata room (metadata zones of 16 KiB here), the table is
// rewritten whole on its tier, which joins them, and the move goes on.
TEST_F(BlockTieringTest, MovesThatRunOutOfMetadataRoomRewriteTheirTableWhole) {
  slow_ = "zone_size=256KiB&zones=96&block_size=512";  // a move per table block
  Start(4 << 20, false, "zone_size=16KiB&zones=512&block_size=512", /*adaptive=*/false);
  test::ScratchDir dir;
  const std::string bytes = test::WriteLevelDbTable(dir.File("a.ldb"), false, 20000);
  auto index = PutTable("/db/000041.ldb", bytes);
  size_t i = 0;
  for (; i < index->blocks.size() && tiering_->stats().relayouts == 0; i += 2) {
    ReadBlock("/db/000041.ldb", index->blocks[i], 2);
    tiering_->WaitIdle();
  }
  const BlockTieringStats st = tiering_->stats();
  ASSERT_EQ(st.relayouts, 1u) << "after " << i / 2 << " blocks of " << index->blocks.size();
  EXPECT_GT(st.promoted_blocks, 20u);
  EXPECT_EQ(st.failed_moves, 0u) << "the move that was refused went on after the rewrite";
  EXPECT_EQ(fs_->Stats().range_moves_refused, 1u);
  EXPECT_TRUE(OnFast("/db/000041.ldb", index->blocks[i - 2])) << "the block whose move was refused";
  EXPECT_FALSE(OnFast("/db/000041.ldb", index->blocks[i - 4])) << "went down with its table";
  FileStat stat;
  ASSERT_OK(fs_->Stat("/db/000041.ldb", &stat));
  EXPECT_LE(stat.extents.size(), bytes.size() / (256 * 1024) + 4) << "joined: a zone's worth each, and the move after";
  EXPECT_EQ(ReadFile("/db/000041.ldb"), bytes);
  ExpectClean();
}

TEST_F(BlockTieringTest, AFullFastTierSendsTheZoneOfBlocksReadLeastDownWhole) {
  // Four zones of the fast tier are the filesystem's, two are kept empty:
  // two hold moved blocks.
  Start(1 << 20, false, "zone_size=64KiB&zones=8", /*adaptive=*/false);
  test::ScratchDir dir;
  const std::string bytes = test::WriteLevelDbTable(dir.File("a.ldb"), false, 20000);
  auto index = PutTable("/db/000031.ldb", bytes);
  size_t next = 0;
  std::vector<IndexedBlock> up = FillFastTier("/db/000031.ldb", *index, &next);
  ASSERT_GT(up.size(), 8u);
  EXPECT_EQ(tiering_->stats().demoted_zones, 0u) << "no zone was read: none is colder";
  std::map<uint64_t, std::vector<IndexedBlock>> by_zone = ByZone("/db/000031.ldb", up);
  ASSERT_EQ(by_zone.size(), 2u);
  // The zone moves go to now is never the one sent down (the next test):
  // it is the one read.
  const uint64_t filling = *FastZones("/db/000031.ldb", up.back()).begin();
  const std::vector<IndexedBlock>& read = by_zone[filling];
  const std::vector<IndexedBlock>& cold =
      by_zone.begin()->first == filling ? by_zone.rbegin()->second : by_zone.begin()->second;
  for (const IndexedBlock& b : read) ReadBlock("/db/000031.ldb", b, 3);
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));  // past the pause the failed move began
  const IndexedBlock& hot = index->blocks[next];
  ReadBlock("/db/000031.ldb", hot, 4);
  tiering_->WaitIdle();
  EXPECT_TRUE(OnFast("/db/000031.ldb", hot)) << "into the zone emptied for it";
  EXPECT_EQ(tiering_->stats().demoted_zones, 1u);
  EXPECT_EQ(tiering_->stats().relayouts, 0u) << "refused for want of room, not of metadata";
  for (const IndexedBlock& b : cold) EXPECT_FALSE(OnFast("/db/000031.ldb", b)) << "the zone went down whole";
  for (const IndexedBlock& b : read) EXPECT_TRUE(OnFast("/db/000031.ldb", b));
  EXPECT_EQ(ReadFile("/db/000031.ldb"), bytes);
  ExpectClean();
}

// Blocks moved one at a time each pad their last device block: once the
// zones of moved blocks are full, the copy up has GC pack them (its own
// table's zones too, pinned by the copy: the move is made again) and goes on
// in the room that freed.
TEST_F(BlockTieringTest, MovesThatFindNoRoomHaveTheHolesOfEarlierMovesCollected) {
  Start(1 << 20, false, "zone_size=64KiB&zones=8", /*adaptive=*/false);
  test::ScratchDir dir;
  const std::string path = "/db/000041.ldb";
  const std::string bytes = test::WriteLevelDbTable(dir.File("a.ldb"), false, 20000);
  auto index = PutTable(path, bytes);
  size_t next = 0;
  std::vector<IndexedBlock> up = FillFastTier(path, *index, &next);
  EXPECT_GT(fs_->Stats().gc_zones_freed, 0u);
  // Two zones of 64 KiB for moved blocks; with a padded device block each,
  // moves filled them at 32 KiB of blocks.
  EXPECT_GT(tiering_->stats().resident_bytes, 80u << 10);
  for (const IndexedBlock& b : up) EXPECT_TRUE(OnFast(path, b));
  EXPECT_EQ(ReadFile(path), bytes);
  ExpectClean();
}

// A zone that holds few blocks serves few reads; as hot per byte as the
// others, it stays (HyperDB's benefit/cost is bytes freed per read).
TEST_F(BlockTieringTest, AZoneHoldingFewBlocksAsHotAsTheRestStaysUp) {
  Start(1 << 20, false, "zone_size=64KiB&zones=8", /*adaptive=*/false);
  // Reads a block until it moves up, never once it is up: no zone has been
  // read when the fast tier fills (the tables share their keys, so a block
  // may inherit the heat of its twin and move at its first read).
  auto Promote = [this](const std::string& path, const IndexedBlock& b) {
    for (int i = 0; i < 2 && !OnFast(path, b); i++) {
      ReadBlock(path, b, 1);
      tiering_->WaitIdle();
    }
  };
  test::ScratchDir dir;
  const std::string kept = "/db/000037.ldb", dropped = "/db/000038.ldb";
  auto index = PutTable(kept, test::WriteLevelDbTable(dir.File("a.ldb"), false, 20000));
  auto other = PutTable(dropped, test::WriteLevelDbTable(dir.File("b.ldb"), false, 20000));
  // The first zone of blocks: a few of the kept table's, then the other's until it is full.
  std::vector<IndexedBlock> few;
  for (size_t i = 0; i < 3 * 8; i += 8) {
    Promote(kept, index->blocks[i]);
    few.push_back(index->blocks[i]);
  }
  const uint64_t first_zone = *FastZones(kept, few[0]).begin();
  size_t j = 0;
  for (;; j += 8) {
    ASSERT_LT(j, other->blocks.size());
    Promote(dropped, other->blocks[j]);
    if (*FastZones(dropped, other->blocks[j]).begin() != first_zone) break;
  }
  // The rest of the kept table's blocks fill the second zone.
  size_t next = 3 * 8;
  std::vector<IndexedBlock> many;
  for (; next < index->blocks.size() && tiering_->stats().failed_moves == 0; next += 8) {
    Promote(kept, index->blocks[next]);
    if (tiering_->stats().failed_moves == 0) many.push_back(index->blocks[next]);
  }
  ASSERT_GT(many.size(), 4 * few.size());
  ASSERT_EQ(tiering_->stats().demoted_zones, 0u) << "every zone as read as the others";
  const uint64_t before = tiering_->stats().resident_bytes;
  ASSERT_OK(fs_->Unlink(dropped));  // the first zone keeps only the few
  // Dead tables are forgotten once a second; the failed move's pause ends meanwhile.
  for (int wait = 0; wait < 200 && tiering_->stats().resident_bytes >= before; wait++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_LT(tiering_->stats().resident_bytes, before) << "the dropped table's blocks are forgotten";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  for (const IndexedBlock& b : few) ReadBlock(kept, b, 3);
  for (const IndexedBlock& b : many) ReadBlock(kept, b, 3);
  ReadBlock(kept, index->blocks[next], 4);
  tiering_->WaitIdle();
  EXPECT_EQ(tiering_->stats().demoted_zones, 0u) << "as many reads per byte as the other zone";
  for (const IndexedBlock& b : few) EXPECT_TRUE(OnFast(kept, b));
}

TEST_F(BlockTieringTest, TheZoneMovesGoToNowIsNeverTheColdest) {
  Start(1 << 20, false, "zone_size=64KiB&zones=8", /*adaptive=*/false);
  test::ScratchDir dir;
  const std::string bytes = test::WriteLevelDbTable(dir.File("a.ldb"), false, 20000);
  auto index = PutTable("/db/000035.ldb", bytes);
  size_t next = 0;
  std::vector<IndexedBlock> up = FillFastTier("/db/000035.ldb", *index, &next);
  std::map<uint64_t, std::vector<IndexedBlock>> by_zone = ByZone("/db/000035.ldb", up);
  ASSERT_EQ(by_zone.size(), 2u);
  // The last move went to the second zone; only the first zone's blocks are read.
  const IndexedBlock& last = up.back();
  const uint64_t filling = *FastZones("/db/000035.ldb", last).begin();
  for (const auto& [zone, blocks] : by_zone) {
    if (zone != filling) for (const IndexedBlock& b : blocks) ReadBlock("/db/000035.ldb", b, 3);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));  // past the pause the failed move began
  ReadBlock("/db/000035.ldb", index->blocks[next], 4);
  tiering_->WaitIdle();
  EXPECT_EQ(tiering_->stats().demoted_zones, 0u) << "its blocks have had no time to be read";
  EXPECT_FALSE(OnFast("/db/000035.ldb", index->blocks[next]));
  for (const IndexedBlock& b : up) EXPECT_TRUE(OnFast("/db/000035.ldb", b));
}

TEST_F(BlockTieringTest, WithoutRoomUnderItsBudgetItAsksPlacementForAZoneMore) {
  const uint64_t budget = 1 << 20, zone = 64 << 10;
  Start(budget, false, "zone_size=64KiB&zones=7", /*adaptive=*/false);  // one zone for blocks
  EXPECT_EQ(placement_.set_aside, budget);
  test::ScratchDir dir;
  auto index = PutTable("/db/000033.ldb", test::WriteLevelDbTable(dir.File("a.ldb"), false, 20000));
  size_t next = 0;
  ASSERT_GT(FillFastTier("/db/000033.ldb", *index, &next).size(), 4u);
  EXPECT_EQ(placement_.set_aside, budget + zone) << "the tables hold room placement counted as free";
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));  // past the pause the failed move began
  ReadBlock("/db/000033.ldb", index->blocks[next], 2);
  tiering_->WaitIdle();
  EXPECT_EQ(tiering_->stats().failed_moves, 2u);
  EXPECT_EQ(placement_.set_aside, budget + 2 * zone) << "a zone more per failure";
  EXPECT_EQ(tiering_->stats().demoted_zones, 0u) << "its only zone of blocks stays";
}

// Where tables must not be sent down for blocks (tiers close in speed),
// placement is never asked for room, and the blocks use what is free.
TEST_F(BlockTieringTest, BlocksThatTakeNoRoomFromTablesUseOnlyWhatIsFree) {
  take_room_ = false;
  Start(1 << 20, false, "zone_size=64KiB&zones=7", /*adaptive=*/false);  // one zone for blocks
  EXPECT_EQ(placement_.set_aside, 0u);
  test::ScratchDir dir;
  auto index = PutTable("/db/000034.ldb", test::WriteLevelDbTable(dir.File("a.ldb"), false, 20000));
  size_t next = 0;
  ASSERT_GT(FillFastTier("/db/000034.ldb", *index, &next).size(), 4u) << "the free zone filled";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // past the pause the failed move began
  ReadBlock("/db/000034.ldb", index->blocks[next], 2);
  tiering_->WaitIdle();
  EXPECT_GE(tiering_->stats().failed_moves, 1u);
  EXPECT_FALSE(OnFast("/db/000034.ldb", index->blocks[next]));
  EXPECT_EQ(placement_.set_aside, 0u) << "no table was to make room";
}

// Blocks that take no room from the tables (tiers close in speed), in fast
// zones of 64 KiB: a slow table with five blocks moved up by reads, and a
// fast table beside it that a test reads to make the tables the better use.
class BlocksOffTest : public BlockTieringTest {
 protected:
  static constexpr uint64_t kZone = 64 << 10;
  static constexpr const char* kSlowTable = "/db/000051.ldb";
  static constexpr const char* kFastTable = "/db/000053.ldb";

  void StartWithBlocksUp(std::chrono::milliseconds probe_after) {
    take_room_ = false;
    probe_after_ = probe_after;
    Start(4 * kZone, false, "zone_size=64KiB&zones=64");
    slow_bytes_ = test::WriteLevelDbTable(dir_.File("a.ldb"), false, 20000);
    slow_ = PutTable(kSlowTable, slow_bytes_);
    fast_ = PutTable(kFastTable, test::WriteLevelDbTable(dir_.File("b.ldb"), false, 2000));
    MigrateResult r;
    ASSERT_OK(fs_->MigrateFile(kFastTable, Tier::kFast, nullptr, &r));
    for (size_t i = 0; i < 40; i += 8) ReadBlock(kSlowTable, slow_->blocks[i], 2);
    tiering_->WaitIdle();
    resident_ = tiering_->stats().resident_bytes;
    ASSERT_GT(resident_, 0u);
  }
  // The fast table serves more reads per byte than the blocks moved up.
  void TablesServeMore() { ReadBlock(kFastTable, fast_->blocks[10], 500); }
  // How many of the five blocks the reads moved up are on the fast tier.
  size_t MovedUpStillUp() {
    size_t up = 0;
    for (size_t i = 0; i < 40; i += 8) up += OnFast(kSlowTable, slow_->blocks[i]);
    return up;
  }

  test::ScratchDir dir_;
  std::string slow_bytes_;
  std::shared_ptr<const BlockIndex> slow_, fast_;
  uint64_t resident_ = 0;
};

TEST_F(BlocksOffTest, BlocksThatTakeNoRoomFromTablesTurnOffWhileTheTablesServeMore) {
  ASSERT_NO_FATAL_FAILURE(StartWithBlocksUp(std::chrono::milliseconds(400)));
  tiering_->AdjustBudget();
  ASSERT_EQ(tiering_->stats().budget_bytes, kZone) << "nothing read since: nothing learned";

  TablesServeMore();
  tiering_->AdjustBudget();
  EXPECT_EQ(tiering_->stats().budget_bytes, 0u) << "not even a zone: it would be a table's";
  EXPECT_EQ(tiering_->stats().resident_bytes, 0u) << "those up go down: their zone is a table's";
  EXPECT_EQ(tiering_->stats().demoted_bytes, resident_);
  EXPECT_EQ(MovedUpStillUp(), 0u);
  EXPECT_EQ(placement_.set_aside, 0u);
  const IndexedBlock& next = slow_->blocks[80];
  ReadBlock(kSlowTable, next, 4);
  tiering_->WaitIdle();
  EXPECT_FALSE(OnFast(kSlowTable, next)) << "no moves while off";
  const uint64_t heat_reads = tiering_->heat().stats().reads;
  ReadBlock(kSlowTable, next, 4);
  EXPECT_EQ(tiering_->heat().stats().reads, heat_reads) << "while off, a read costs no bookkeeping";

  std::this_thread::sleep_for(std::chrono::milliseconds(450));
  tiering_->AdjustBudget();
  EXPECT_EQ(tiering_->stats().budget_bytes, kZone) << "a zone again after the wait";
  ReadBlock(kSlowTable, next, 8);  // heat learned afresh
  tiering_->WaitIdle();
  EXPECT_TRUE(OnFast(kSlowTable, next));

  TablesServeMore();  // still the better use
  tiering_->AdjustBudget();
  EXPECT_EQ(tiering_->stats().budget_bytes, 0u);
  std::this_thread::sleep_for(std::chrono::milliseconds(450));
  tiering_->AdjustBudget();
  EXPECT_EQ(tiering_->stats().budget_bytes, 0u) << "the wait doubled after a second loss";
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  tiering_->AdjustBudget();
  EXPECT_EQ(tiering_->stats().budget_bytes, kZone);
  EXPECT_EQ(ReadFile(kSlowTable), slow_bytes_);
  ExpectClean();
}

TEST_F(BlockTieringTest, BlocksAnEarlierMountMovedUpAreAdoptedAndGoDownFirst) {
  Start(1 << 20, false, "zone_size=1MiB&zones=24", /*adaptive=*/false);
  test::ScratchDir dir;
  const std::string bytes = test::WriteLevelDbTable(dir.File("a.ldb"), false, 2000);
  auto index = PutTable("/db/000041.ldb", bytes);
  for (size_t i : {4, 24}) ReadBlock("/db/000041.ldb", index->blocks[i], 4);
  tiering_->WaitIdle();
  const uint64_t resident = tiering_->stats().resident_bytes;
  ASSERT_EQ(tiering_->stats().promoted_blocks, 2u);

  RemountFs();
  NewTiering(1 << 20, false, /*adaptive=*/true);
  tiering_->Start();
  EXPECT_EQ(tiering_->stats().resident_bytes, resident) << "adopted";
  EXPECT_EQ(tiering_->stats().budget_bytes, 1u << 20) << "a zone: what they fill";
  NewTiering(resident, false, /*adaptive=*/false);  // room for them and no more
  tiering_->Start();
  ReadBlock("/db/000041.ldb", index->blocks[44], 6);
  tiering_->WaitIdle();
  EXPECT_TRUE(OnFast("/db/000041.ldb", index->blocks[44]));
  EXPECT_GE(tiering_->stats().demoted_blocks, 1u) << "their heat unknown, they make room";
  EXPECT_FALSE(OnFast("/db/000041.ldb", index->blocks[4]) && OnFast("/db/000041.ldb", index->blocks[24]));
  EXPECT_EQ(ReadFile("/db/000041.ldb"), bytes);
  ExpectClean();
}

// A move down the filesystem refuses as a whole leaves the blocks up there
// counted: they still hold their room, and go down at the next turn-off.
TEST_F(BlocksOffTest, BlocksARefusedMoveDownLeftUpStayCountedAndGoDownLater) {
  ASSERT_NO_FATAL_FAILURE(StartWithBlocksUp(std::chrono::milliseconds(300)));
  moves_down_->refuse = true;
  TablesServeMore();
  tiering_->AdjustBudget();
  ASSERT_EQ(tiering_->stats().budget_bytes, 0u);
  EXPECT_EQ(tiering_->stats().resident_bytes, resident_) << "still up there, still counted";
  EXPECT_EQ(tiering_->stats().demoted_blocks, 0u);
  EXPECT_GE(tiering_->stats().failed_moves, 5u);
  EXPECT_EQ(MovedUpStillUp(), 5u);

  moves_down_->refuse = false;
  std::this_thread::sleep_for(std::chrono::milliseconds(350));
  tiering_->AdjustBudget();
  ASSERT_EQ(tiering_->stats().budget_bytes, kZone) << "a probe";
  TablesServeMore();
  tiering_->AdjustBudget();
  ASSERT_EQ(tiering_->stats().budget_bytes, 0u);
  EXPECT_EQ(tiering_->stats().resident_bytes, 0u) << "down at this turn-off";
  EXPECT_EQ(MovedUpStillUp(), 0u);
  EXPECT_EQ(ReadFile(kSlowTable), slow_bytes_);
  ExpectClean();
}

}  // namespace
}  // namespace hintfs
