// Block tiering on a real (memory-backed) filesystem whose policy puts every
// table on the slow tier: hot blocks go up on reads, a new table's blocks
// holding hot keys go up when it is sealed, and the budget sends the
// coldest promoted blocks back down. The bytes always read back whole.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "hints/block_index_keeper.h"
#include "placement/block_tiering.h"
#include "tests/fs/fs_fixture.h"
#include "tests/hints/test_tables.h"

namespace hintfs {
namespace {

class BlockTieringTest : public test::FsTest {
 protected:
  void Start(uint64_t budget, bool retention = false, const std::string& fast = "zone_size=1MiB&zones=24",
             bool adaptive = true) {
    test::FsGeometry g;
    g.fast = fast;
    g.slow = slow_;
    Format(g);
    keeper_ = std::make_shared<BlockIndexKeeper>(nullptr);
    MountOptions o;
    o.policy = std::make_shared<test::SlowOnlyPolicy>();
    o.observer = keeper_;
    Mount(o);
    NewTiering(budget, retention, adaptive);
    keeper_->SetBlockReadListener(
        [this](const std::string& path, const BlockIndex& index, size_t block, uint64_t bytes,
               uint64_t slow_bytes) { tiering_->OnBlockRead(path, index, block, bytes, slow_bytes); });
    keeper_->SetIndexedListener([this](const std::string& path, std::shared_ptr<const BlockIndex> index) {
      tiering_->OnTableIndexed(path, std::move(index));
    });
    ASSERT_OK(fs_->Mkdir("/db"));
    ASSERT_OK(keeper_->Attach(fs_.get()));
    tiering_->Start();
  }
  // A fresh BlockTiering (not started) in place of the one running, as a
  // new mount would have.
  void NewTiering(uint64_t budget, bool retention, bool adaptive) {
    if (tiering_) tiering_->Stop();
    BlockTieringOptions bo;
    bo.budget_bytes = budget;
    bo.retention = retention;
    bo.adaptive = adaptive;
    bo.rate_bytes_per_second = 1ull << 30;
    bo.tiering = &placement_;
    bo.take_room_from_tables = take_room_;
    bo.probe_after = probe_after_;
    bo.adjust_every = std::chrono::hours(1);  // the tests that want it call AdjustBudget
    bo.adjust_reads = 0;
    tiering_ = std::make_unique<BlockTiering>(fs_.get(), bo);
  }
  // Unmounts and mounts the filesystem again, as the next run of a store
  // would; the tiering is gone (NewTiering makes the next one).
  void RemountFs() {
    tiering_->Stop();
    tiering_.reset();
    keeper_->Detach();
    ASSERT_OK(fs_->Unmount());
    MountOptions o;
    o.policy = std::make_shared<test::SlowOnlyPolicy>();
    o.observer = keeper_;
    Mount(o);
    ASSERT_OK(keeper_->Attach(fs_.get()));
  }
  void TearDown() override {
    if (tiering_) tiering_->Stop();
    if (keeper_) keeper_->Detach();
    FsTest::TearDown();
  }

  std::shared_ptr<const BlockIndex> PutTable(const std::string& path, const std::string& bytes) {
    std::unique_ptr<FileWriter> w;
    EXPECT_OK(fs_->OpenWriter(path, WriteMode::kExclusive, &w));
    EXPECT_OK(w->Append(bytes));
    EXPECT_OK(w->Close());
    keeper_->WaitIdle();
    std::shared_ptr<const BlockIndex> index;
    EXPECT_OK(keeper_->Get(path, &index));
    return index;
  }

  void ReadBlock(const std::string& path, const IndexedBlock& b, int times) {
    std::unique_ptr<FileReader> r;
    ASSERT_OK(fs_->OpenReader(path, &r));
    std::string buf(b.size, '\0');
    for (int i = 0; i < times; i++) {
      size_t got = 0;
      ASSERT_OK(r->Read(b.offset, b.size, buf.data(), &got));
    }
  }

  // Whether all of the block's bytes are on the fast tier.
  bool OnFast(const std::string& path, const IndexedBlock& b) {
    FileStat st;
    EXPECT_OK(fs_->Stat(path, &st));
    uint64_t at = 0;
    for (const Extent& e : st.extents) {
      if (at < b.offset + b.size && at + e.length > b.offset &&
          fs_->superblock().members[e.device].tier != Tier::kFast) {
        return false;
      }
      at += e.length;
    }
    return true;
  }

  // The fast zones holding the block (device << 32 | zone).
  std::set<uint64_t> FastZones(const std::string& path, const IndexedBlock& b) {
    FileStat st;
    EXPECT_OK(fs_->Stat(path, &st));
    std::set<uint64_t> zones;
    uint64_t at = 0;
    for (const Extent& e : st.extents) {
      if (at < b.offset + b.size && at + e.length > b.offset &&
          fs_->superblock().members[e.device].tier == Tier::kFast) {
        zones.insert(uint64_t{e.device} << 32 | e.zone);
      }
      at += e.length;
    }
    return zones;
  }

  // The blocks grouped by the one fast zone each lies in.
  std::map<uint64_t, std::vector<IndexedBlock>> ByZone(const std::string& path, const std::vector<IndexedBlock>& up) {
    std::map<uint64_t, std::vector<IndexedBlock>> by_zone;
    for (const IndexedBlock& b : up) {
      std::set<uint64_t> zones = FastZones(path, b);
      EXPECT_EQ(zones.size(), 1u);
      if (!zones.empty()) by_zone[*zones.begin()].push_back(b);
    }
    return by_zone;
  }

