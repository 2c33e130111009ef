#include "placement/hhzs_policy.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fs/clock.h"
#include "hints/file_tag.h"
#include "placement/static_policies.h"

namespace hintfs {

HhzsPolicy::HhzsPolicy(std::string name, std::shared_ptr<HintBus> bus, HhzsConfig config)
    : name_(std::move(name)),
      bus_(bus),
      config_(config),
      tracker_(bus),
      table_size_(config.table_bytes),
      temperatures_(bus) {
  subscription_ = bus_->Subscribe([this](const Hint& h) { OnHint(h); });
}

HhzsPolicy::~HhzsPolicy() { bus_->Unsubscribe(subscription_); }

ZoneRole HhzsPolicy::RoleForNewFile(const std::string& path) { return LsmRoleFor(path); }

void HhzsPolicy::OnHint(const Hint& h) {
  table_size_.Note(h);
  std::lock_guard<std::mutex> l(mu_);
  struct NotePeaks {  // after the hint has changed the counts
    HhzsPolicy* p;
    ~NotePeaks() {
      p->NotePeaksLocked();
      p->NoteReservationLocked();
    }
  } note{this};
  now_ns_ = std::max(now_ns_, h.time_ns);
  RelevelTables(h, &ledger_);
  auto clamp = [](int level) { return level >= 0 && level < kMaxLevels; };
  // A compaction's writes, for the wait of moves up: its begin and its
  // outputs below L0 (a flush, whose table is L0's, is no burst).
  if (((h.kind == Hint::Kind::kTableFileCreation && h.level > 0) || h.kind == Hint::Kind::kCompactionBegin) &&
      clamp(h.level) && h.time_ns >= written_ns_[h.level][0]) {
    written_ns_[h.level][1] = written_ns_[h.level][0];
    written_ns_[h.level][0] = h.time_ns;
  }
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
      ledger_.Deleted(h.path);
      break;
    }
    default:
      break;
  }
}

int HhzsPolicy::ClaimedTieringLevelLocked(int64_t capacity_slots, int stop_at, int64_t* below) const {
  *below = 0;
  for (int i = 0; i < kMaxLevels; i++) {
    const int64_t claim = ClaimLocked(i);
    if (i == stop_at || *below + claim >= capacity_slots) return i;
    *below += claim;
  }
  return kMaxLevels;
}

HhzsPolicy::Decision HhzsPolicy::DecideLocked(int level, bool from_flush, int64_t capacity_slots,
                                              int64_t leaving) const {
  Decision d;
  int64_t below = 0;  // sum_{j<t} (A_j + D_j)
  // A held L_t (level_hold_ns) stops the walk there: its claim fits now (the
  // claims have dipped), and it takes what the levels above leave.
  d.tiering_level = ClaimedTieringLevelLocked(
      capacity_slots, config_.level_hold_ns != 0 ? held_tiering_level_ : kMaxLevels, &below);
  d.reserved = d.tiering_level == kMaxLevels ? capacity_slots - below
                                             : std::max<int64_t>(0, capacity_slots - below);
  d.fast = from_flush || level < d.tiering_level ||
           (level == d.tiering_level && ledger_.fast(level) - leaving < d.reserved);
  return d;
}

HhzsPolicy::Decision HhzsPolicy::Decide(int level, bool from_flush, int64_t capacity_slots) const {
  std::lock_guard<std::mutex> l(mu_);
  return DecideLocked(level, from_flush, capacity_slots);
}

int64_t HhzsPolicy::allocated(int level) const {
  std::lock_guard<std::mutex> l(mu_);
  return ledger_.allocated(level);
}

int64_t HhzsPolicy::fast(int level) const {
  std::lock_guard<std::mutex> l(mu_);
  return ledger_.fast(level);
}

int64_t HhzsPolicy::ClaimLocked(int level) const {
  int64_t claim = ledger_.allocated(level) + DemandLocked(level);
  return config_.hold_ns == 0 ? claim : std::max(claim, peak_[level]);
}

void HhzsPolicy::NotePeaksLocked() {
  if (config_.hold_ns == 0) return;
  for (int i = 0; i < kMaxLevels; i++) {
    int64_t claim = ledger_.allocated(i) + DemandLocked(i);
    if (claim >= peak_[i] || now_ns_ >= peak_ns_[i] + config_.hold_ns) {
      peak_[i] = claim;
      peak_ns_[i] = now_ns_;
    }
  }
}

