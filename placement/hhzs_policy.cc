#include "placement/hhzs_policy.h"

#include <fmt/format.h>

#include "placement/static_policies.h"

namespace hintfs {

HhzsPolicy::HhzsPolicy(std::string name, std::shared_ptr<HintBus> bus, HhzsConfig config)
    : name_(std::move(name)), bus_(bus), config_(config), tracker_(bus) {
  subscription_ = bus_->Subscribe([this](const Hint& h) { OnHint(h); });
}

HhzsPolicy::~HhzsPolicy() { bus_->Unsubscribe(subscription_); }

ZoneRole HhzsPolicy::RoleForNewFile(const std::string& path) { return LsmRoleFor(path); }

void HhzsPolicy::OnHint(const Hint& h) {
  std::lock_guard<std::mutex> l(mu_);
  auto clamp = [](int level) { return level >= 0 && level < kMaxLevels; };
  switch (h.kind) {
    case Hint::Kind::kCompactionBegin:
      if (!clamp(h.level)) break;
      // The compaction may write as many tables as it selected.
      jobs_[h.job] = Job{h.level, static_cast<int64_t>(h.count), 0};
      demand_[h.level] += h.count;
      break;
    case Hint::Kind::kCompactionOutput: {
      auto it = jobs_.find(h.job);
      if (it == jobs_.end() || h.reason == "flush") break;
      it->second.written++;
      if (demand_[it->second.level] > 0) demand_[it->second.level]--;
      break;
    }
    case Hint::Kind::kCompactionEnd: {
      auto it = jobs_.find(h.job);
      if (it == jobs_.end()) break;
      int64_t unused = std::max<int64_t>(0, it->second.selected - it->second.written);
      demand_[it->second.level] = std::max<int64_t>(0, demand_[it->second.level] - unused);
      jobs_.erase(it);
      break;
    }
    case Hint::Kind::kFileDeleted: {
      live_wals_.erase(h.path);
      decided_.erase(h.path);
      pending_levels_.erase(h.path);
      auto it = fast_tables_.find(h.path);
      if (it != fast_tables_.end()) {
        if (allocated_[it->second] > 0) allocated_[it->second]--;
        fast_tables_.erase(it);
      }
      break;
    }
    default:
      break;
  }
}

HhzsPolicy::Decision HhzsPolicy::DecideLocked(int level, bool from_flush, int64_t capacity_slots) const {
  Decision d;
  int64_t below = 0;  // sum_{j<i} (A_j + D_j)
  for (int i = 0; i < kMaxLevels; i++) {
    int64_t demand = i == 0 ? demand_[0] + static_cast<int64_t>(live_wals_.size()) : demand_[i];
    if (below + allocated_[i] + demand >= capacity_slots) {
      d.tiering_level = i;
      d.reserved = std::max<int64_t>(0, capacity_slots - below);
      break;
    }
    below += allocated_[i] + demand;
  }
  if (d.tiering_level == kMaxLevels) d.reserved = capacity_slots - below;
  d.fast = from_flush || level < d.tiering_level ||
           (level == d.tiering_level && allocated_[level] < d.reserved);
  return d;
}

HhzsPolicy::Decision HhzsPolicy::Decide(int level, bool from_flush, int64_t capacity_slots) const {
  std::lock_guard<std::mutex> l(mu_);
  return DecideLocked(level, from_flush, capacity_slots);
}

int64_t HhzsPolicy::allocated(int level) const {
  std::lock_guard<std::mutex> l(mu_);
  return allocated_[level];
}

int64_t HhzsPolicy::demand(int level) const {
  std::lock_guard<std::mutex> l(mu_);
  return level == 0 ? demand_[0] + static_cast<int64_t>(live_wals_.size()) : demand_[level];
}

void HhzsPolicy::ChooseDevices(const AllocationRequest& request, const std::vector<DeviceSpace>& devices,
                               std::vector<uint32_t>* order) {
  uint64_t fast_bytes = 0;
  for (const DeviceSpace& d : devices) {
    if (d.tier == Tier::kFast) fast_bytes += d.zone_capacity * d.total_zones;
  }
  int64_t capacity = fast_bytes > config_.wal_budget_bytes
                         ? static_cast<int64_t>((fast_bytes - config_.wal_budget_bytes) / config_.table_bytes)
                         : 0;
  int level = request.role == ZoneRole::kWal ? LevelTracker::kWal
                                             : tracker_.LevelOf(request.path, request.lifetime_hint);
  bool fast = true;
  {
    std::lock_guard<std::mutex> l(mu_);
    last_capacity_slots_ = capacity;
    if (level == LevelTracker::kWal) {
      live_wals_.insert(request.path);  // the WAL always goes fast
    } else if (level >= 0 && level < kMaxLevels) {
      auto known = decided_.find(request.path);
      if (known != decided_.end()) {
        fast = known->second;  // a table keeps the tier it was given first
      } else {
        fast = DecideLocked(level, level == 0, capacity).fast;
        decided_[request.path] = fast;
        pending_levels_[request.path] = level;
        (fast ? fast_decisions_ : slow_decisions_)++;
      }
    }  // files of unknown level (manifests, logs, options) are small: fast
  }
  order->clear();
  for (Tier tier : {Tier::kFast, Tier::kSlow}) {
    if (tier == Tier::kFast && !fast) continue;
    for (const DeviceSpace& d : devices) {
      if (d.tier == tier) order->push_back(d.index);
    }
  }
}

uint32_t HhzsPolicy::ReservedEmptyZones(const DeviceSpace& device, ZoneRole role) {
  return WalBudgetReserve(device, role, config_.wal_budget_bytes);
}

void HhzsPolicy::OnAllocated(const AllocationRequest& request, const DeviceSpace& device) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = pending_levels_.find(request.path);
  if (it == pending_levels_.end()) return;
  // A_i counts the tables that really landed on the fast tier.
  if (device.tier == Tier::kFast) {
    fast_tables_[request.path] = it->second;
    allocated_[it->second]++;
  }
  pending_levels_.erase(it);
}

std::string HhzsPolicy::StateJson() const {
  std::lock_guard<std::mutex> l(mu_);
  Decision d = DecideLocked(0, false, last_capacity_slots_);
  std::string levels;
  for (int i = 0; i < kMaxLevels; i++) {
    int64_t demand = i == 0 ? demand_[0] + static_cast<int64_t>(live_wals_.size()) : demand_[i];
    levels += fmt::format("{}{{\"level\":{},\"allocated\":{},\"demand\":{}}}", i ? "," : "", i,
                          allocated_[i], demand);
  }
  return fmt::format(
      "{{\"policy\":\"hhzs\",\"table_bytes\":{},\"wal_budget_bytes\":{},\"capacity_slots\":{},"
      "\"tiering_level\":{},\"reserved_for_tiering_level\":{},\"live_wals\":{},"
      "\"running_compactions\":{},\"fast_decisions\":{},\"slow_decisions\":{},\"levels\":[{}],"
      "\"level_knowledge\":{}}}",
      config_.table_bytes, config_.wal_budget_bytes, last_capacity_slots_, d.tiering_level, d.reserved,
      live_wals_.size(), jobs_.size(), fast_decisions_, slow_decisions_, levels, tracker_.StatsJson());
}

}  // namespace hintfs
