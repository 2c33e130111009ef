#include <gtest/gtest.h>

#include "placement/policy_registry.h"

namespace hintfs {
namespace {

TEST(PolicyRegistry, MakesKnownPoliciesAndRejectsOthers) {
  std::shared_ptr<AllocationPolicy> p;
  ASSERT_TRUE(NewAllocationPolicy("fast-first", &p).ok());
  EXPECT_EQ(p->name(), "fast-first");
  Status s = NewAllocationPolicy("hhzz", &p);
  EXPECT_TRUE(s.IsNotFound());
  EXPECT_NE(s.message().find("fast-first"), std::string::npos);
}

TEST(FastFirstPolicy, TriesFastDevicesBeforeSlowOnes) {
  FastFirstPolicy p;
  std::vector<DeviceSpace> devices(3);
  devices[0].index = 0, devices[0].tier = Tier::kSlow;
  devices[1].index = 1, devices[1].tier = Tier::kFast;
  devices[2].index = 2, devices[2].tier = Tier::kSlow;
  std::vector<uint32_t> order;
  p.ChooseDevices(AllocationRequest(), devices, &order);
  EXPECT_EQ(order, (std::vector<uint32_t>{1, 0, 2}));
  EXPECT_EQ(p.RoleForNewFile("/db/000001.log"), ZoneRole::kData);
}

}  // namespace
}  // namespace hintfs
