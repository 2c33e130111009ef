// The live migrator on a real (memory-backed) filesystem: capacity migration
// moves a deep table off the fast tier when lower levels claim the room,
// popularity migration brings a much-read table back, the bytes never change
// and the counters are saved with the filesystem. Under a static policy with
// migration (B3+M) spilled tables of fast levels come up when there is room
// and tables that reached a slow level go down. With a cache borrowing the
// empty fast zones, tables move up into them only where they outread it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fs/device/emulated_device.h"
#include "placement/hhzs_policy.h"
#include "placement/migrator.h"
#include "placement/policy_registry.h"
#include "placement/static_policies.h"
#include "tests/fs/test_util.h"

namespace hintfs {
namespace {

class MigratorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fast_ = test::UniqueName("mfast");
    slow_ = test::UniqueName("mslow");
    MkfsOptions mk;
    // 12 fast zones of 1 MiB (one for the superblock, three for the journal).
    mk.devices = {{Tier::kFast, "mem:" + fast_ + "?zone_size=1MiB&zones=12"},
                  {Tier::kSlow, "mem:" + slow_ + "?zone_size=1MiB&zones=64"}};
    ASSERT_OK(Filesystem::Mkfs(mk));
    policy_ = MakePolicy();
    tiering_ = TieringOf(policy_.get());
    ASSERT_NE(tiering_, nullptr);
    MountOptions mo;
    mo.policy = policy_;
    mo.gc_reserve_zones = 0;
    ASSERT_OK(Filesystem::Mount("mem:" + fast_, mo, &fs_));
    ASSERT_OK(fs_->Mkdir("/db"));
  }

  virtual std::shared_ptr<AllocationPolicy> MakePolicy() {
    HhzsConfig c;
    c.table_bytes = 1 << 20;
    c.services.wal_budget_bytes = 1 << 20;
    auto hhzs = std::make_shared<HhzsPolicy>("hhzs:table_bytes=1MiB,wal_budget=1MiB", bus_, c);
    hhzs_ = hhzs.get();
    return hhzs;
  }

  void TearDown() override {
    fs_.reset();
    DestroyMemDevice(fast_);
    DestroyMemDevice(slow_);
  }

  void Publish(Hint::Kind kind, int64_t job, const std::string& path, int level, uint32_t count = 0) {
    Hint h;
    h.kind = kind;
    h.job = job;
    h.path = path;
    h.level = level;
    h.count = count;
    h.reason = "compaction";
    bus_->Publish(h);
  }

  std::string WriteTable(const std::string& path, int level, size_t bytes) {
    Publish(Hint::Kind::kTableFileCreation, 100 + level, path, level);
    std::string data(bytes, '\0');
    for (size_t i = 0; i < bytes; i++) data[i] = static_cast<char>((i * 131 + level) & 0xff);
    std::unique_ptr<FileWriter> w;
    EXPECT_OK(fs_->OpenWriter(path, WriteMode::kExclusive, &w));
    EXPECT_OK(w->Append(data));
    EXPECT_OK(w->Close());
    EXPECT_OK(fs_->SyncMetadata());
    return data;
  }

  bool IsFast(const std::string& path) {
    FileStat st;
    EXPECT_OK(fs_->Stat(path, &st));
    for (const Extent& e : st.extents) {
      if (fs_->superblock().members[e.device].tier != Tier::kFast) return false;
    }
    return !st.extents.empty();
  }

  std::string Read(const std::string& path, uint64_t offset = 0, size_t n = SIZE_MAX) {
    std::unique_ptr<FileReader> r;
    EXPECT_OK(fs_->OpenReader(path, &r));
    n = std::min<uint64_t>(n, r->Size() - offset);
    std::string out(n, '\0');
    size_t got = 0;
    EXPECT_OK(r->Read(offset, n, &out[0], &got));
    out.resize(got);
    return out;
  }

  std::string fast_, slow_;
  std::shared_ptr<HintBus> bus_ = std::make_shared<HintBus>();
  std::shared_ptr<AllocationPolicy> policy_;
  TieringSource* tiering_ = nullptr;
  HhzsPolicy* hhzs_ = nullptr;  // policy_, under hhzs
  std::unique_ptr<Filesystem> fs_;
};

