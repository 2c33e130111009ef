// RocksDB's file temperatures: the temperature policy places by them alone,
// hhzs takes them as an override of its rules.
#include "placement/temperature.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "hints/file_tag.h"
#include "placement/hhzs_policy.h"
#include "placement/policy_registry.h"

namespace hintfs {
namespace {

std::vector<DeviceSpace> TwoTiers() {
  std::vector<DeviceSpace> d(2);
  d[0].index = 0, d[0].tier = Tier::kSlow, d[0].zone_capacity = 1 << 20;
  d[0].total_zones = 100, d[0].free_zones = 100;
  d[1].index = 1, d[1].tier = Tier::kFast, d[1].zone_capacity = 1 << 20;
  d[1].total_zones = 20, d[1].free_zones = 20;
  return d;
}

void Say(HintBus* bus, const std::string& path, Temperature t) {
  Hint h;
  h.kind = Hint::Kind::kFileTemperature;
  h.path = path;
  h.temperature = t;
  bus->Publish(h);
}

std::vector<uint32_t> Order(AllocationPolicy* p, const std::string& path) {
  AllocationRequest r;
  r.path = path;
  r.role = p->RoleForNewFile(path);
  std::vector<uint32_t> order;
  p->ChooseDevices(r, TwoTiers(), &order);
  return order;
}

TEST(TemperaturePolicy, HotAndUnnamedFilesGoFastWarmAndColdSlow) {
  const std::vector<uint32_t> fast_first{1, 0}, slow_first{0, 1};
  auto bus = std::make_shared<HintBus>();
  std::shared_ptr<AllocationPolicy> p;
  ASSERT_TRUE(NewAllocationPolicy("temperature", bus, &p).ok());
  EXPECT_EQ(p->name(), "temperature");
  Say(bus.get(), "/db/000010.sst", Temperature::kCold);
  Say(bus.get(), "/db/000011.sst", Temperature::kWarm);
  Say(bus.get(), "/db/000012.sst", Temperature::kHot);
  EXPECT_EQ(Order(p.get(), "/db/000010.sst"), slow_first);
  EXPECT_EQ(Order(p.get(), "/db/000011.sst"), slow_first);
  EXPECT_EQ(Order(p.get(), "/db/000012.sst"), fast_first);
  EXPECT_EQ(Order(p.get(), "/db/000013.sst"), fast_first);  // RocksDB named none
  EXPECT_EQ(Order(p.get(), "/db/000014.log"), fast_first);
  EXPECT_EQ(p->RoleForNewFile("/db/000014.log"), kWalClass);
  // A deleted file's number may come back without a temperature.
  Hint gone;
  gone.kind = Hint::Kind::kFileDeleted;
  gone.path = "/db/000010.sst";
  bus->Publish(gone);
  EXPECT_EQ(Order(p.get(), "/db/000010.sst"), fast_first);
  auto state = nlohmann::json::parse(p->StateJson());
  EXPECT_EQ(state["placed"]["cold"], 1);
  EXPECT_EQ(state["placed"]["unknown"], 3);
  EXPECT_FALSE(NewAllocationPolicy("temperature:warm=fast", bus, &p).ok());
}

TEST(TemperaturePolicy, HhzsTakesTheStoresTemperatureOverItsRules) {
  auto bus = std::make_shared<HintBus>();
  std::shared_ptr<AllocationPolicy> p;
  ASSERT_TRUE(NewAllocationPolicy("hhzs:table_bytes=1MiB,wal_budget=2MiB", bus, &p).ok());
  auto level = [&](const std::string& path, int l) {
    Hint h;
    h.kind = Hint::Kind::kTableFileCreation, h.path = path, h.level = l, h.reason = "compaction";
    bus->Publish(h);
  };
  level("/db/000020.sst", 1);  // room for L1: fast by rule (ii)
  level("/db/000021.sst", 1);
  Say(bus.get(), "/db/000021.sst", Temperature::kCold);
  level("/db/000022.sst", 6);
  Say(bus.get(), "/db/000022.sst", Temperature::kHot);
  EXPECT_EQ(Order(p.get(), "/db/000020.sst")[0], 1u);
  EXPECT_EQ(Order(p.get(), "/db/000021.sst"), (std::vector<uint32_t>{0}));
  EXPECT_EQ(Order(p.get(), "/db/000022.sst")[0], 1u);
}

}  // namespace
}  // namespace hintfs
