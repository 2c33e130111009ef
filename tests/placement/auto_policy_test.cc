// SpanDB's AUTO as HHZS §4.1 describes it, with time from hint timestamps.
#include <gtest/gtest.h>

#include "hints/file_tag.h"
#include "placement/auto_policy.h"
#include "placement/policy_registry.h"

namespace hintfs {
namespace {

constexpr uint64_t kZone = 64ull << 20;

class AutoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    AutoConfig c;
    c.wal_budget_bytes = kZone;
    policy_ = std::make_unique<AutoPolicy>("auto", bus_, c);
    devices_.resize(2);
    devices_[0].index = 0, devices_[0].tier = Tier::kFast, devices_[0].total_zones = 100;
    devices_[0].free_zones = 100, devices_[0].zone_capacity = kZone;
    devices_[1].index = 1, devices_[1].tier = Tier::kSlow, devices_[1].total_zones = 1000;
    devices_[1].free_zones = 1000, devices_[1].zone_capacity = kZone;
  }
  void At(uint64_t ns) {
    Hint h;
    h.kind = Hint::Kind::kFlushBegin;
    h.time_ns = ns;
    bus_->Publish(h);
  }
  bool Fast(const std::string& path, int level) {
    if (level >= 0) {
      Hint h;
      h.kind = Hint::Kind::kCompactionOutput;
      h.path = path;
      h.level = level;
      h.time_ns = last_;
      bus_->Publish(h);
    }
    AllocationRequest r;
    r.path = path;
    r.role = policy_->RoleForNewFile(path);
    std::vector<uint32_t> order;
    policy_->ChooseDevices(r, devices_, &order);
    return order[0] == 0;
  }

  std::shared_ptr<HintBus> bus_ = std::make_shared<HintBus>();
  std::unique_ptr<AutoPolicy> policy_;
  std::vector<DeviceSpace> devices_;
  uint64_t last_ = 1;
};

TEST_F(AutoTest, MaximumLevelFollowsThroughputAndSpace) {
  At(1);
  EXPECT_EQ(policy_->max_level(), 2);
  EXPECT_TRUE(Fast("/db/a.sst", 2));
  EXPECT_FALSE(Fast("/db/b.sst", 3));
  // A second with no writes to the fast tier: below 40% of its bandwidth, so up one level.
  At(1000000001 + 1);
  EXPECT_EQ(policy_->max_level(), 3);
  EXPECT_TRUE(Fast("/db/c.sst", 3));
  // 20 zones (1280 MiB) in the next second: above 65% of 1002.8 MiB/s, so down one level.
  for (int i = 0; i < 20; i++) policy_->OnAllocated(AllocationRequest(), devices_[0]);
  At(2000000003);
  EXPECT_EQ(policy_->max_level(), 2);
  // Under 13.3% free: at most L1. Under 8%: no table, but still the WAL.
  devices_[0].free_zones = 12;
  EXPECT_TRUE(Fast("/db/d.sst", 1));
  EXPECT_FALSE(Fast("/db/e.sst", 2));
  devices_[0].free_zones = 7;
  EXPECT_FALSE(Fast("/db/f.sst", 0));
  EXPECT_TRUE(Fast("/db/000010.log", -1));
  // The WAL budget (one zone) is held back from tables.
  EXPECT_EQ(policy_->ReservedEmptyZones(devices_[0], ZoneRole::kData), 1u);
  EXPECT_EQ(policy_->ReservedEmptyZones(devices_[0], kWalClass), 0u);
}

TEST(AutoPolicyOptions, ParsedFromTheName) {
  auto bus = std::make_shared<HintBus>();
  std::shared_ptr<AllocationPolicy> p;
  ASSERT_TRUE(NewAllocationPolicy("auto:wal_budget=16MiB,period_ms=500,max_level=1", bus, &p).ok());
  EXPECT_EQ(p->name(), "auto:wal_budget=16MiB,period_ms=500,max_level=1");
  EXPECT_NE(p->StateJson().find("\"max_level\":1"), std::string::npos);
  EXPECT_FALSE(NewAllocationPolicy("auto:period_ms=zero", bus, &p).ok());
  EXPECT_FALSE(NewAllocationPolicy("auto:colour=red", bus, &p).ok());
  EXPECT_FALSE(NewAllocationPolicy("auto:period_ms=0", bus, &p).ok());
}

}  // namespace
}  // namespace hintfs