TEST_F(MigratorTest, CapacityThenPopularityMigration) {
  MigratorOptions mo;
  mo.rate_bytes_per_second = 0;  // unlimited: the test is about decisions
  mo.slow_read_iops = 10;
  mo.read_window_ms = 0;  // every step measures the slow tier's read rate
  Migrator migrator(fs_.get(), bus_, tiering_, mo);  // hears of tables from now on
  std::string deep = WriteTable("/db/000007.sst", 3, 900 << 10);
  std::string l1 = WriteTable("/db/000008.sst", 1, 900 << 10);
  ASSERT_TRUE(IsFast("/db/000007.sst")) << "the SSD was empty: every level fits";
  EXPECT_EQ(migrator.Step().reason, MigrationPlan::Reason::kNone);

  // A compaction into L1 claims every slot: L3 must leave the fast tier.
  Publish(Hint::Kind::kCompactionBegin, 5, "", 1, 10);
  ASSERT_LT(tiering_->Tiering().tiering_level, 3);
  MigrationPlan p = migrator.Step();
  EXPECT_EQ(p.reason, MigrationPlan::Reason::kCapacity);
  EXPECT_EQ(p.path, "/db/000007.sst");
  EXPECT_FALSE(IsFast("/db/000007.sst"));
  EXPECT_TRUE(IsFast("/db/000008.sst"));
  EXPECT_EQ(Read("/db/000007.sst"), deep);
  EXPECT_EQ(migrator.stats().to_slow_bytes, deep.size());
  EXPECT_EQ(migrator.stats().capacity, 1u);
  EXPECT_EQ(hhzs_->fast(3), 0);

  // The compaction ends; the table on the slow tier is read at random, far
  // beyond half of the slow tier's 10 IOPS: popularity brings it back.
  Publish(Hint::Kind::kCompactionEnd, 5, "", 1);
  for (int i = 0; i < 200; i++) {
    uint64_t off = (static_cast<uint64_t>(i) * 7919 * 4096) % (deep.size() - 4096);
    ASSERT_EQ(Read("/db/000007.sst", off, 4096), deep.substr(off, 4096));
  }
  p = migrator.Step();  // measures the read rate, then plans
  EXPECT_EQ(p.reason, MigrationPlan::Reason::kPopularity);
  EXPECT_EQ(p.path, "/db/000007.sst");
  EXPECT_TRUE(IsFast("/db/000007.sst"));
  EXPECT_EQ(Read("/db/000007.sst"), deep);
  EXPECT_EQ(Read("/db/000008.sst"), l1);
  EXPECT_GT(migrator.stats().slow_read_rate, 5.0);

  // The counters outlive the mount.
  migrator.Stop();
  ASSERT_OK(fs_->Unmount());
  MountOptions mo2;
  mo2.policy = policy_;
  ASSERT_OK(Filesystem::Mount("mem:" + fast_, mo2, &fs_));
  auto saved = nlohmann::json::parse(fs_->Attributes().at("migration"));
  EXPECT_EQ(saved["to_slow_bytes"], deep.size());
  EXPECT_EQ(saved["to_fast_bytes"], deep.size());
  EXPECT_EQ(saved["moves"]["capacity"], 1);
  EXPECT_EQ(saved["moves"]["popularity"], 1);
}

// With a cache borrowing the empty fast zones, a table moves up into them
// only if it is read more often than a zone of the cache serves, measured
// after the cache's first (warm-up) window.
TEST_F(MigratorTest, MovesUpOnlyTablesThatOutreadABorrowingCache) {
  BorrowedRoomSample cache{0, 1};
  MigratorOptions mo;
  mo.rate_bytes_per_second = 0;
  mo.slow_read_iops = 10;
  mo.read_window_ms = 0;
  mo.room_window_ms = 0;  // every step ends a window
  mo.borrowed_room = [&cache] { return cache; };
  Migrator migrator(fs_.get(), bus_, tiering_, mo);
  std::string deep = WriteTable("/db/000007.sst", 3, 900 << 10);
  Publish(Hint::Kind::kCompactionBegin, 5, "", 1, 10);
  ASSERT_EQ(migrator.Step().reason, MigrationPlan::Reason::kCapacity);
  Publish(Hint::Kind::kCompactionEnd, 5, "", 1);
  auto read_hard = [&] {  // far beyond half the slow tier's 10 IOPS
    for (int i = 0; i < 200; i++) ASSERT_EQ(Read("/db/000007.sst", 4096 * (i % 200), 4096).size(), 4096u);
  };
  read_hard();
  EXPECT_EQ(migrator.Step().reason, MigrationPlan::Reason::kNone) << "the cache's warm-up: not measured yet";
  EXPECT_LT(migrator.stats().borrowed_zone_hit_rate, 0);
  // A zone of cache serving far more than the table is read keeps its room.
  cache.hits += 1000000000;
  read_hard();
  EXPECT_EQ(migrator.Step().reason, MigrationPlan::Reason::kNone);
  EXPECT_GT(migrator.stats().borrowed_zone_hit_rate, 1000);
  EXPECT_FALSE(IsFast("/db/000007.sst"));
  // Once it serves nothing, the table takes the room.
  read_hard();
  MigrationPlan p = migrator.Step();
  EXPECT_EQ(p.reason, MigrationPlan::Reason::kPopularity);
  EXPECT_TRUE(IsFast("/db/000007.sst"));
  EXPECT_EQ(migrator.stats().borrowed_zone_hit_rate, 0);
  EXPECT_EQ(Read("/db/000007.sst"), deep);
}

