#include "placement/temperature.h"

#include <nlohmann/json.hpp>

#include "placement/static_policies.h"

namespace hintfs {

TemperatureBook::TemperatureBook(std::shared_ptr<HintBus> bus) : bus_(std::move(bus)) {
  subscription_ = bus_->Subscribe([this](const Hint& h) {
    if (h.kind != Hint::Kind::kFileTemperature && h.kind != Hint::Kind::kFileDeleted) return;
    std::lock_guard<std::mutex> l(mu_);
    if (h.kind == Hint::Kind::kFileDeleted || h.temperature == Temperature::kUnknown) {
      files_.erase(h.path);
    } else {
      files_[h.path] = h.temperature;
    }
  });
}

TemperatureBook::~TemperatureBook() { bus_->Unsubscribe(subscription_); }

Temperature TemperatureBook::Of(const std::string& path) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = files_.find(path);
  return it == files_.end() ? Temperature::kUnknown : it->second;
}

TemperaturePolicy::TemperaturePolicy(std::shared_ptr<HintBus> bus) : bus_(bus), book_(bus) {
  subscription_ = bus_->Subscribe([this](const Hint& h) { table_size_.Note(h); });
}

TemperaturePolicy::~TemperaturePolicy() { bus_->Unsubscribe(subscription_); }

ZoneRole TemperaturePolicy::RoleForNewFile(const std::string& path) { return LsmRoleFor(path); }

bool TemperaturePolicy::MayUseReserve(const AllocationRequest& request) { return LsmFreesSpace(request); }

bool TemperaturePolicy::WritersShareZones(ZoneRole role) { return LsmWritersShareZones(role); }

bool TemperaturePolicy::ZonePerFile(ZoneRole role, uint64_t zone_capacity) {
  return LsmTablesOwnZones(role, table_size_.bytes(), zone_capacity);
}

void TemperaturePolicy::ChooseDevices(const AllocationRequest& request, const std::vector<DeviceSpace>& devices,
                                      std::vector<uint32_t>* order) {
  uint64_t fast_bytes = 0;
  for (const DeviceSpace& d : devices) {
    if (d.tier != Tier::kFast) continue;
    fast_bytes += d.zone_capacity * d.total_zones;
    table_size_.NoteFastZone(d.zone_capacity);
  }
  Temperature t = book_.Of(request.path);
  bool slow_first = TemperatureBook::BelongsOnSlowTier(t) || LsmKeepsOffFastTier(request, fast_bytes);
  if (request.file_size == 0) {
    std::lock_guard<std::mutex> l(mu_);
    placed_[static_cast<int>(t)]++;
  }
  order->clear();
  for (Tier tier : {slow_first ? Tier::kSlow : Tier::kFast, slow_first ? Tier::kFast : Tier::kSlow}) {
    for (const DeviceSpace& d : devices) {
      if (d.tier == tier) order->push_back(d.index);
    }
  }
}

uint64_t TemperaturePolicy::AskAgainAfter(const AllocationRequest& request, const DeviceSpace& device) {
  return LsmAskAgainAfter(request, device);
}

std::string TemperaturePolicy::StateJson() const {
  std::lock_guard<std::mutex> l(mu_);
  nlohmann::json placed = nlohmann::json::object();
  for (int t = 0; t < 4; t++) placed[TemperatureName(static_cast<Temperature>(t))] = placed_[t];
  return nlohmann::json{{"policy", "temperature"}, {"placed", placed}, {"table_bytes", table_size_.bytes()}}.dump();
}

}  // namespace hintfs
