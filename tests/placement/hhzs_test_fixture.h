// The fixture of hhzs's tests: one fast device of 12 one-table zones (10
// slots for tables after a WAL budget of two) and a slow one, on which tests
// place files as the filesystem would and publish the store's hints.
#ifndef HINTFS_TESTS_PLACEMENT_HHZS_TEST_FIXTURE_H_
#define HINTFS_TESTS_PLACEMENT_HHZS_TEST_FIXTURE_H_

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "placement/hhzs_policy.h"

namespace hintfs {

constexpr uint64_t kTable = 1 << 20;

class HhzsTest : public ::testing::Test {
 protected:
  void SetUp() override { Make(HhzsConfig()); }

  void Make(HhzsConfig c) {
    c.table_bytes = kTable;
    c.services.wal_budget_bytes = 2 * kTable;
    policy_ = std::make_unique<HhzsPolicy>("hhzs", bus_, c);
    // One fast device of 12 one-table zones: 10 slots for tables after the
    // WAL budget, as long as nothing else holds a zone.
    devices_.assign(2, DeviceSpace());
    devices_[0].index = 0, devices_[0].tier = Tier::kFast, devices_[0].total_zones = 12;
    devices_[0].free_zones = 12, devices_[0].zone_capacity = kTable;
    devices_[1].index = 1, devices_[1].tier = Tier::kSlow, devices_[1].total_zones = 100;
    devices_[1].free_zones = 100, devices_[1].zone_capacity = kTable;
  }

  // Hints carry a time (the bus would stamp the clock on a hint without).
  void Publish(Hint::Kind kind, int64_t job, const std::string& path, int level, uint32_t count = 0,
               uint64_t time_ms = 1) {
    Hint h;
    h.kind = kind;
    h.job = job;
    h.path = path;
    h.level = level;
    h.count = count;
    h.reason = "compaction";
    h.time_ns = time_ms * 1000000;
    bus_->Publish(h);
  }

  // Places a file of level (announced as the store would, before its first
  // byte); each takes one zone of the device it lands on.
  bool Place(const std::string& path, int level, int64_t job = 0, uint64_t file_size = 0) {
    if (level >= 0) Publish(Hint::Kind::kTableFileCreation, job, path, level);
    AllocationRequest r;
    r.path = path;
    r.file_size = file_size;
    r.role = policy_->RoleForNewFile(path);
    std::vector<uint32_t> order;
    policy_->ChooseDevices(r, devices_, &order);
    if (order.empty()) return false;
    DeviceSpace& d = devices_[order[0]];  // the filesystem had room there
    policy_->OnAllocated(r, d);
    d.free_zones--;
    d.role_zones[static_cast<int>(r.role)]++;
    d.live_bytes += kTable;
    where_[path] = order[0];
    roles_[path] = r.role;
    return order[0] == 0;
  }

  void Delete(const std::string& path) {
    Publish(Hint::Kind::kFileDeleted, 0, path, -1);
    devices_[where_[path]].free_zones++;
    devices_[where_[path]].role_zones[static_cast<int>(roles_[path])]--;
    devices_[where_[path]].live_bytes -= kTable;
  }

  std::shared_ptr<HintBus> bus_ = std::make_shared<HintBus>();
  std::unique_ptr<HhzsPolicy> policy_;
  std::vector<DeviceSpace> devices_;
  std::map<std::string, uint32_t> where_;
  std::map<std::string, ZoneRole> roles_;
};

}  // namespace hintfs

#endif  // HINTFS_TESTS_PLACEMENT_HHZS_TEST_FIXTURE_H_
