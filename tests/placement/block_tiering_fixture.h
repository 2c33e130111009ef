// The fixture of the block tiering tests: a real (memory-backed) filesystem
// whose policy puts every table on the slow tier, its block index keeper,
// and block tiering over it.
#ifndef HINTFS_TESTS_PLACEMENT_BLOCK_TIERING_FIXTURE_H_
#define HINTFS_TESTS_PLACEMENT_BLOCK_TIERING_FIXTURE_H_

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "fs/filesystem_wrapper.h"
#include "hints/block_index_keeper.h"
#include "placement/block_tiering.h"
#include "tests/fs/fs_fixture.h"
#include "tests/hints/test_tables.h"

namespace hintfs {

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
    tiering_.reset();
    moves_down_ = std::make_unique<RefusingMovesDown>(std::shared_ptr<Filesystem>(fs_.get(), [](Filesystem*) {}));
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
    tiering_ = std::make_unique<BlockTiering>(moves_down_.get(), bo);
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
  // The filesystem as the tiering sees it: MigrateRanges to the slow tier
  // fails with NoSpace while refuse is set.
  struct RefusingMovesDown : FilesystemWrapper {
    using FilesystemWrapper::FilesystemWrapper;
    Status MigrateRanges(const std::vector<RangeMove>& moves, Tier to, ZoneRole zone_class, RateLimiter* limiter,
                         std::vector<MigrateResult>* results) override {
      if (refuse && to == Tier::kSlow) return Status::NoSpace("refused by the test");
      return FilesystemWrapper::MigrateRanges(moves, to, zone_class, limiter, results);
    }
    bool refuse = false;
  };
  std::shared_ptr<BlockIndexKeeper> keeper_;
  std::unique_ptr<RefusingMovesDown> moves_down_;
  std::unique_ptr<BlockTiering> tiering_;
};

}  // namespace hintfs

#endif  // HINTFS_TESTS_PLACEMENT_BLOCK_TIERING_FIXTURE_H_