TEST_F(MigratorTest, NeverMovesTablesBeingCompactedOrWritten) {
  MigratorOptions mo;
  mo.rate_bytes_per_second = 0;
  Migrator migrator(fs_.get(), bus_, tiering_, mo);
  WriteTable("/db/000009.sst", 3, 500 << 10);
  Hint begin;
  begin.kind = Hint::Kind::kCompactionBegin;
  begin.job = 6;
  begin.level = 1;
  begin.count = 10;
  begin.inputs.push_back({"/db/000009.sst", 3});
  bus_->Publish(begin);
  EXPECT_EQ(migrator.Step().reason, MigrationPlan::Reason::kNone);
  EXPECT_TRUE(IsFast("/db/000009.sst"));
  // A table still open for writing is refused by the filesystem and retried.
  Publish(Hint::Kind::kCompactionEnd, 6, "", 1);
  Publish(Hint::Kind::kCompactionBegin, 7, "", 1, 10);
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/db/000009.sst", WriteMode::kAppend, &w));
  EXPECT_EQ(migrator.Step().reason, MigrationPlan::Reason::kNone);
  EXPECT_EQ(migrator.stats().busy, 1u);
  ASSERT_OK(w->Close());
  EXPECT_EQ(migrator.Step().reason, MigrationPlan::Reason::kCapacity);
  EXPECT_FALSE(IsFast("/db/000009.sst"));
}

