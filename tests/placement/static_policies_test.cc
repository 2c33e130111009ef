// Level tracking from hints and the static baselines' device order.
#include <gtest/gtest.h>

#include "hints/block_index_keeper.h"
#include "hints/file_tag.h"
#include "placement/level_tracker.h"
#include "placement/policy_registry.h"
#include "placement/static_policies.h"

namespace hintfs {
namespace {

Hint Make(Hint::Kind kind, int64_t job, const std::string& path, int level, const std::string& reason = "") {
  Hint h;
  h.kind = kind;
  h.job = job;
  h.path = path;
  h.level = level;
  h.reason = reason;
  return h;
}

TEST(LevelTracker, JoinsTableCreationWithItsJobBeforeTheFirstByte) {
  auto bus = std::make_shared<HintBus>();
  LevelTracker t(bus);
  bus->Publish(Make(Hint::Kind::kCompactionBegin, 7, "", 3));
  bus->Publish(Make(Hint::Kind::kFlushBegin, 8, "", 0));
  // The table's level is not in its creation hint: it comes from the job.
  bus->Publish(Make(Hint::Kind::kTableFileCreation, 7, "/db/000020.sst", -1, "compaction"));
  bus->Publish(Make(Hint::Kind::kTableFileCreation, 8, "/db/000021.sst", -1, "flush"));
  bus->Publish(Make(Hint::Kind::kTableFileCreation, 99, "/db/000022.sst", -1, "flush"));
  EXPECT_EQ(t.LevelOf("/db/000020.sst", 0), 3);
  EXPECT_EQ(t.LevelOf("/db/000021.sst", 0), 0);
  EXPECT_EQ(t.LevelOf("/db/000022.sst", 0), 0);  // a flush without a begin hint: L0
  EXPECT_EQ(t.exact_answers(), 3u);
  bus->Publish(Make(Hint::Kind::kFileDeleted, 7, "/db/000020.sst", -1));
  EXPECT_EQ(t.LevelOf("/db/000020.sst", 0), LevelTracker::kUnknown);
  bus->Publish(Make(Hint::Kind::kCompactionEnd, 7, "", 3));
  bus->Publish(Make(Hint::Kind::kTableFileCreation, 7, "/db/000030.sst", -1, "compaction"));
  EXPECT_EQ(t.LevelOf("/db/000030.sst", 0), LevelTracker::kUnknown);  // job 7 is over
}

TEST(LevelTracker, EstimatesFromLifetimeHintsWithoutAListener) {
  auto bus = std::make_shared<HintBus>();
  LevelTracker t(bus);
  EXPECT_EQ(t.LevelOf("/db/1.log", 2), LevelTracker::kWal);  // short
  EXPECT_EQ(t.LevelOf("/db/1.sst", 3), 0);                   // medium: L0 or base
  EXPECT_EQ(t.LevelOf("/db/2.sst", 4), 2);                   // long
  EXPECT_EQ(t.LevelOf("/db/3.sst", 5), 3);                   // extreme
  EXPECT_EQ(t.LevelOf("/db/4.sst", 0), LevelTracker::kUnknown);
  EXPECT_EQ(t.estimated_answers(), 4u);
}

std::vector<DeviceSpace> TwoTiers() {
  std::vector<DeviceSpace> d(3);
  d[0].index = 0, d[0].tier = Tier::kSlow;
  d[1].index = 1, d[1].tier = Tier::kFast, d[1].zone_capacity = 1 << 20;
  d[1].total_zones = 64, d[1].free_zones = 64;
  d[2].index = 2, d[2].tier = Tier::kSlow;
  return d;
}

std::vector<uint32_t> Order(AllocationPolicy* p, const std::string& path, int lifetime, uint64_t file_size = 0) {
  AllocationRequest r;
  r.path = path;
  r.role = p->RoleForNewFile(path);
  r.lifetime_hint = lifetime;
  r.file_size = file_size;
  std::vector<uint32_t> order;
  p->ChooseDevices(r, TwoTiers(), &order);
  return order;
}

TEST(StaticPolicies, LevelThresholdSendsLowLevelsFastAndDeepLevelsSlow) {
  const std::vector<uint32_t> fast_then_slow{1, 0, 2}, slow_only{0, 2};
  auto bus = std::make_shared<HintBus>();
  std::shared_ptr<AllocationPolicy> b2, b1, all_fast, all_slow;
  ASSERT_TRUE(NewAllocationPolicy("b2", bus, &b2).ok());
  ASSERT_TRUE(NewAllocationPolicy("b1", bus, &b1).ok());
  ASSERT_TRUE(NewAllocationPolicy("all-fast", bus, &all_fast).ok());
  ASSERT_TRUE(NewAllocationPolicy("all-slow", bus, &all_slow).ok());
  bus->Publish(Make(Hint::Kind::kTableFileCreation, 1, "/db/l1.sst", 1));
  bus->Publish(Make(Hint::Kind::kTableFileCreation, 2, "/db/l2.sst", 2));
  EXPECT_EQ(b2->RoleForNewFile("/db/000003.log"), kWalClass);
  EXPECT_EQ(b2->RoleForNewFile("/db/000004.sst"), kTableClass);
  EXPECT_EQ(b2->RoleForNewFile("/db/MANIFEST-000001"), ZoneRole::kData);
  EXPECT_EQ(Order(b2.get(), "/db/000003.log", 0), fast_then_slow);
  EXPECT_EQ(Order(b2.get(), "/db/l1.sst", 0), fast_then_slow);
  EXPECT_EQ(Order(b2.get(), "/db/l2.sst", 0), slow_only);
  EXPECT_EQ(Order(b1.get(), "/db/l1.sst", 0), slow_only);
  EXPECT_EQ(Order(b2.get(), "/db/MANIFEST-000001", 0), fast_then_slow);  // unknown: low
  EXPECT_EQ(Order(b2.get(), "/db/nohint.sst", 5), slow_only);           // extreme lifetime
  EXPECT_EQ(Order(all_fast.get(), "/db/l2.sst", 0), fast_then_slow);
  EXPECT_EQ(Order(all_slow.get(), "/db/000003.log", 0), slow_only);
}

// An info log's first bytes go to the fast tier under every LSM policy, its
// bulk to the slow tier, except under the upper bound.
TEST(StaticPolicies, InfoLogsGoSlowOnceLargeExceptUnderAllFast) {
  const std::vector<uint32_t> fast_then_slow{1, 0, 2}, slow_only{0, 2};
  auto bus = std::make_shared<HintBus>();
  std::shared_ptr<AllocationPolicy> b3, all_fast, autop;
  ASSERT_TRUE(NewAllocationPolicy("b3", bus, &b3).ok());
  ASSERT_TRUE(NewAllocationPolicy("all-fast", bus, &all_fast).ok());
  ASSERT_TRUE(NewAllocationPolicy("auto", bus, &autop).ok());
  auto order = [](AllocationPolicy* p, const char* path, uint64_t file_size) { return Order(p, path, 0, file_size); };
  uint64_t fast_bytes = 0;
  for (const DeviceSpace& d : TwoTiers()) {
    if (d.tier == Tier::kFast) fast_bytes += d.zone_capacity * d.total_zones;
  }
  const uint64_t small = fast_bytes / kInfoLogFastShare;
  for (const char* log : {"/db/LOG", "/db/LOG.old.1795482713670247"}) {
    EXPECT_EQ(order(b3.get(), log, 0), fast_then_slow) << log;
    EXPECT_EQ(order(b3.get(), log, small - 1), fast_then_slow) << log;
    EXPECT_EQ(order(b3.get(), log, small), slow_only) << log;
    EXPECT_EQ(order(autop.get(), log, 0), fast_then_slow) << log;
    EXPECT_EQ(order(autop.get(), log, small), slow_only) << log;
    EXPECT_EQ(order(all_fast.get(), log, small), fast_then_slow) << log;
  }
  EXPECT_EQ(order(b3.get(), "/db/OPTIONS-000005", small), fast_then_slow);
  // hintfs's block index of a table is read at every mount: fast, like a MANIFEST.
  const std::string index = std::string(kBlockIndexDirectory) + "/00000000000004d2";
  EXPECT_EQ(order(b3.get(), index.c_str(), 0), fast_then_slow);
  EXPECT_EQ(order(autop.get(), index.c_str(), 0), fast_then_slow);
}

// Tables own their zones when they are about a zone: at least half of one,
// and with a few percent of overshoot still inside it.
TEST(StaticPolicies, TablesOwnZonesWhenTheyAreAboutAZone) {
  const uint64_t zone = 2 << 20;
  EXPECT_TRUE(LsmTablesOwnZones(kTableClass, 1969225, zone));  // the scaled HHZS setting
  EXPECT_TRUE(LsmTablesOwnZones(kTableClass, zone / 2, zone));
  EXPECT_FALSE(LsmTablesOwnZones(kTableClass, zone / 2 - 1, zone));  // two would share
  EXPECT_FALSE(LsmTablesOwnZones(kTableClass, zone, zone));          // the overshoot would spill
  EXPECT_FALSE(LsmTablesOwnZones(kWalClass, 1969225, zone));
  EXPECT_FALSE(LsmTablesOwnZones(kTableClass, 64 << 20, 1077ull << 20));  // RocksDB's default on a ZN540
  std::shared_ptr<AllocationPolicy> b3, hhzs;
  ASSERT_TRUE(NewAllocationPolicy("b3:table_bytes=1969225", &b3).ok());
  ASSERT_TRUE(NewAllocationPolicy("hhzs:table_bytes=1969225", &hhzs).ok());
  EXPECT_TRUE(b3->ZonePerFile(kTableClass, zone));
  EXPECT_TRUE(hhzs->ZonePerFile(kTableClass, zone));
  EXPECT_FALSE(b3->ZonePerFile(kTableClass, 16 * zone));
}

// A store's logs and small files take turns in one zone under every LSM
// policy; tables never do.
TEST(StaticPolicies, LogsAndSmallFilesShareZonesAndTablesDoNot) {
  EXPECT_TRUE(LsmWritersShareZones(kWalClass));
  EXPECT_TRUE(LsmWritersShareZones(ZoneRole::kData));
  EXPECT_FALSE(LsmWritersShareZones(kTableClass));
  EXPECT_FALSE(LsmWritersShareZones(kCacheClass));
  for (const char* spec : {"b3", "hhzs", "auto", "temperature", "all-fast"}) {
    std::shared_ptr<AllocationPolicy> policy;
    ASSERT_TRUE(NewAllocationPolicy(spec, &policy).ok()) << spec;
    EXPECT_TRUE(policy->WritersShareZones(kWalClass)) << spec;
    EXPECT_TRUE(policy->WritersShareZones(ZoneRole::kData)) << spec;
    EXPECT_FALSE(policy->WritersShareZones(kTableClass)) << spec;
  }
}

}  // namespace
}  // namespace hintfs
