#include "placement/replay.h"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "placement/level_tracker.h"
#include "placement/policy_registry.h"

namespace hintfs {

namespace {

constexpr double kMiB = 1048576.0;

struct SimZone {
  int tier = 0;
  uint64_t live = 0;   // bytes of files still alive
  uint64_t room = 0;   // bytes still writable
  bool shared = false;
};

struct SimFile {
  ZoneRole role = ZoneRole::kData;
  int lifetime = 0;
  uint64_t bytes = 0;
  std::vector<std::pair<size_t, uint64_t>> parts;  // zone, bytes, in file order
  int64_t zone = -1;                               // the zone being filled
  uint64_t last_read_end = UINT64_MAX;
};

class Simulation {
 public:
  Simulation(const ReplayOptions& o, std::shared_ptr<AllocationPolicy> policy, std::shared_ptr<HintBus> bus,
             const TimingProfile& fast, const TimingProfile& slow)
      : o_(o), policy_(std::move(policy)), bus_(std::move(bus)), tracker_(bus_) {
    profile_[0] = fast;
    profile_[1] = slow;
    for (int t = 0; t < 2; t++) {
      devices_[t].index = static_cast<uint32_t>(t);
      devices_[t].tier = t == 0 ? Tier::kFast : Tier::kSlow;
      devices_[t].total_zones = t == 0 ? o.ssd_zones : o.hdd_zones;
      devices_[t].zone_capacity = o.zone_capacity;
    }
  }

  void Apply(const TraceEvent& e, ReplayResult* r) {
    Advance(e.time_ns);
    switch (e.type) {
      case TraceEvent::Type::kHint:
        bus_->Publish(e.hint);
        break;
      case TraceEvent::Type::kCreate:
        files_[e.path].role = policy_->RoleForNewFile(e.path);
        break;
      case TraceEvent::Type::kLifetime:
        files_[e.path].lifetime = e.lifetime;
        break;
      case TraceEvent::Type::kAppend:
        Append(e.path, e.bytes, r);
        break;
      case TraceEvent::Type::kDelete:
        Delete(e.path);
        break;
      case TraceEvent::Type::kRead:
        Read(e, r);
        break;
    }
  }

  void Finish(ReplayResult* r) {
    r->ssd_utilization = elapsed_ns_ > 0 ? used_zone_ns_ / static_cast<double>(elapsed_ns_) : 0;
    r->fast_seconds = busy_[0];
    r->slow_seconds = busy_[1];
    r->modeled_seconds = std::max(busy_[0], busy_[1]);
    r->policy_state = policy_->StateJson();
  }

  double Utilization() const {
    return o_.ssd_zones == 0 ? 0.0 : static_cast<double>(used_[0]) / o_.ssd_zones;
  }

 private:
  // Time-weighted SSD utilization.
  void Advance(uint64_t now) {
    if (now > last_ns_ && started_) {
      uint64_t dt = now - last_ns_;
      used_zone_ns_ += static_cast<double>(dt) * Utilization();
      elapsed_ns_ += dt;
    }
    started_ = true;
    last_ns_ = std::max(last_ns_, now);
  }

  // Tables get zones of their own (HHZS sizes a table to its zone); other
  // files share an open zone per tier and role, as the filesystem packs them.
  bool IsTable(const std::string& path, const SimFile& f) {
    return f.role != ZoneRole::kWal && tracker_.LevelOf(path, f.lifetime) >= 0;
  }

  std::string LevelName(const std::string& path, const SimFile& f) {
    if (f.role == ZoneRole::kWal) return "wal";
    int level = tracker_.LevelOf(path, f.lifetime);
    return level >= 0 ? "L" + std::to_string(level) : "other";
  }