  // Promotes blocks one by one (every eighth: no two share a device block)
  // until a move finds no room; returns those that went up.
  std::vector<IndexedBlock> FillFastTier(const std::string& path, const BlockIndex& index, size_t* next) {
    std::vector<IndexedBlock> up;
    for (*next = 0; *next < index.blocks.size(); *next += 8) {
      const IndexedBlock& b = index.blocks[*next];
      ReadBlock(path, b, 2);
      tiering_->WaitIdle();
      if (tiering_->stats().failed_moves > 0) break;
      up.push_back(b);
    }
    *next += 8;
    return up;
  }

  // The block of index holding key.
  static size_t BlockOf(const BlockIndex& index, const std::string& key) {
    for (size_t i = 0; i < index.blocks.size(); i++) {
      if (key <= index.blocks[i].last_key) return i;
    }
    return index.blocks.size() - 1;
  }

  // Placement as block tiering sees it: what it was told to set aside.
  struct RecordingPlacement : TieringSource {
    TieringView Tiering() const override { return TieringView(); }
    TieringServices Services() const override { return TieringServices(); }
    void SetAsideFastBytes(uint64_t bytes) override { set_aside = bytes; }
    uint64_t set_aside = 0;
  };

  RecordingPlacement placement_;
  std::string slow_ = "zone_size=1MiB&zones=24";  // the slow device of the next Start
  bool take_room_ = true;  // BlockTieringOptions::take_room_from_tables of the next Start
  std::chrono::milliseconds probe_after_{10000};  // BlockTieringOptions::probe_after of the next Start
  std::shared_ptr<BlockIndexKeeper> keeper_;
  std::unique_ptr<BlockTiering> tiering_;
};

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

TEST_F(BlockTieringTest, BlocksThatTakeNoRoomFromTablesTurnOffWhileTheTablesServeMore) {
  const uint64_t zone = 64 << 10;
  take_room_ = false;
  probe_after_ = std::chrono::milliseconds(400);
  Start(4 * zone, false, "zone_size=64KiB&zones=64");
  test::ScratchDir dir;
  const std::string slow_bytes = test::WriteLevelDbTable(dir.File("a.ldb"), false, 20000);
  auto slow = PutTable("/db/000051.ldb", slow_bytes);
  auto fast = PutTable("/db/000053.ldb", test::WriteLevelDbTable(dir.File("b.ldb"), false, 2000));
  MigrateResult r;
  ASSERT_OK(fs_->MigrateFile("/db/000053.ldb", Tier::kFast, nullptr, &r));
  for (size_t i = 0; i < 40; i += 8) ReadBlock("/db/000051.ldb", slow->blocks[i], 2);
  tiering_->WaitIdle();
  const uint64_t resident = tiering_->stats().resident_bytes;
  ASSERT_GT(resident, 0u);
  tiering_->AdjustBudget();
  ASSERT_EQ(tiering_->stats().budget_bytes, zone) << "nothing read since: nothing learned";

  ReadBlock("/db/000053.ldb", fast->blocks[10], 500);  // the tables serve more per byte
  tiering_->AdjustBudget();
  EXPECT_EQ(tiering_->stats().budget_bytes, 0u) << "not even a zone: it would be a table's";
  EXPECT_EQ(tiering_->stats().resident_bytes, 0u) << "those up go down: their zone is a table's";
  EXPECT_EQ(tiering_->stats().demoted_bytes, resident);
  for (size_t i = 0; i < 40; i += 8) EXPECT_FALSE(OnFast("/db/000051.ldb", slow->blocks[i])) << i;
  EXPECT_EQ(placement_.set_aside, 0u);
  const IndexedBlock& next = slow->blocks[80];
  ReadBlock("/db/000051.ldb", next, 4);
  tiering_->WaitIdle();
  EXPECT_FALSE(OnFast("/db/000051.ldb", next)) << "no moves while off";
  const uint64_t heat_reads = tiering_->heat().stats().reads;
  ReadBlock("/db/000051.ldb", next, 4);
  EXPECT_EQ(tiering_->heat().stats().reads, heat_reads) << "while off, a read costs no bookkeeping";

  std::this_thread::sleep_for(std::chrono::milliseconds(450));
  tiering_->AdjustBudget();
  EXPECT_EQ(tiering_->stats().budget_bytes, zone) << "a zone again after the wait";
  ReadBlock("/db/000051.ldb", next, 8);  // heat learned afresh
  tiering_->WaitIdle();
  EXPECT_TRUE(OnFast("/db/000051.ldb", next));

  ReadBlock("/db/000053.ldb", fast->blocks[10], 500);  // still the better use
  tiering_->AdjustBudget();
  EXPECT_EQ(tiering_->stats().budget_bytes, 0u);
  std::this_thread::sleep_for(std::chrono::milliseconds(450));
  tiering_->AdjustBudget();
  EXPECT_EQ(tiering_->stats().budget_bytes, 0u) << "the wait doubled after a second loss";
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  tiering_->AdjustBudget();
  EXPECT_EQ(tiering_->stats().budget_bytes, zone);
  EXPECT_EQ(ReadFile("/db/000051.ldb"), slow_bytes);
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
