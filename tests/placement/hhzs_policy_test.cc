// HHZS write-guided placement against hand-computed cases (HHZS §3.3).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "placement/hhzs_policy.h"
#include "placement/policy_registry.h"

namespace hintfs {
namespace {

constexpr uint64_t kTable = 1 << 20;

class HhzsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    HhzsConfig c;
    c.table_bytes = kTable;
    c.wal_budget_bytes = 2 * kTable;
    policy_ = std::make_unique<HhzsPolicy>("hhzs", bus_, c);
    // One fast device of 12 one-table zones: 10 slots for tables after the WAL budget.
    devices_.resize(2);
    devices_[0].index = 0, devices_[0].tier = Tier::kFast, devices_[0].total_zones = 12;
    devices_[0].zone_capacity = kTable;
    devices_[1].index = 1, devices_[1].tier = Tier::kSlow, devices_[1].total_zones = 100;
    devices_[1].zone_capacity = kTable;
  }

  void Publish(Hint::Kind kind, int64_t job, const std::string& path, int level, uint32_t count = 0,
               const std::string& reason = "compaction") {
    Hint h;
    h.kind = kind;
    h.job = job;
    h.path = path;
    h.level = level;
    h.count = count;
    h.reason = reason;
    bus_->Publish(h);
  }

  // Places a table of level (announced as the store would, before its first byte).
  bool Place(const std::string& path, int level, int64_t job = 0) {
    Publish(Hint::Kind::kTableFileCreation, job, path, level);
    AllocationRequest r;
    r.path = path;
    r.role = policy_->RoleForNewFile(path);
    std::vector<uint32_t> order;
    policy_->ChooseDevices(r, devices_, &order);
    if (order.empty()) return false;
    policy_->OnAllocated(r, devices_[order[0]]);  // the filesystem had room there
    return order[0] == 0;
  }

  std::shared_ptr<HintBus> bus_ = std::make_shared<HintBus>();
  std::unique_ptr<HhzsPolicy> policy_;
  std::vector<DeviceSpace> devices_;
};

TEST_F(HhzsTest, DemandsTieringLevelAndReservedSlots) {
  EXPECT_TRUE(Place("/db/000010.log", -1));  // the WAL: always fast, L0 demand 1
  EXPECT_EQ(policy_->demand(0), 1);
  EXPECT_TRUE(Place("/db/a.sst", 0));
  EXPECT_TRUE(Place("/db/b.sst", 0));
  EXPECT_TRUE(Place("/db/c.sst", 1));
  EXPECT_TRUE(Place("/db/d.sst", 1));
  EXPECT_TRUE(Place("/db/e.sst", 1));
  EXPECT_EQ(policy_->allocated(0), 2);
  EXPECT_EQ(policy_->allocated(1), 3);

  // A compaction into L2 selects 2 tables: demand 2, then -1 per output.
  Publish(Hint::Kind::kCompactionBegin, 7, "", 2, 2);
  EXPECT_EQ(policy_->demand(2), 2);
  EXPECT_TRUE(Place("/db/f.sst", 2, 7));  // 3 + 3 + (0 + 2) = 8 < 10: no tiering level yet
  Publish(Hint::Kind::kCompactionOutput, 7, "/db/f.sst", 2);
  EXPECT_EQ(policy_->demand(2), 1);
  EXPECT_TRUE(Place("/db/g.sst", 2, 7));
  Publish(Hint::Kind::kCompactionOutput, 7, "/db/g.sst", 2);
  Publish(Hint::Kind::kCompactionEnd, 7, "", 2);
  EXPECT_EQ(policy_->demand(2), 0);
  EXPECT_EQ(policy_->allocated(2), 2);

  // A, D = {2,3,2}, {1,0,0}; another compaction into L2 selecting 4 tables:
  // sums 3, 6, 12 >= 10, so t = 2 and L2 keeps 10 - 6 = 4 slots.
  Publish(Hint::Kind::kCompactionBegin, 8, "", 2, 4);
  HhzsPolicy::Decision d = policy_->Decide(2, false, 10);
  EXPECT_EQ(d.tiering_level, 2);
  EXPECT_EQ(d.reserved, 4);
  EXPECT_TRUE(Place("/db/h.sst", 2, 8));  // rule (iii): 2 of 4 reserved used
  Publish(Hint::Kind::kCompactionOutput, 8, "/db/h.sst", 2);
  EXPECT_TRUE(Place("/db/i.sst", 2, 8));  // 3 of 4
  Publish(Hint::Kind::kCompactionOutput, 8, "/db/i.sst", 2);
  EXPECT_FALSE(Place("/db/j.sst", 2, 8));  // 4 of 4: the slow tier
  EXPECT_FALSE(Place("/db/k.sst", 3));     // below the tiering level: slow
  EXPECT_TRUE(Place("/db/l.sst", 1));      // above it: fast (rule ii)
  EXPECT_TRUE(policy_->Decide(0, true, 10).fast);  // flushes always fast (rule i)
  // A table keeps its first zone's tier.
  EXPECT_FALSE(Place("/db/j.sst", 2, 8));
  // Now A = {2,4,4}, D = {1,0,2}: sums 3, 7, 13, so t = 2 with 10 - 7 = 3
  // slots; deleting one fast L2 table leaves A2 = 3: still no free slot.
  Publish(Hint::Kind::kFileDeleted, 0, "/db/h.sst", 2);
  EXPECT_EQ(policy_->allocated(2), 3);
  d = policy_->Decide(2, false, 10);
  EXPECT_EQ(d.tiering_level, 2);
  EXPECT_EQ(d.reserved, 3);
  EXPECT_FALSE(Place("/db/m.sst", 2, 8));
  // A second deletion frees one.
  Publish(Hint::Kind::kFileDeleted, 0, "/db/i.sst", 2);
  EXPECT_TRUE(Place("/db/n.sst", 2, 8));

  auto state = nlohmann::json::parse(policy_->StateJson());
  EXPECT_EQ(state["capacity_slots"], 10);
  EXPECT_EQ(state["tiering_level"], 2);
  EXPECT_EQ(state["reserved_for_tiering_level"], 3);
  EXPECT_EQ(state["levels"][1]["allocated"], 4);
  EXPECT_EQ(state["levels"][2]["demand"], 2);
}

TEST_F(HhzsTest, OptionsLiveInTheRecordedName) {
  std::shared_ptr<AllocationPolicy> p;
  ASSERT_TRUE(NewAllocationPolicy("hhzs:table_bytes=4MiB,wal_budget=16MiB", bus_, &p).ok());
  EXPECT_EQ(p->name(), "hhzs:table_bytes=4MiB,wal_budget=16MiB");
  auto state = nlohmann::json::parse(p->StateJson());
  EXPECT_EQ(state["table_bytes"], 4u << 20);
  EXPECT_EQ(state["wal_budget_bytes"], 16u << 20);
  EXPECT_FALSE(NewAllocationPolicy("hhzs:table_bytes=lots", bus_, &p).ok());
  EXPECT_FALSE(NewAllocationPolicy("hhzs:colour=red", bus_, &p).ok());
}

}  // namespace
}  // namespace hintfs