TEST_F(MigratorTest, RunsInTheBackgroundAndStopsPromptly) {
  MigratorOptions mo;
  mo.rate_bytes_per_second = 64 << 10;  // 800 KiB would take 12 s at this rate
  mo.interval_ms = 10;
  Migrator migrator(fs_.get(), bus_, tiering_, mo);
  std::string deep = WriteTable("/db/000011.sst", 4, 800 << 10);
  migrator.Start();
  Publish(Hint::Kind::kCompactionBegin, 8, "", 1, 10);
  // Stop while the move is under way: it finishes without the rate limit.
  for (int i = 0; i < 100 && migrator.stats().backlog_tables == 0; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  migrator.Stop();
  EXPECT_EQ(Read("/db/000011.sst"), deep);
  EXPECT_EQ(migrator.stats().errors, 0u);
}

// B3+M (HHZS Exp#2): b3 with migration on.
class StaticMigrationTest : public MigratorTest {
 protected:
  std::shared_ptr<AllocationPolicy> MakePolicy() override {
    std::shared_ptr<AllocationPolicy> p;
    EXPECT_OK(NewAllocationPolicy("b3:migration=on,table_bytes=1MiB", bus_, &p));
    return p;
  }

  void Delete(const std::string& path) {
    ASSERT_OK(fs_->Unlink(path));
    Publish(Hint::Kind::kFileDeleted, 0, path, -1);
  }
};

TEST_F(StaticMigrationTest, LiftsSpilledFastLevelsAndLowersSlowLevels) {
  EXPECT_TRUE(tiering_->Services().migration);
  MigratorOptions mo;
  mo.rate_bytes_per_second = 0;
  mo.slow_read_iops = 10;
  mo.read_window_ms = 0;
  Migrator migrator(fs_.get(), bus_, tiering_, mo);
  // L1 tables fill the fast tier; the last ones spill to the slow tier.
  std::vector<std::string> paths;
  std::string spilled;
  for (int i = 0; i < 10; i++) {
    paths.push_back("/db/0000" + std::to_string(10 + i) + ".sst");
    WriteTable(paths.back(), 1, 900 << 10);
    if (spilled.empty() && !IsFast(paths.back())) spilled = paths.back();
  }
  ASSERT_FALSE(spilled.empty()) << "the fast tier never filled";
  std::string l3 = WriteTable("/db/000030.sst", 3, 900 << 10);
  EXPECT_FALSE(IsFast("/db/000030.sst")) << "b3 puts L3 on the slow tier";
  EXPECT_EQ(tiering_->Tiering().tiering_level, 2);

  // Room comes back; the spilled L1 table and the L3 one are read.
  for (int i = 0; i < 5; i++) {
    ASSERT_NE(paths[i], spilled);
    Delete(paths[i]);
  }
  std::string data = Read(spilled);
  for (int i = 0; i < 200; i++) {
    uint64_t off = (static_cast<uint64_t>(i) * 7919 * 4096) % (data.size() - 4096);
    ASSERT_EQ(Read(spilled, off, 4096), data.substr(off, 4096));
    ASSERT_EQ(Read("/db/000030.sst", off, 4096), l3.substr(off, 4096));
  }
  fs_->SyncMetadata();  // the policy sees the room at the next allocation
  WriteTable("/db/000040.sst", 0, 4096);
  MigrationPlan p = migrator.Step();
  // Its reads came before the migrator first saw it, so no read pressure is
  // measured: it moves up as a fill (B3+M keeps L0-L2 on the fast tier).
  EXPECT_EQ(p.reason, MigrationPlan::Reason::kFill);
  EXPECT_EQ(p.path, spilled);
  EXPECT_TRUE(IsFast(spilled));
  EXPECT_EQ(Read(spilled), data);
  for (int i = 0; i < 5; i++) {
    p = migrator.Step();
    EXPECT_NE(p.path, "/db/000030.sst") << "B3+M never lifts L3";
  }
  EXPECT_FALSE(IsFast("/db/000030.sst"));

  // A fast L2 table that a trivial move took to L3 goes down.
  std::string moved = WriteTable("/db/000050.sst", 2, 300 << 10);
  ASSERT_TRUE(IsFast("/db/000050.sst"));
  Publish(Hint::Kind::kCompactionOutput, 9, "/db/000050.sst", 3);
  p = migrator.Step();
  EXPECT_EQ(p.reason, MigrationPlan::Reason::kCapacity);
  EXPECT_EQ(p.path, "/db/000050.sst");
  EXPECT_FALSE(IsFast("/db/000050.sst"));
  EXPECT_EQ(Read("/db/000050.sst"), moved);
}

TEST(StaticPolicyOptions, OnlyTieringPoliciesTakeServiceOptions) {
  auto bus = std::make_shared<HintBus>();
  std::shared_ptr<AllocationPolicy> p;
  ASSERT_OK(NewAllocationPolicy("b3", bus, &p));
  ASSERT_NE(TieringOf(p.get()), nullptr);
  EXPECT_FALSE(TieringOf(p.get())->Services().migration);
  EXPECT_EQ(TieringOf(p.get())->Services().cache, "off");
  ASSERT_OK(NewAllocationPolicy("all-fast:cache=cbf,cache_budget=8MiB,migration_rate=1MiB", bus, &p));
  EXPECT_EQ(p->name(), "all-fast:cache=cbf,cache_budget=8MiB,migration_rate=1MiB");
  EXPECT_EQ(TieringOf(p.get())->Services().cache, "cbf");
  EXPECT_EQ(TieringOf(p.get())->Services().cache_budget_bytes, 8u << 20);
  EXPECT_EQ(TieringOf(p.get())->Services().migration_rate, 1u << 20);
  EXPECT_TRUE(NewAllocationPolicy("b3:migration=maybe", bus, &p).IsInvalidArgument());
  EXPECT_TRUE(NewAllocationPolicy("b3:hold_ms=1", bus, &p).IsInvalidArgument());
  EXPECT_TRUE(NewAllocationPolicy("b3:table_bytes=0", bus, &p).IsInvalidArgument());
  EXPECT_TRUE(NewAllocationPolicy("b9", bus, &p).IsNotFound());
  EXPECT_TRUE(NewAllocationPolicy("fast-first:migration=on", bus, &p).IsNotFound());
  ASSERT_OK(NewAllocationPolicy("fast-first", bus, &p));
  EXPECT_EQ(TieringOf(p.get()), nullptr);
  ASSERT_OK(NewAllocationPolicy("auto", bus, &p));
  EXPECT_EQ(TieringOf(p.get()), nullptr);
}

}  // namespace
}  // namespace hintfs