void HhzsPolicy::NoteTieringLevelLocked(int64_t capacity_slots) {
  if (config_.level_hold_ns == 0) return;
  int64_t below = 0;
  // L_t as the claims give it now.
  const int level = ClaimedTieringLevelLocked(capacity_slots, kMaxLevels, &below);
  if (level <= held_tiering_level_ || now_ns_ >= held_tiering_ns_ + config_.level_hold_ns) {
    held_tiering_level_ = level;
    held_tiering_ns_ = now_ns_;
  }
}

void HhzsPolicy::NoteReservationLocked() {
  if (config_.steady_room_ns == 0) return;
  Decision d = DecideLocked(0, false, last_capacity_slots_);
  if (d.tiering_level != reserved_history_level_) {
    reserved_history_.Clear();  // another level's room
    reserved_history_level_ = d.tiering_level;
  }
  if (d.tiering_level < kMaxLevels) reserved_history_.Note(now_ns_, d.reserved);
}

int64_t HhzsPolicy::DemandLocked(int level) const {
  // L0's demand is what the memtables will flush: HHZS counts the WAL zones
  // in use, since every memtable entry is also in the WAL.
  return level == 0 ? demand_[0] + wal_zones_ : demand_[level];
}

int64_t HhzsPolicy::demand(int level) const {
  std::lock_guard<std::mutex> l(mu_);
  return DemandLocked(level);
}

namespace {

const char* WalPeakName(HhzsConfig::WalPeak peak) {
  switch (peak) {
    case HhzsConfig::WalPeak::kHold:
      return "on";
    case HhzsConfig::WalPeak::kNone:
      return "off";
    case HhzsConfig::WalPeak::kAuto:
      break;
  }
  return "auto";
}

// The fast tier as placement counts it.
struct FastTier {
  uint64_t bytes = 0, zone_bytes = 0;
  uint64_t wal_bytes = 0;    // the zones of WAL files
  uint64_t held_bytes = 0;   // live bytes of tables and other files
  uint64_t data_zones = 0;   // zones of other files (logs, manifests)
  uint64_t table_zones = 0;  // zones of tables
  uint64_t blocks_bytes = 0; // zones of blocks moved up by block tiering
};

FastTier SurveyFastTier(const std::vector<DeviceSpace>& devices) {
  FastTier f;
  for (const DeviceSpace& d : devices) {
    if (d.tier != Tier::kFast) continue;
    f.table_zones += d.role_zones[static_cast<int>(kTableClass)];
    f.bytes += d.zone_capacity * d.total_zones;
    f.data_zones += d.role_zones[static_cast<int>(ZoneRole::kData)];
    f.zone_bytes = d.zone_capacity;
    f.wal_bytes += d.zone_capacity * d.role_zones[static_cast<int>(kWalClass)];
    f.blocks_bytes += d.zone_capacity * MovedBlockZones(d);
    uint64_t not_tables = std::min(d.live_bytes, d.zone_capacity * (WalBudgetZonesInUse(d) + MovedBlockZones(d)));
    f.held_bytes += d.live_bytes - not_tables;
  }
  return f;
}

// C in table slots: the fast capacity left once wal_aside (the WAL and cache
// budget, or the WAL's zones if the WAL outgrew it), blocks_aside and what
// other files (logs, manifests) hold are set aside: their live bytes, or
// the zones they pin if more (tables have a class of their own, so the
// zones of class data in use are theirs). Garbage does not count: the
// filesystem reclaims it before it lets anything spill. (Tables of format-1
// images are of class data: they count as other files until rewritten.)
// *tail_zones: the zones of tables past one per table, no slots, as far as
// there are oversized fast tables (finished larger than a zone) for them.
int64_t TableSlots(const FastTier& f, uint64_t wal_aside, uint64_t blocks_aside, int64_t fast_slots,
                   int64_t fast_tables, int64_t oversized, uint64_t table_bytes, int64_t* tail_zones) {
  // What tables hold: their slots, or the zones they fill if more (below).
  uint64_t table_held = std::max<uint64_t>(static_cast<uint64_t>(fast_slots), f.table_zones) * table_bytes;
  uint64_t others = f.held_bytes > table_held ? f.held_bytes - table_held : 0;
  others = std::max(others, f.data_zones * f.zone_bytes);
  // The cache's zones count within the budget only: past it they are
  // borrowed empty zones, given back to the first writer that needs one.
  uint64_t set_aside = wal_aside + blocks_aside + others;
  int64_t capacity = f.bytes > set_aside ? static_cast<int64_t>((f.bytes - set_aside) / table_bytes) : 0;
  // Tables longer than their zone hold more zones than there are tables
  // (their tails share zones, ZoneSlot::shared_overflow): those zones are no
  // slots. (A short table's zone is no such zone: the filesystem packs short
  // tables together when it needs their zones, FsImpl::CollectableLocked.)
  // Zones of table class past one per table are tails only as far as there
  // are such tables: while a compaction of a YCSB D phase ran, 16 zones of
  // table class held 13 fast tables, none larger than its zone, and counted
  // as tails the 3 others took 3 of the 14 slots (docs/benchmarks.md,
  // session 90).
  *tail_zones = 0;
  if (table_bytes >= f.zone_bytes / 2 && static_cast<int64_t>(f.table_zones) > fast_tables) {
    *tail_zones = std::min(static_cast<int64_t>(f.table_zones) - fast_tables, oversized);
    capacity = std::max<int64_t>(0, capacity - *tail_zones);
  }
  return capacity;
}

}  // namespace