  void Append(const std::string& path, uint64_t bytes, ReplayResult* r) {
    SimFile& f = files_[path];
    std::string level = LevelName(path, f);
    while (bytes > 0) {
      if (f.zone < 0 || zones_[f.zone].room == 0) {
        if (!NewZone(path, &f, bytes, r)) return;  // both tiers full: the bytes are dropped
      }
      SimZone& z = zones_[f.zone];
      uint64_t n = std::min(bytes, z.room);
      z.room -= n;
      z.live += n;
      if (!f.parts.empty() && f.parts.back().first == static_cast<size_t>(f.zone)) {
        f.parts.back().second += n;
      } else {
        f.parts.emplace_back(f.zone, n);
      }
      f.bytes += n;
      bytes -= n;
      int t = z.tier;
      busy_[t] += static_cast<double>(n) / (profile_[t].write_mib_per_s * kMiB);
      (t == 0 ? r->written.fast : r->written.slow) += n;
      (t == 0 ? r->per_level[level].fast : r->per_level[level].slow) += n;
      if (z.room == 0 && z.shared) open_shared_.erase({t, static_cast<int>(f.role)});
    }
  }

  bool NewZone(const std::string& path, SimFile* f, uint64_t bytes, ReplayResult* r) {
    for (int t = 0; t < 2; t++) {
      devices_[t].free_zones = devices_[t].total_zones - used_[t];
      devices_[t].free_bytes = uint64_t{devices_[t].free_zones} * o_.zone_capacity;
      std::fill(std::begin(devices_[t].role_zones), std::end(devices_[t].role_zones), 0u);
      devices_[t].role_zones[static_cast<int>(ZoneRole::kWal)] = wal_zones_[t];
    }
    AllocationRequest req;
    req.path = path;
    req.role = f->role;
    req.file_size = f->bytes;
    req.bytes = bytes;
    req.lifetime_hint = f->lifetime;
    std::vector<uint32_t> order;
    policy_->ChooseDevices(req, {devices_[0], devices_[1]}, &order);
    bool table = IsTable(path, *f);
    bool first_choice = true;
    for (uint32_t t : order) {
      if (t > 1) continue;
      if (!table) {  // join the open shared zone of this tier and role, if any
        auto open = open_shared_.find({static_cast<int>(t), static_cast<int>(f->role)});
        if (open != open_shared_.end() && zones_[open->second].room > 0) {
          f->zone = static_cast<int64_t>(open->second);
          policy_->OnAllocated(req, devices_[t]);
          return true;
        }
      }
      uint32_t keep = policy_->ReservedEmptyZones(devices_[t], f->role);
      if (devices_[t].free_zones > keep) {
        if (!first_choice) r->spilled_zones++;
        policy_->OnAllocated(req, devices_[t]);
        used_[t]++;
        if (f->role == ZoneRole::kWal) wal_zones_[t]++;
        SimZone z;
        z.tier = static_cast<int>(t);
        z.room = o_.zone_capacity;
        z.shared = !table;
        zones_.push_back(z);
        f->zone = static_cast<int64_t>(zones_.size() - 1);
        if (!table) open_shared_[{static_cast<int>(t), static_cast<int>(f->role)}] = zones_.size() - 1;
        return true;
      }
      first_choice = false;
    }
    return false;
  }

  void Delete(const std::string& path) {
    auto it = files_.find(path);
    if (it == files_.end()) return;
    for (const auto& [zone, bytes] : it->second.parts) {
      SimZone& z = zones_[zone];
      z.live -= std::min(z.live, bytes);
      bool open = z.shared && z.room > 0;
      if (z.live == 0 && !open && z.room != o_.zone_capacity + 1) {
        used_[z.tier]--;
        if (it->second.role == ZoneRole::kWal) wal_zones_[z.tier] -= std::min(wal_zones_[z.tier], 1u);
        z.room = o_.zone_capacity + 1;  // marks the zone freed
      }
    }
    files_.erase(it);
  }

