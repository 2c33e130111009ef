#include "placement/replay.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "hints/file_tag.h"
#include "placement/level_tracker.h"
#include "placement/migration_planner.h"
#include "placement/policy_registry.h"
#include "placement/tiering.h"

namespace hintfs {

namespace {

constexpr double kMiB = 1048576.0;
// The migrator plans whenever no move runs, at most this often, and measures
// the slow tier's read rate over a longer window.
constexpr uint64_t kPlanIntervalNs = 50000000;
constexpr uint64_t kReadWindowNs = 1000000000;

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
  uint64_t created_ns = 0, last_append_ns = 0;
  uint64_t reads = 0;
};

// A table on its way to the other tier.
struct SimMove {
  std::string path;
  int to = 0;  // tier
  uint64_t bytes = 0;
  uint64_t end_ns = 0;
  std::vector<std::pair<size_t, uint64_t>> parts;  // its new zones
};

class Simulation {
 public:
  Simulation(const ReplayOptions& o, std::shared_ptr<AllocationPolicy> policy, std::shared_ptr<HintBus> bus,
             const TimingProfile& fast, const TimingProfile& slow)
      : o_(o), policy_(std::move(policy)), bus_(std::move(bus)), tracker_(bus_) {
    profile_[0] = fast;
    profile_[1] = slow;
    if (TieringSource* tiering = TieringOf(policy_.get()); tiering != nullptr && tiering->Services().migration) {
      tiering_ = tiering;
      migration_rate_ = static_cast<double>(tiering->Services().migration_rate);
      slow_read_iops_ = tiering->Services().slow_read_iops;
      if (slow_read_iops_ == 0 && slow.read_access_us > 0) {
        slow_read_iops_ = slow.parallel_units * 1e6 / slow.read_access_us;
      }
    }
    for (int t = 0; t < 2; t++) {
      devices_[t].index = static_cast<uint32_t>(t);
      devices_[t].tier = t == 0 ? Tier::kFast : Tier::kSlow;
      devices_[t].total_zones = t == 0 ? o.ssd_zones : o.hdd_zones;
      devices_[t].zone_capacity = o.zone_capacity;
    }
  }

