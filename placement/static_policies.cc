#include "placement/static_policies.h"

#include <nlohmann/json.hpp>

#include "hints/file_kind.h"
#include "hints/file_tag.h"

namespace hintfs {

ZoneRole LsmRoleFor(const std::string& path) { return IsWalFile(path) ? kWalClass : ZoneRole::kData; }

bool LsmFreesSpace(const AllocationRequest& request) { return IsTableFile(request.path); }

uint32_t WalBudgetReserve(const DeviceSpace& device, ZoneRole role, uint64_t budget_bytes) {
  if (device.tier != Tier::kFast || role == kWalClass || role == kCacheClass ||
      device.zone_capacity == 0) {
    return 0;  // the budget is theirs (the cache keeps itself within it)
  }
  uint64_t budget_zones = (budget_bytes + device.zone_capacity - 1) / device.zone_capacity;
  uint64_t in_use = uint64_t{device.role_zones[static_cast<int>(kWalClass)]} +
                    device.role_zones[static_cast<int>(kCacheClass)];
  return budget_zones > in_use ? static_cast<uint32_t>(budget_zones - in_use) : 0;
}

LevelThresholdPolicy::LevelThresholdPolicy(std::string name, int fast_levels, std::shared_ptr<HintBus> bus)
    : name_(std::move(name)), fast_levels_(fast_levels), tracker_(std::move(bus)) {}

ZoneRole LevelThresholdPolicy::RoleForNewFile(const std::string& path) { return LsmRoleFor(path); }

void LevelThresholdPolicy::ChooseDevices(const AllocationRequest& request,
                                         const std::vector<DeviceSpace>& devices,
                                         std::vector<uint32_t>* order) {
  order->clear();
  int level = request.role == kWalClass ? LevelTracker::kWal
                                             : tracker_.LevelOf(request.path, request.lifetime_hint);
  bool fast = fast_levels_ >= 0 && level < fast_levels_;
  for (Tier tier : {Tier::kFast, Tier::kSlow}) {
    if (tier == Tier::kFast && !fast) continue;
    for (const DeviceSpace& d : devices) {
      if (d.tier == tier) order->push_back(d.index);
    }
  }
}

}  // namespace hintfs

namespace hintfs {

std::string LevelThresholdPolicy::StateJson() const {
  return nlohmann::json{{"policy", name_}, {"levels", tracker_.Stats()}}.dump();
}

}  // namespace hintfs