  void Read(const TraceEvent& e, ReplayResult* r) {
    auto it = files_.find(e.path);
    if (it == files_.end() || it->second.parts.empty()) return;
    SimFile& f = it->second;
    int tier = zones_[f.parts.back().first].tier;
    uint64_t pos = 0;
    for (const auto& [zone, bytes] : f.parts) {
      if (e.offset < pos + bytes) {
        tier = zones_[zone].tier;
        break;
      }
      pos += bytes;
    }
    bool sequential = e.offset == f.last_read_end;
    f.last_read_end = e.offset + e.bytes;
    busy_[tier] += (sequential ? 0 : profile_[tier].read_access_us * 1e-6) +
                   static_cast<double>(e.bytes) / (profile_[tier].read_mib_per_s * kMiB);
    (tier == 0 ? r->read.fast : r->read.slow) += e.bytes;
  }

  const ReplayOptions& o_;
  std::shared_ptr<AllocationPolicy> policy_;
  std::shared_ptr<HintBus> bus_;
  LevelTracker tracker_;
  TimingProfile profile_[2];
  DeviceSpace devices_[2];
  std::unordered_map<std::string, SimFile> files_;
  std::vector<SimZone> zones_;
  std::map<std::pair<int, int>, size_t> open_shared_;  // (tier, role) -> zone
  uint32_t used_[2] = {0, 0};
  uint32_t wal_zones_[2] = {0, 0};
  double busy_[2] = {0, 0};
  bool started_ = false;
  uint64_t last_ns_ = 0, elapsed_ns_ = 0;
  double used_zone_ns_ = 0;
};

}  // namespace

std::string ReplayResult::ToJson() const {
  std::string levels;
  for (const auto& [name, b] : per_level) {
    levels += fmt::format("{}\"{}\":{{\"fast_bytes\":{},\"slow_bytes\":{}}}", levels.empty() ? "" : ",", name,
                          b.fast, b.slow);
  }
  return fmt::format(
      "{{\"per_level\":{{{}}},\"written\":{{\"fast_bytes\":{},\"slow_bytes\":{}}},"
      "\"read\":{{\"fast_bytes\":{},\"slow_bytes\":{}}},\"ssd_utilization\":{:.4f},"
      "\"ssd_utilization_max\":{:.4f},\"modeled_seconds\":{:.3f},\"fast_seconds\":{:.3f},"
      "\"slow_seconds\":{:.3f},\"spilled_zones\":{},\"events\":{},\"policy_state\":{}}}",
      levels, written.fast, written.slow, read.fast, read.slow, ssd_utilization, ssd_utilization_max,
      modeled_seconds, fast_seconds, slow_seconds, spilled_zones, events, policy_state);
}

Status ReplayTrace(TraceReader* trace, const ReplayOptions& options, ReplayResult* result,
                   const ProgressFn& progress) {
  *result = ReplayResult();
  TimingProfile fast, slow;
  Status s = FindTimingProfile(options.fast_profile, &fast);
  if (s.ok()) s = FindTimingProfile(options.slow_profile, &slow);
  if (!s.ok()) return s;
  if (options.ssd_zones == 0 || options.hdd_zones == 0 || options.zone_capacity == 0) {
    return Status::InvalidArgument("replay needs zones on both tiers and a zone capacity");
  }
  auto bus = std::make_shared<HintBus>();
  std::shared_ptr<AllocationPolicy> policy;
  s = NewAllocationPolicy(options.policy, bus, &policy);
  if (!s.ok()) return s;
  Simulation sim(options, policy, bus, fast, slow);
  for (;;) {
    TraceEvent e;
    bool eof = false;
    s = trace->Next(&e, &eof);
    if (!s.ok()) return s;
    if (eof) break;
    sim.Apply(e, result);
    result->ssd_utilization_max = std::max(result->ssd_utilization_max, sim.Utilization());
    if (++result->events % 4096 == 0 && progress) progress(trace->offset(), trace->size());
  }
  sim.Finish(result);
  if (progress) progress(trace->size(), trace->size());
  return Status::OK();
}

}  // namespace hintfs