  void Apply(const TraceEvent& e, ReplayResult* r) {
    Advance(e.time_ns);
    if (tiering_ != nullptr && migration_rate_ > 0) Migrate(r);
    switch (e.type) {
      case TraceEvent::Type::kHint:
        bus_->Publish(e.hint);
        break;
      case TraceEvent::Type::kCreate:
        files_[e.path].role = policy_->RoleForNewFile(e.path);
        files_[e.path].created_ns = now_;
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
    for (const auto& [path, f] : files_) {
      std::string level = LevelName(path, f);
      for (const auto& [zone, bytes] : f.parts) {
        (zones_[zone].tier == 0 ? r->resident[level].fast : r->resident[level].slow) += bytes;
      }
    }
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
    now_ = std::max(now_, now);
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
    return f.role != kWalClass && tracker_.LevelOf(path, f.lifetime) >= 0;
  }

  std::string LevelName(const std::string& path, const SimFile& f) {
    if (f.role == kWalClass) return "wal";
    int level = tracker_.LevelOf(path, f.lifetime);
    return level >= 0 ? "L" + std::to_string(level) : "other";
  }

  void Append(const std::string& path, uint64_t bytes, ReplayResult* r) {
    SimFile& f = files_[path];
    f.last_append_ns = now_;
    std::string level = LevelName(path, f);
    while (bytes > 0) {
      if (f.zone < 0 || zones_[f.zone].room == 0) {
        if (!NewZone(path, &f, bytes, r)) return;  // both tiers full: the bytes are dropped
      }
      SimZone& z = zones_[f.zone];
      uint64_t n = std::min(bytes, z.room);
      z.room -= n;
      z.live += n;
      live_[z.tier] += n;
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
      devices_[t].live_bytes = live_[t];
      std::copy(std::begin(role_zones_[t]), std::end(role_zones_[t]), std::begin(devices_[t].role_zones));
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
        role_zones_[t][static_cast<int>(f->role)]++;
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
    ReleaseParts(it->second.parts, it->second.role);
    files_.erase(it);
  }

  void ReleaseParts(const std::vector<std::pair<size_t, uint64_t>>& parts, ZoneRole role) {
    for (const auto& [zone, bytes] : parts) {
      SimZone& z = zones_[zone];
      uint64_t gone = std::min(z.live, bytes);
      z.live -= gone;
      live_[z.tier] -= gone;
      bool open = z.shared && z.room > 0;
      if (z.live == 0 && !open && z.room != o_.zone_capacity + 1) {
        used_[z.tier]--;
        uint32_t& in_role = role_zones_[z.tier][static_cast<int>(role)];
        in_role -= std::min(in_role, 1u);
        z.room = o_.zone_capacity + 1;  // marks the zone freed
      }
    }
  }

  // ---- migration: the planner once a period, one move at a time.
  void Migrate(ReplayResult* r) {
    if (move_ && now_ >= move_->end_ns) FinishMove(r);
    if (now_ >= read_window_end_ns_) {
      slow_read_rate_ = static_cast<double>(slow_reads_) / (static_cast<double>(kReadWindowNs) / 1e9);
      slow_reads_ = 0;
      read_window_end_ns_ = now_ + kReadWindowNs;
    }
    if (move_ || now_ < next_plan_ns_) return;
    next_plan_ns_ = now_ + kPlanIntervalNs;
    std::vector<TableView> tables;
    for (const auto& [path, f] : files_) {
      // Still being written: the filesystem would refuse to move it.
      if (!IsTable(path, f) || f.parts.empty() || f.last_append_ns + kReadWindowNs > now_) continue;
      TableView t;
      t.path = path;
      t.level = tracker_.LevelOf(path, f.lifetime);
      t.fast = std::all_of(f.parts.begin(), f.parts.end(), [&](const auto& p) { return zones_[p.first].tier == 0; });
      t.bytes = f.bytes;
      double age_s = static_cast<double>(now_ - std::min(now_, f.created_ns)) / 1e9;
      t.read_rate = static_cast<double>(f.reads) / std::max(age_s, 1e-3);
      t.compacting = tracker_.InRunningCompaction(path);
      tables.push_back(t);
    }
    std::sort(tables.begin(), tables.end(), [](const TableView& a, const TableView& b) { return a.path < b.path; });
    tiering_->NoteTime(now_);
    TieringView tiering = tiering_->Tiering();
    tiering.now_ns = now_;  // the trace's clock, as its hints'
    MigrationPlan plan = PlanMigration(tables, tiering, slow_read_rate_, slow_read_iops_);
    switch (plan.reason) {
      case MigrationPlan::Reason::kNone:
        return;
      case MigrationPlan::Reason::kCapacity: r->migration.capacity++; break;
      case MigrationPlan::Reason::kPopularity: r->migration.popularity++; break;
      case MigrationPlan::Reason::kFill: r->migration.fill++; break;
      case MigrationPlan::Reason::kSwap:
        r->migration.swap++;
        swap_in_ = plan.path;  // moves once the swapped-out table has left
        StartMove(plan.swap_out, /*to=*/1, r);
        return;
    }
    StartMove(plan.path, plan.to_fast ? 0 : 1, r);
  }

  void StartMove(const std::string& path, int to, ReplayResult* r) {
    const SimFile& f = files_.at(path);
    uint64_t need = (f.bytes + o_.zone_capacity - 1) / o_.zone_capacity;
    devices_[to].free_zones = devices_[to].total_zones - used_[to];
    uint32_t keep = policy_->ReservedEmptyZones(devices_[to], ZoneRole::kData);
    if (devices_[to].free_zones < need + keep) {
      r->migration.dropped++;
      swap_in_.clear();
      return;
    }
    SimMove m;
    m.path = path;
    m.to = to;
    m.bytes = f.bytes;
    m.end_ns = now_ + static_cast<uint64_t>(static_cast<double>(f.bytes) * 1e9 / migration_rate_);
    for (uint64_t left = f.bytes; left > 0;) {
      SimZone z;
      z.tier = to;
      uint64_t n = std::min(left, o_.zone_capacity);
      z.live = n;
      live_[to] += n;
      z.room = 0;
      zones_.push_back(z);
      used_[to]++;
      m.parts.emplace_back(zones_.size() - 1, n);
      left -= n;
    }
    move_ = std::move(m);
  }

  void FinishMove(ReplayResult* r) {
    SimMove m = std::move(*move_);
    move_.reset();
    auto it = files_.find(m.path);
    if (it == files_.end() || it->second.bytes != m.bytes) {  // deleted or rewritten meanwhile
      ReleaseParts(m.parts, ZoneRole::kData);
      r->migration.dropped++;
      swap_in_.clear();
      return;
    }
    SimFile& f = it->second;
    int from = 1 - m.to;
    ReleaseParts(f.parts, f.role);
    f.parts = m.parts;
    f.zone = -1;
    busy_[from] += static_cast<double>(m.bytes) / (profile_[from].read_mib_per_s * kMiB);
    busy_[m.to] += static_cast<double>(m.bytes) / (profile_[m.to].write_mib_per_s * kMiB);
    (m.to == 0 ? r->migration.to_fast_bytes : r->migration.to_slow_bytes) += m.bytes;
    policy_->OnMigrated(m.path, m.to == 0 ? Tier::kFast : Tier::kSlow);
    if (!swap_in_.empty()) {
      std::string next = std::move(swap_in_);
      swap_in_.clear();
      if (files_.count(next)) StartMove(next, 0, r);
    }
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
    // Migration ranks tables by random reads: a compaction's sequential
    // scan is no reason to move a table.
    if (!sequential) {
      f.reads++;
      if (tier == 1 && IsTable(e.path, f)) slow_reads_++;
    }
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
  uint64_t live_[2] = {0, 0};  // bytes of live files per tier
  uint32_t role_zones_[2][kZoneRoleCount] = {};  // zones in use per tier and class
  double busy_[2] = {0, 0};
  bool started_ = false;
  uint64_t now_ = 0, last_ns_ = 0, elapsed_ns_ = 0;
  double used_zone_ns_ = 0;
  // Migration (null tiering_: the policy has none).
  TieringSource* tiering_ = nullptr;
  double migration_rate_ = 0;  // bytes per second
  double slow_read_iops_ = 0;
  uint64_t next_plan_ns_ = 0;
  uint64_t read_window_end_ns_ = 0;
  uint64_t slow_reads_ = 0;    // table reads served by the slow tier in this window
  double slow_read_rate_ = 0;  // ... per second, in the last window
  std::optional<SimMove> move_;
  std::string swap_in_;        // the table a swap brings in after its partner left
};

}  // namespace

namespace {

std::string LevelsJson(const std::map<std::string, ReplayResult::Bytes>& levels) {
  std::string out;
  for (const auto& [name, b] : levels) {
    out += fmt::format("{}\"{}\":{{\"fast_bytes\":{},\"slow_bytes\":{}}}", out.empty() ? "" : ",", name, b.fast,
                       b.slow);
  }
  return out;
}

}  // namespace

std::string ReplayResult::ToJson() const {
  return fmt::format(
      "{{\"per_level\":{{{}}},\"resident\":{{{}}},\"migration\":{{\"to_fast_bytes\":{},\"to_slow_bytes\":{},"
      "\"capacity\":{},\"popularity\":{},\"swap\":{},\"fill\":{},\"dropped\":{}}},"
      "\"written\":{{\"fast_bytes\":{},\"slow_bytes\":{}}},"
      "\"read\":{{\"fast_bytes\":{},\"slow_bytes\":{}}},\"ssd_utilization\":{:.4f},"
      "\"ssd_utilization_max\":{:.4f},\"modeled_seconds\":{:.3f},\"fast_seconds\":{:.3f},"
      "\"slow_seconds\":{:.3f},\"spilled_zones\":{},\"events\":{},\"policy_state\":{}}}",
      LevelsJson(per_level), LevelsJson(resident), migration.to_fast_bytes, migration.to_slow_bytes,
      migration.capacity, migration.popularity, migration.swap, migration.fill, migration.dropped, written.fast, written.slow, read.fast, read.slow, ssd_utilization, ssd_utilization_max,
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
