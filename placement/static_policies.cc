#include "placement/static_policies.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "hints/file_kind.h"
#include "hints/file_tag.h"

namespace hintfs {

uint64_t LsmAskAgainAfter(const AllocationRequest& request, const DeviceSpace& device) {
  if (device.tier != Tier::kFast || !IsInfoLogFile(request.path)) return UINT64_MAX;
  const uint64_t share = device.zone_capacity * device.total_zones / kInfoLogFastShare;
  return share > request.file_size ? share - request.file_size : 1;
}

ZoneRole LsmRoleFor(const std::string& path) {
  return IsWalFile(path) ? kWalClass : IsTableFile(path) ? kTableClass : ZoneRole::kData;
}

bool LsmFreesSpace(const AllocationRequest& request) { return IsTableFile(request.path); }

bool LsmKeepsOffFastTier(const AllocationRequest& request, uint64_t fast_bytes) {
  return IsInfoLogFile(request.path) && request.file_size >= fast_bytes / kInfoLogFastShare;
}

bool LsmTablesOwnZones(ZoneRole role, uint64_t table_bytes, uint64_t zone_capacity) {
  return role == kTableClass && 2 * table_bytes >= zone_capacity &&
         table_bytes + table_bytes / 32 <= zone_capacity;
}

bool LsmWritersShareZones(ZoneRole role) { return role == kWalClass || role == ZoneRole::kData; }

int64_t ShiftedSlots(int64_t slots, uint64_t old_aside, uint64_t new_aside, uint64_t table_bytes) {
  if (table_bytes == 0) return slots;
  const int64_t delta = (static_cast<int64_t>(new_aside) - static_cast<int64_t>(old_aside)) /
                        static_cast<int64_t>(table_bytes);
  return std::max<int64_t>(0, slots - delta);
}

void CountMountedTables(const std::vector<MountedFile>& files, TableLedger* ledger) {
  for (const MountedFile& f : files) {
    if (LsmRoleFor(f.path) != kTableClass) continue;
    FileTag tag = FileTagOf(f.tag);
    ledger->Found(f.path, tag.level, f.fast_bytes >= f.slow_bytes && f.fast_bytes > 0 ? Tier::kFast : Tier::kSlow,
                  f.fast_bytes + f.slow_bytes);
  }
}

void RelevelTables(const Hint& h, TableLedger* ledger) {
  // An output's size is its file's, whoever inferred the rest.
  if (h.kind == Hint::Kind::kCompactionOutput && h.bytes > 0) ledger->Sized(h.path, h.bytes);
  if (h.reason == "inferred") return;
  if (h.kind == Hint::Kind::kCompactionOutput) ledger->Relevel(h.path, h.level);
  if (h.kind == Hint::Kind::kCompactionEnd) {
    for (const HintFile& out : h.outputs) ledger->Relevel(out.path, out.level);
  }
}

uint32_t WalBudgetReserve(const DeviceSpace& device, ZoneRole role, uint64_t budget_bytes) {
  if (device.tier != Tier::kFast || role == kWalClass || role == kCacheClass || device.zone_capacity == 0) {
    return 0;  // the budget is theirs (the cache keeps within its own)
  }
  uint64_t budget_zones = (budget_bytes + device.zone_capacity - 1) / device.zone_capacity;
  uint64_t in_use = WalBudgetZonesInUse(device);
  return budget_zones > in_use ? static_cast<uint32_t>(budget_zones - in_use) : 0;
}

uint64_t WalBudgetZonesInUse(const DeviceSpace& device) {
  return uint64_t{device.role_zones[static_cast<int>(kWalClass)]} + device.role_zones[static_cast<int>(kCacheClass)];
}

uint64_t MovedBlockZones(const DeviceSpace& device) {
  return device.role_zones[static_cast<int>(kMovedBlocksClass)];
}

LevelThresholdPolicy::LevelThresholdPolicy(std::string name, int fast_levels, std::shared_ptr<HintBus> bus,
                                           LevelThresholdConfig config)
    : name_(std::move(name)),
      fast_levels_(fast_levels),
      bus_(bus),
      config_(std::move(config)),
      tracker_(bus),
      table_size_(config_.table_bytes) {
  subscription_ = bus_->Subscribe([this](const Hint& h) {
    table_size_.Note(h);
    std::lock_guard<std::mutex> l(mu_);
    RelevelTables(h, &ledger_);
    if (h.kind == Hint::Kind::kFileDeleted) ledger_.Deleted(h.path);
  });
}

LevelThresholdPolicy::~LevelThresholdPolicy() { bus_->Unsubscribe(subscription_); }

ZoneRole LevelThresholdPolicy::RoleForNewFile(const std::string& path) { return LsmRoleFor(path); }

void LevelThresholdPolicy::ChooseDevices(const AllocationRequest& request,
                                         const std::vector<DeviceSpace>& devices,
                                         std::vector<uint32_t>* order) {
  order->clear();
  int level = request.role == kWalClass ? LevelTracker::kWal
                                        : tracker_.LevelOf(request.path, request.lifetime_hint);
  // The fast tier's room in table slots: what other files (logs,
  // manifests) hold is set aside.
  // Blocks moved up by block tiering hold what is set aside for them
  // (SetAsideFastBytes), or the zones they fill if more.
  uint64_t room = 0, live = 0, blocks = 0;
  for (const DeviceSpace& d : devices) {
    if (d.tier != Tier::kFast) continue;
    room += d.zone_capacity * d.total_zones;
    blocks += d.zone_capacity * MovedBlockZones(d);
    live += d.live_bytes;
    table_size_.NoteFastZone(d.zone_capacity);
  }
  bool all_fast = fast_levels_ > TableLedger::kMaxLevels;
  bool fast = fast_levels_ >= 0 && level < fast_levels_ && (all_fast || !LsmKeepsOffFastTier(request, room));
  const uint64_t table_bytes = table_size_.bytes();
  {
    std::lock_guard<std::mutex> l(mu_);
    ledger_.SetSlotBytes(table_bytes);
    if (request.file_size == 0) ledger_.Expect(request.path, level);
    uint64_t tables = static_cast<uint64_t>(ledger_.fast_total()) * table_bytes;
    uint64_t others = live > tables + blocks ? live - tables - blocks : 0;
    others += std::max<uint64_t>(set_aside_bytes_, blocks);  // mu_ held
    capacity_slots_ = room > others ? static_cast<int64_t>((room - others) / table_bytes) : 0;
  }
  for (Tier tier : {Tier::kFast, Tier::kSlow}) {
    if (tier == Tier::kFast && !fast) continue;
    for (const DeviceSpace& d : devices) {
      if (d.tier == tier) order->push_back(d.index);
    }
  }
}

void LevelThresholdPolicy::OnAllocated(const AllocationRequest& request, const DeviceSpace& device) {
  std::lock_guard<std::mutex> l(mu_);
  ledger_.Landed(request.path, device.tier);
}

void LevelThresholdPolicy::SetAsideFastBytes(uint64_t bytes) {
  std::lock_guard<std::mutex> l(mu_);
  capacity_slots_ = ShiftedSlots(capacity_slots_, set_aside_bytes_, bytes, table_size_.bytes());
  set_aside_bytes_ = bytes;
}

void LevelThresholdPolicy::OnMountedFiles(const std::vector<MountedFile>& files) {
  std::lock_guard<std::mutex> l(mu_);
  CountMountedTables(files, &ledger_);
}

void LevelThresholdPolicy::OnMigrated(const std::string& path, Tier tier) {
  std::lock_guard<std::mutex> l(mu_);
  ledger_.Moved(path, tier);
}

TieringView LevelThresholdPolicy::Tiering() const {
  std::lock_guard<std::mutex> l(mu_);
  TieringView v;
  v.free_slots = std::max<int64_t>(0, capacity_slots_ - ledger_.fast_total());
  if (fast_levels_ > TableLedger::kMaxLevels) return v;  // all-fast: every level belongs there
  v.tiering_level = fast_levels_ < 0 ? -1 : fast_levels_ - 1;
  v.fast_at_tiering_level = v.tiering_level >= 0 ? ledger_.fast(v.tiering_level) : 0;
  v.reserved = v.fast_at_tiering_level + v.free_slots;
  return v;
}

std::string LevelThresholdPolicy::StateJson() const {
  TieringView v = Tiering();
  nlohmann::json levels = nlohmann::json::array();
  {
    std::lock_guard<std::mutex> l(mu_);
    for (int i = 0; i < TableLedger::kMaxLevels; i++) {
      levels.push_back({{"level", i}, {"allocated", ledger_.allocated(i)}, {"fast", ledger_.fast(i)}});
    }
  }
  return nlohmann::json{{"policy", name_},
                        {"migration", config_.services.migration},
                        {"table_bytes", table_size_.bytes()},
                        {"table_bytes_learned", !table_size_.configured()},
                        {"free_slots", v.free_slots},
                        {"levels", levels},
                        {"level_knowledge", tracker_.Stats()}}
      .dump();
}

}  // namespace hintfs
