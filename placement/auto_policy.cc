#include "placement/auto_policy.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hints/file_tag.h"
#include "placement/static_policies.h"

namespace hintfs {

AutoPolicy::AutoPolicy(std::string name, std::shared_ptr<HintBus> bus, AutoConfig config)
    : name_(std::move(name)),
      bus_(bus),
      config_(config),
      tracker_(bus),
      table_size_(config.table_bytes),
      max_level_(config.initial_max_level) {
  subscription_ = bus_->Subscribe([this](const Hint& h) {
    table_size_.Note(h);
    std::lock_guard<std::mutex> l(mu_);
    Tick(h.time_ns);
  });
}

AutoPolicy::~AutoPolicy() { bus_->Unsubscribe(subscription_); }

ZoneRole AutoPolicy::RoleForNewFile(const std::string& path) { return LsmRoleFor(path); }

void AutoPolicy::Tick(uint64_t now_ns) {
  if (now_ns <= now_ns_) return;
  now_ns_ = now_ns;
  if (period_start_ns_ == 0) period_start_ns_ = now_ns;
  uint64_t elapsed = now_ns - period_start_ns_;
  if (elapsed < config_.period_ns) return;
  double mib_per_s = static_cast<double>(fast_bytes_in_period_) / 1048576.0 / (static_cast<double>(elapsed) / 1e9);
  last_throughput_ = mib_per_s / config_.fast_write_mib_per_s;
  if (last_throughput_ < 0.40) max_level_++;
  else if (last_throughput_ > 0.65 && max_level_ > 0) max_level_--;
  if (max_level_ > 7) max_level_ = 7;
  period_start_ns_ = now_ns;
  fast_bytes_in_period_ = 0;
}

void AutoPolicy::ChooseDevices(const AllocationRequest& request, const std::vector<DeviceSpace>& devices,
                               std::vector<uint32_t>* order) {
  uint64_t fast_total = 0, fast_free = 0;
  for (const DeviceSpace& d : devices) {
    if (d.tier != Tier::kFast) continue;
    fast_total += uint64_t{d.total_zones} * d.zone_capacity;
    fast_free += uint64_t{d.free_zones} * d.zone_capacity;
    table_size_.NoteFastZone(d.zone_capacity);
  }
  bool fast = true;
  if (request.role != kWalClass) {
    int level = tracker_.LevelOf(request.path, request.lifetime_hint);
    std::lock_guard<std::mutex> l(mu_);
    last_free_share_ = fast_total ? static_cast<double>(fast_free) / static_cast<double>(fast_total) : 0;
    int limit = max_level_;
    if (last_free_share_ < 0.133) limit = 1;
    if (last_free_share_ < 0.08) limit = -1;
    fast = level < 0 ? limit >= 0 : level <= limit;  // files of unknown level count as low
    if (LsmKeepsOffFastTier(request, fast_total)) fast = false;
  }
  order->clear();
  for (Tier tier : {Tier::kFast, Tier::kSlow}) {
    if (tier == Tier::kFast && !fast) continue;
    for (const DeviceSpace& d : devices) {
      if (d.tier == tier) order->push_back(d.index);
    }
  }
}

uint32_t AutoPolicy::ReservedEmptyZones(const DeviceSpace& device, ZoneRole role) {
  uint64_t budget =
      ResolveWalBudget(config_.wal_budget_bytes, device.zone_capacity, device.zone_capacity * device.total_zones);
  if (device.tier == Tier::kFast) {
    std::lock_guard<std::mutex> l(mu_);
    last_wal_budget_ = budget;
  }
  return WalBudgetReserve(device, role, budget);
}

void AutoPolicy::OnAllocated(const AllocationRequest&, const DeviceSpace& device) {
  if (device.tier != Tier::kFast) return;
  std::lock_guard<std::mutex> l(mu_);
  fast_bytes_in_period_ += device.zone_capacity;  // a zone's worth of writes is coming
}

int AutoPolicy::max_level() const {
  std::lock_guard<std::mutex> l(mu_);
  return max_level_;
}

std::string AutoPolicy::StateJson() const {
  std::lock_guard<std::mutex> l(mu_);
  return nlohmann::json{{"policy", "auto"},
                        {"max_level", max_level_},
                        {"fast_throughput_share", last_throughput_},
                        {"fast_free_share", last_free_share_},
                        {"wal_budget_bytes", config_.wal_budget_bytes != kWalBudgetFromDevice
                                                 ? config_.wal_budget_bytes
                                                 : last_wal_budget_},
                        {"table_bytes", table_size_.bytes()},
                        {"level_knowledge", tracker_.Stats()}}
      .dump();
}

}  // namespace hintfs