void HhzsPolicy::ChooseDevices(const AllocationRequest& request, const std::vector<DeviceSpace>& devices,
                               std::vector<uint32_t>* order) {
  // Blocks moved up by block tiering hold the bytes set aside for them
  // (SetAsideFastBytes), or the zones they fill if more.
  const FastTier f = SurveyFastTier(devices);
  table_size_.NoteFastZone(f.zone_bytes);
  const uint64_t table_bytes = table_size_.bytes();
  int64_t fast_slots = 0, fast_tables = 0, oversized = 0;
  uint64_t budget = 0, set_aside_blocks = 0;
  {
    std::lock_guard<std::mutex> l(mu_);
    NoteTiersLocked(devices);
    ledger_.SetSlotBytes(table_bytes);
    fast_slots = ledger_.fast_total();
    fast_tables = ledger_.fast_tables();
    oversized = f.zone_bytes == 0 ? 0 : ledger_.FastLargerThan(f.zone_bytes);
    set_aside_blocks = std::max<uint64_t>(set_aside_bytes_, f.blocks_bytes);
    wal_zones_ = static_cast<int64_t>((f.wal_bytes + table_bytes - 1) / table_bytes);
    wal_peak_bytes_ = std::max(wal_peak_bytes_, f.wal_bytes);
    wal_use_.Note(now_ns_, static_cast<int64_t>(f.wal_bytes));
    budget = BudgetLocked(f.zone_bytes, f.bytes);
    CheckFastTierLocked(f.bytes, budget, table_bytes);
    NotePeaksLocked();
  }
  int64_t tail_zones = 0;
  const int64_t capacity = TableSlots(f, std::max(budget, f.wal_bytes), set_aside_blocks, fast_slots, fast_tables,
                                      oversized, table_bytes, &tail_zones);
  int level = request.role == kWalClass ? LevelTracker::kWal
                                             : tracker_.LevelOf(request.path, request.lifetime_hint);
  // Taken before mu_ (the tracker has its own lock).
  const std::vector<std::string> inputs = config_.replace_inputs && level >= 0 && request.file_size == 0
                                              ? tracker_.RunningCompactionInputs()
                                              : std::vector<std::string>();
  const Temperature temperature = temperatures_.Of(request.path);
  bool fast = true;
  {
    std::lock_guard<std::mutex> l(mu_);
    NoteCapacityLocked(capacity, f.wal_bytes, f.bytes, f.zone_bytes, std::max(budget, f.wal_bytes), tail_zones,
                       oversized);
    if (level == LevelTracker::kWal) {
      live_wals_.insert(request.path);  // the WAL always goes fast
    } else if (level >= 0 && level < kMaxLevels) {
      auto known = decided_.find(request.path);
      if (known != decided_.end()) {
        fast = known->second;  // a table keeps the tier it was given first
      } else {
        NoteTieringLevelLocked(capacity);
        fast = temperature == Temperature::kUnknown
                   ? DecideLocked(level, level == 0, capacity, ledger_.FastAmong(level, inputs)).fast
                   : !TemperatureBook::BelongsOnSlowTier(temperature);
        decided_[request.path] = fast;
        ledger_.Expect(request.path, level);
        (fast ? fast_decisions_ : slow_decisions_)++;
      }
    } else if (LsmKeepsOffFastTier(request, f.bytes)) {
      fast = false;
    }  // other files of unknown level (manifests, options) are small: fast.
    // So are block indexes, even while block tiering holds room up there:
    // the keeper reads every one at each mount, a random read per table
    // from the slow tier (over an HDD, 9 ms each: 2 s of a LevelDB mount's
    // 16 s C phase, docs/benchmarks.md, session 69).
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
  std::lock_guard<std::mutex> l(mu_);
  uint64_t budget = BudgetLocked(device.zone_capacity, device.zone_capacity * device.total_zones);
  return WalBudgetReserve(device, role, budget);
}

uint64_t HhzsPolicy::BudgetLocked(uint64_t zone_capacity, uint64_t fast_bytes) const {
  // HHZS sizes the WAL zones by the WAL's maximum; a configured budget the
  // WAL has outgrown would let tables take the zones it comes back for, and
  // the WAL would spill to the slow tier.
  uint64_t wal = ResolveWalBudget(config_.services.wal_budget_bytes, zone_capacity, fast_bytes);
  return std::max(wal, WalPeakLocked()) + config_.services.cache_budget_bytes;
}

void HhzsPolicy::NoteCapacityLocked(int64_t slots, uint64_t wal_bytes, uint64_t fast_bytes, uint64_t zone_bytes,
                                    uint64_t wal_aside, int64_t tail_zones, int64_t oversized) {
  last_capacity_slots_ = slots;
  last_wal_bytes_ = wal_bytes;
  last_fast_bytes_ = fast_bytes;
  last_zone_bytes_ = zone_bytes;
  capacity_wal_aside_ = wal_aside;
  last_tail_zones_ = tail_zones;
  // Zones of table class past one per table are not all tails (a deleted
  // table's zone until it is reset, a table being written): the warning
  // counts the tables themselves.
  oversized_fast_tables_ = oversized;
  tail_warning_ = TablesOutgrowZones(oversized_fast_tables_, ledger_.fast_tables(),
                                     zone_bytes == 0 ? 0 : fast_bytes / zone_bytes, zone_bytes);
  if (!tail_warning_.empty() && !tail_warned_) {
    fmt::print(stderr, "hintfs: {}: {}\n", name_, tail_warning_);
    tail_warned_ = true;
  }
  NoteReservationLocked();
}

uint64_t HhzsPolicy::WalPeakLocked() const {
  const bool held = config_.wal_peak == HhzsConfig::WalPeak::kHold ||
                    (config_.wal_peak == HhzsConfig::WalPeak::kAuto && tiers_far_);
  if (!held) return 0;
  if (config_.wal_window_ns == 0 || wal_use_.empty()) return wal_peak_bytes_;
  return static_cast<uint64_t>(wal_use_.Peak(now_ns_, config_.wal_window_ns));
}

void HhzsPolicy::NoteTiersLocked(const std::vector<DeviceSpace>& devices) {
  tiers_far_ = MovedReadSavesMuch(TierReadLatency(devices, Tier::kFast), TierReadLatency(devices, Tier::kSlow));
}

uint64_t HhzsPolicy::WalAsideLocked() const {
  return std::max(BudgetLocked(last_zone_bytes_, last_fast_bytes_), last_wal_bytes_);
}

void HhzsPolicy::NoteTime(uint64_t now_ns) {
  std::lock_guard<std::mutex> l(mu_);
  now_ns_ = std::max(now_ns_, now_ns);
  if (last_fast_bytes_ == 0) return;  // no capacity computed yet
  // Only the WAL's share can have changed with time alone; the rest of the
  // capacity waits for the next allocation, as before.
  const uint64_t aside = WalAsideLocked();
  if (aside == capacity_wal_aside_) return;
  last_capacity_slots_ = ShiftedSlots(last_capacity_slots_, capacity_wal_aside_, aside, table_size_.bytes());
  capacity_wal_aside_ = aside;
  NoteReservationLocked();
}

void HhzsPolicy::CheckFastTierLocked(uint64_t fast_bytes, uint64_t budget, uint64_t table_bytes) {
  last_budget_bytes_ = budget;
  std::string warning = FastTierUnusable(fast_bytes, budget, table_bytes);
  if (!warning.empty() && warning_.empty()) fmt::print(stderr, "hintfs: {}: {}\n", name_, warning);
  warning_ = std::move(warning);
}

uint64_t HhzsPolicy::WalBudgetForStateLocked() const {
  if (config_.services.wal_budget_bytes != kWalBudgetFromDevice) {
    return std::max(config_.services.wal_budget_bytes, WalPeakLocked());
  }
  // Resolved once the fast tier has been seen; 0 before.
  uint64_t cache = config_.services.cache_budget_bytes;
  return last_budget_bytes_ > cache ? last_budget_bytes_ - cache : 0;
}

std::string HhzsPolicy::warning() const {
  std::lock_guard<std::mutex> l(mu_);
  return WarningLocked();
}

const std::string& HhzsPolicy::WarningLocked() const { return warning_.empty() ? tail_warning_ : warning_; }

void HhzsPolicy::OnMount(const std::vector<DeviceSpace>& devices) {
  uint64_t fast_bytes = 0, zone_bytes = 0;
  for (const DeviceSpace& d : devices) {
    if (d.tier != Tier::kFast) continue;
    fast_bytes += d.zone_capacity * d.total_zones;
    zone_bytes = d.zone_capacity;
  }
  table_size_.NoteFastZone(zone_bytes);
  std::lock_guard<std::mutex> l(mu_);
  NoteTiersLocked(devices);
  CheckFastTierLocked(fast_bytes, BudgetLocked(zone_bytes, fast_bytes), table_size_.bytes());
}

void HhzsPolicy::OnAllocated(const AllocationRequest& request, const DeviceSpace& device) {
  std::lock_guard<std::mutex> l(mu_);
  // Counted where the first zone really landed (the fs may have spilled).
  if (ledger_.Landed(request.path, device.tier)) {
    NotePeaksLocked();
    NoteReservationLocked();
  }
}

void HhzsPolicy::SetAsideFastBytes(uint64_t bytes) {
  std::lock_guard<std::mutex> l(mu_);
  last_capacity_slots_ = ShiftedSlots(last_capacity_slots_, set_aside_bytes_, bytes, table_size_.bytes());
  set_aside_bytes_ = bytes;
  NoteReservationLocked();
}

void HhzsPolicy::OnMountedFiles(const std::vector<MountedFile>& files) {
  std::lock_guard<std::mutex> l(mu_);
  CountMountedTables(files, &ledger_);
}

void HhzsPolicy::OnMigrated(const std::string& path, Tier tier) {
  std::lock_guard<std::mutex> l(mu_);
  ledger_.Moved(path, tier);
}

TieringView HhzsPolicy::Tiering() const {
  // Taken before mu_ (the tracker has its own lock).
  const std::vector<std::string> inputs =
      config_.replace_inputs ? tracker_.RunningCompactionInputs() : std::vector<std::string>();
  std::lock_guard<std::mutex> l(mu_);
  Decision d = DecideLocked(0, false, last_capacity_slots_);
  TieringView v;
  v.known = last_fast_bytes_ != 0;  // capacity computed (ChooseDevices)
  v.free_slots = std::max<int64_t>(0, last_capacity_slots_ - ledger_.fast_total());
  if (d.tiering_level >= kMaxLevels) return v;
  v.tiering_level = d.tiering_level;
  v.reserved = d.reserved;
  v.fill_tiering_level = config_.fill_tiering_level;
  // With replace_inputs the outputs at L_t take the slots of the fast inputs
  // the compaction will delete, as placement counts them (ChooseDevices):
  // those inputs are no excess for capacity migration to move down. Counted,
  // a compaction at L_t whose outputs took those slots sent as many tables
  // down as it read, and the slots sat empty once its inputs were deleted.
  v.fast_at_tiering_level = ledger_.fast(d.tiering_level) - ledger_.FastAmong(d.tiering_level, inputs);
  for (int i = 0; i < d.tiering_level; i++) v.demand_below += DemandLocked(i);
  v.up_moves_wait_until_ns = UpMovesWaitUntilLocked(d.tiering_level);
  if (reserved_history_level_ == d.tiering_level) {
    v.reserved_history = reserved_history_;
    v.steady_room_ns = config_.steady_room_ns;
  }
  v.swap_margin = config_.swap_margin;
  return v;
}

uint64_t HhzsPolicy::UpMovesWaitUntilLocked(int tiering_level) const {
  // With every level fitting there is no L_t, and nothing to keep room for.
  if (tiering_level >= kMaxLevels) return 0;
  uint64_t latest[2] = {0, 0};  // the two latest writes above L_t
  for (int i = 0; i < tiering_level; i++) {
    for (uint64_t ns : written_ns_[i]) {
      if (ns > latest[0]) {
        latest[1] = latest[0];
        latest[0] = ns;
      } else if (ns > latest[1]) {
        latest[1] = ns;
      }
    }
  }
  // From the second latest: a lone compaction (a store's first, at open)
  // is no burst to keep room for.
  if (config_.up_moves_wait_ns == 0 || latest[1] == 0) return 0;
  return latest[1] + config_.up_moves_wait_ns;
}

std::string HhzsPolicy::StateJson() const {
  std::lock_guard<std::mutex> l(mu_);
  Decision d = DecideLocked(0, false, last_capacity_slots_);
  // How long migration still holds moves up (Tiering), or some of L_t's
  // room (its floor has not risen to the reservation yet): a harness that
  // waits for the store's background work to end waits for this too.
  const bool steady = reserved_history_level_ == d.tiering_level && !reserved_history_.empty();
  uint64_t until = UpMovesWaitUntilLocked(d.tiering_level);
  if (steady) until = std::max(until, reserved_history_.SettlesAt(config_.steady_room_ns));
  if (!config_.services.migration) until = 0;
  const uint64_t now = MonotonicNs();
  const int64_t steady_room = steady ? reserved_history_.Floor(now, config_.steady_room_ns) : d.reserved;
  nlohmann::json levels = nlohmann::json::array();
  for (int i = 0; i < kMaxLevels; i++) {
    levels.push_back({{"level", i}, {"allocated", ledger_.allocated(i)}, {"fast", ledger_.fast(i)}, {"demand", DemandLocked(i)}});
  }
  return nlohmann::json{{"policy", "hhzs"},
                        {"table_bytes", table_size_.bytes()},
                        {"table_bytes_learned", !table_size_.configured()},
                        {"tables_seen", table_size_.tables_seen()},
                        {"wal_budget_bytes", WalBudgetForStateLocked()},
                        {"warning", WarningLocked()},
                        {"cache_budget_bytes", config_.services.cache_budget_bytes},
                        {"cache", config_.services.cache},
                        {"migration", config_.services.migration},
                        {"hold_ms", config_.hold_ns / 1000000},
                        {"replace_inputs", config_.replace_inputs},
                        {"up_wait_ms", config_.up_moves_wait_ns / 1000000},
                        {"up_moves_held_ms", until > now ? (until - now + 999999) / 1000000 : 0},
                        {"steady_room_ms", config_.steady_room_ns / 1000000},
                        {"swap_margin", config_.swap_margin},
                        {"fill", config_.fill_tiering_level ? "tiering" : "upper"},
                        {"wal_peak_bytes", wal_peak_bytes_},
                        {"wal_window_ms", config_.wal_window_ns / 1000000},
                        {"wal_peak", WalPeakName(config_.wal_peak)},
                        {"tiers_far", tiers_far_},
                        {"level_hold_ms", config_.level_hold_ns / 1000000},
                        {"held_tiering_level", config_.level_hold_ns != 0 ? nlohmann::json(held_tiering_level_)
                                                                           : nlohmann::json(nullptr)},
                        {"wal_held_peak_bytes", WalPeakLocked()},
                        {"capacity_slots", last_capacity_slots_},
                        {"tail_zones", last_tail_zones_},
                        {"fast_tables_over_a_zone", oversized_fast_tables_},
                        {"tiering_level", d.tiering_level},
                        {"reserved_for_tiering_level", d.reserved},
                        {"steady_room", std::min(d.reserved, steady_room)},
                        {"live_wals", live_wals_.size()},
                        {"running_compactions", jobs_.size()},
                        {"fast_decisions", fast_decisions_},
                        {"slow_decisions", slow_decisions_},
                        {"levels", levels},
                        {"level_knowledge", tracker_.Stats()}}
      .dump();
}

}  // namespace hintfs
