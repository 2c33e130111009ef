// Filesystem: zone allocation, zone reset, garbage collection, usage reports.
#include <algorithm>
#include <chrono>
#include <thread>

#include <fmt/format.h>

#include "fs/fs_impl.h"
#include "fs/uri.h"

namespace hintfs {

void FsImpl::AddLiveLocked(const Extent& e, int sign) {
  ZoneSlot& slot = members_[e.device]->zones[e.zone];
  // Exact bytes: extents may share a device block (fs_copy.cc), so a
  // count of whole blocks would count a shared one twice. A padded last
  // block's padding counts as garbage.
  const uint64_t bytes = e.length;
  if (sign > 0) {
    slot.live += bytes;
    return;
  }
  slot.live -= std::min(slot.live, bytes);
  if (slot.live == 0) {
    // The op that released these bytes is queued in the current generation,
    // or (if a commit raced) the next one: reset only after both are durable.
    slot.dead_generation = journal_->pending_generation() + 1;
  }
}

void FsImpl::SetCopiedZoneClassLocked(const Extent& piece, ZoneRole role) {
  ZoneSlot& slot = members_[piece.device]->zones[piece.zone];
  slot.role = role;
  if (slot.class_recorded) return;
  // Without the record a remount would give the zone the class of whichever
  // of its files it met last: a zone of blocks moved up from many tables
  // would read back as a table zone, which the moves' owner no longer finds.
  MetadataOp op;
  op.type = MetadataOp::Type::kZoneClass;
  op.device = piece.device;
  op.zone = piece.zone;
  op.inode.role = role;
  journal_->Add(op);
  slot.class_recorded = true;
}

void FsImpl::JournalZoneEmptied(uint32_t device, uint32_t zone) {
  MetadataOp forget;
  forget.type = MetadataOp::Type::kBlockSums;
  forget.device = device;
  forget.zone = zone;
  journal_->Add(forget);
}

DeviceSpace FsImpl::DeviceSpaceLocked(uint32_t device) const {
  DeviceSpace sp;
  sp.index = device;
  sp.tier = members_[device]->info.tier;
  sp.zone_capacity = members_[device]->info.zone_capacity;
  sp.random_read_latency_us = members_[device]->device->random_read_latency_us();
  for (const ZoneSlot& s : members_[device]->zones) {
    if (s.reserved) continue;
    sp.total_zones++;
    if (s.used == 0 && !s.writer) sp.free_zones++;
    // Zones in use by a role (dead ones are free space soon).
    if (s.live > 0 || s.writer) sp.role_zones[static_cast<int>(s.role)]++;
    sp.free_bytes += s.capacity - s.used;
    sp.live_bytes += s.live;
  }
  // The empty zones kept back for GC and space-freeing writes are not the
  // policies' to plan with.
  const uint32_t kept = KeptBackZones();
  sp.total_zones -= std::min(sp.total_zones, kept);
  sp.free_zones -= std::min(sp.free_zones, kept);
  return sp;
}

bool FsImpl::PickZoneLocked(uint32_t device, ZoneRole role, bool for_gc, uint32_t* zone,
                            uint32_t keep_empty, bool overflow, uint8_t lifetime_class, bool any_class) {
  Member* m = members_[device].get();
  const uint64_t bs = m->block_size;
  // A partly written zone of the same role: fill it before opening another,
  // unless the policy gives each file of the role zones of its own (GC's
  // relocations may always fill); such a file's overflow past its first
  // zone fills the zones kept for overflows.
  const bool own_zones = !for_gc && RoleOwnsZonesLocked(m, role);
  const bool shared = own_zones && overflow;
  // best: the fullest partly written zone of the role and lifetime class;
  // other_class: of the role only, where GC goes when nothing else is left.
  int64_t best = -1, other_class = -1;
  uint64_t best_room = UINT64_MAX, other_room = UINT64_MAX;
  uint32_t empty = 0, active = 0;
  for (uint32_t z = 0; z < m->zones.size(); z++) {
    const ZoneSlot& s = m->zones[z];
    if (s.reserved) continue;
    if ((s.used > 0 && s.used < s.capacity) || (s.writer && s.used == 0)) active++;
    if (s.used == 0 && !s.writer) empty++;
    if ((own_zones && !(shared && s.shared_overflow)) || s.writer || s.used == 0 || s.live == 0 || s.role != role) {
      continue;
    }
    const uint64_t room = s.capacity - s.used;
    if (room < bs) continue;
    if (room < other_room) {
      other_class = z;
      other_room = room;
    }
    if (s.lifetime_class == lifetime_class && room < best_room) {
      best = z;
      best_room = room;
    }
  }
  auto take = [&](int64_t z) {
    *zone = static_cast<uint32_t>(z);
    m->zones[*zone].writer = true;
    return true;
  };
  if (best >= 0) return take(best);
  const bool may_open = empty > 0 && (for_gc || empty > options_.gc_reserve_zones + keep_empty);
  if (may_open && device == sb_.meta_device) active++;  // the journal's open zone
  if (may_open && (m->max_active == 0 || RoomForActiveZoneLocked(device, active))) {
    const uint32_t count = static_cast<uint32_t>(m->zones.size());
    const uint32_t from = m->seeks ? m->next_empty_from % count : 0;
    for (uint32_t i = 0; i < count; i++) {
      const uint32_t z = (from + i) % count;
      ZoneSlot& s = m->zones[z];
      if (!s.reserved && !s.writer && s.used == 0) {
        m->next_empty_from = z + 1;
        s.writer = true;
        s.role = role;
        s.shared_overflow = shared;
        s.lifetime_class = lifetime_class;
        *zone = z;
        return true;
      }
    }
  }
  // GC with no zone of its class and no empty one fills what a zone of
  // another lifetime class has left rather than fail to free space; so
  // does a writer that asks for any class.
  if ((for_gc || any_class) && other_class >= 0) return take(other_class);
  return false;
}

bool FsImpl::RoomForActiveZoneLocked(uint32_t device, uint32_t active) {
  Member* m = members_[device].get();
  // Near the limit, the device's own count decides: zones the filesystem
  // will not write again but never finished (a write that failed midway) or
  // the journal's next zone during a rotation hold places the count above
  // does not see. Zones that no writer holds and that can take no more data
  // are finished (no data changes) to give their places back.
  if (active + kActiveZoneSlack >= m->max_active) {
    std::vector<ZoneInfo> infos;
    if (m->device->ReportZones(0, static_cast<uint32_t>(m->zones.size()), &infos).ok()) {
      uint32_t on_device = 0;
      for (const ZoneInfo& info : infos) {
        if (!IsActiveCondition(info.condition) || info.index >= m->zones.size()) continue;
        const ZoneSlot& s = m->zones[info.index];
        if (!s.reserved && !s.writer && s.used >= s.capacity && m->device->FinishZone(info.index).ok()) {
          std::lock_guard<std::mutex> l(stats_mu_);
          stats_.zones_finished++;
          continue;
        }
        on_device++;
      }
      // The journal may open its next zone before this one sees its first write.
      if (device == sb_.meta_device) on_device++;
      active = std::max(active, on_device);
    }
  }
  // Finish the fullest idle zones to free active places.
  while (active >= m->max_active) {
    int64_t victim = -1;
    uint64_t victim_room = UINT64_MAX;
    for (uint32_t z = 0; z < m->zones.size(); z++) {
      const ZoneSlot& s = m->zones[z];
      if (s.reserved || s.writer || s.used == 0 || s.used >= s.capacity) continue;
      if (s.capacity - s.used < victim_room) {
        victim = z;
        victim_room = s.capacity - s.used;
      }
    }
    if (victim < 0) return false;
    if (!RetireZoneLocked(device, static_cast<uint32_t>(victim)).ok()) return false;
    active--;
  }
  return true;
}

namespace {

// Lends a file whose lock the caller holds to GC (Inode::lent_to_gc), from
// Begin until destruction, which first waits for a GC that may be moving the
// file's extents to finish.
class LoanToGc {
 public:
  LoanToGc(Inode* ino, std::mutex* gc_mu) : ino_(ino), gc_mu_(gc_mu) {}
  LoanToGc(const LoanToGc&) = delete;
  LoanToGc& operator=(const LoanToGc&) = delete;
  ~LoanToGc() {
    if (!lent_) return;
    std::lock_guard<std::mutex> l(*gc_mu_);
    ino_->lent_to_gc = false;
  }
  void Begin() {
    lent_ = true;
    ino_->lent_to_gc = true;
  }

 private:
  Inode* ino_;
  std::mutex* gc_mu_;
  bool lent_ = false;
};

}  // namespace

Status FsImpl::AcquireZone(Inode* ino, uint64_t bytes, uint32_t* device, uint32_t* zone) {
  AllocationRequest req;
  req.inode = ino->id;
  req.path = ino->created_as;
  req.role = ino->role;
  req.file_size = ino->extent_bytes();
  req.bytes = bytes;
  req.lifetime_hint = ino->lifetime_hint;
  req.write_clock = write_clock_.load();
  std::vector<uint32_t> order;
  std::vector<DeviceSpace> spaces;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (ino->lifetime_class < 0) ino->lifetime_class = policy_->LifetimeClass(req);
    for (uint32_t d = 0; d < members_.size(); d++) spaces.push_back(DeviceSpaceLocked(d));
    if ((fast_tier_classes_ >> static_cast<int>(ino->role)) & 1) {
      for (const DeviceSpace& sp : spaces) {
        if (sp.tier == Tier::kFast) order.push_back(sp.index);
      }
    } else {
      policy_->ChooseDevices(req, spaces, &order);
    }
  }
  // A device the policy prefers is reclaimed before the data spills to the
  // next one: first zones already dead, then zones a lender filled with
  // copies (SetZoneLender; they cost no copy), then garbage collection, for
  // as long as it frees zones (other writers may take what one round freed).
  constexpr int kGcRounds = 8;
  // Zones with room that other writers hold are taken once their writers
  // pause (RevokeIdleZoneLocked); a writer in the middle of a write (or
  // descheduled in it) lets go in a moment, so a write waits for that, a
  // millisecond at a time, rather than fail with their room unused.
  constexpr int kBusyHolderWaits = 200;
  int busy_holder_waits = 0;
  LoanToGc lend(ino, &gc_mu_);
  for (uint32_t d : order) {
    if (d >= members_.size()) continue;
    int given_back = 0;
    for (int attempt = 0; attempt <= kGcRounds; attempt++) {
      Reclaimable reclaimable;
      bool busy_holder = false;
      {
        std::lock_guard<std::mutex> l(mu_);
        if (PickWriterZoneLocked(ino, req, spaces[d], /*any_class=*/false, &busy_holder, zone)) {
          *device = d;
          return Status::OK();
        }
        reclaimable = ReclaimableLocked(d);
      }
      // A dead zone is worth a commit even with little written in it: a
      // write was refused with six such zones and 14.4 MiB of garbage on the
      // whole device (docs/benchmarks.md).
      const bool worth_reclaiming = reclaimable.garbage >= reclaimable.zone_capacity ||
                                    (attempt == 0 && reclaimable.dead_zone);
      const bool dead_zones_reclaimed = attempt > 0 || !worth_reclaiming;
      if (dead_zones_reclaimed && given_back < kMaxZonesGivenBack && spaces[d].tier == Tier::kFast &&
          LenderGaveBack(ino->role)) {
        given_back++;
        Status s = CommitAndReclaim();
        if (!s.ok()) return s;
        if (attempt > 0) attempt--;  // not a GC round: the zones given back are empty now
        continue;
      }
      if (!worth_reclaiming) {
        if (!busy_holder || busy_holder_waits >= kBusyHolderWaits) break;
        busy_holder_waits++;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        attempt--;  // not a GC round
        continue;
      }
      if (attempt == 0) {
        Status s = CommitAndReclaim();
        if (!s.ok()) return s;
      } else {
        uint32_t freed = 0, busy = 0;
        lend.Begin();
        Status s = CollectGarbageOn(2, &freed, static_cast<int32_t>(d), &busy);
        if (!s.ok() && !s.IsNoSpace()) return s;
        if (freed == 0 && busy == 0) break;
        // The victims' files were in use (GC never waits for a file's lock,
        // whose holder may be waiting for it): their holders let go in a
        // moment, and a busy zone is no reason to fail a write.
        if (freed == 0) std::this_thread::sleep_for(std::chrono::milliseconds(attempt));
      }
    }
    // Room left only in zones of other lifetime classes: mixed classes
    // cost GC later, a refused write costs the store now (a MANIFEST write
    // was refused with 60 MiB unwritten in other classes' zones,
    // docs/benchmarks.md). The class never sends a file to another device.
    std::lock_guard<std::mutex> l(mu_);
    if (PickWriterZoneLocked(ino, req, spaces[d], /*any_class=*/true, nullptr, zone)) {
      *device = d;
      return Status::OK();
    }
  }
  return NoFreeZone(ino);
}

bool FsImpl::PickWriterZoneLocked(Inode* ino, const AllocationRequest& req, const DeviceSpace& space,
                                  bool any_class, bool* busy_holder, uint32_t* zone) {
  const uint32_t d = space.index;
  const uint32_t keep_empty = KeptEmptyZones(space, ino->role, policy_->MayUseReserve(req));
  const bool overflow = req.file_size > 0;
  const uint8_t lifetime = static_cast<uint8_t>(ino->lifetime_class);
  // Within a lifetime class, writers at work at once (a flush's table and
  // blob file, a compaction's, a log and a manifest) take turns in the
  // class's zone rather than each open one: every zone open for a class is
  // room no other class may use, and an idle file's zone stays open until
  // the class fills it. Taking an idle writer's zone first halved what GC
  // relocated under BlobDB (docs/benchmarks.md). Without classes (class 0)
  // each writer keeps a zone of its own, which keeps its file's bytes
  // together and apart from others' (one greedy run that shared relocated
  // more than any that did not), unless the policy has the class's writers
  // take turns (AllocationPolicy::WritersShareZones: a store's logs).
  const uint32_t keep_every_empty = static_cast<uint32_t>(members_[d]->zones.size());
  const bool take_turns = lifetime != 0 || policy_->WritersShareZones(ino->role);
  const bool took_class_zone =
      take_turns && !any_class &&
      (PickZoneLocked(d, ino->role, /*for_gc=*/false, zone, keep_every_empty, overflow, lifetime) ||
       (RevokeIdleZoneLocked(d, ino->role, ino, nullptr, lifetime) &&
        PickZoneLocked(d, ino->role, /*for_gc=*/false, zone, keep_every_empty, overflow, lifetime)));
  if (!took_class_zone &&
      !PickZoneLocked(d, ino->role, /*for_gc=*/false, zone, keep_empty, overflow, lifetime, any_class) &&
      !(RevokeIdleZoneLocked(d, ino->role, ino, busy_holder) &&
        PickZoneLocked(d, ino->role, /*for_gc=*/false, zone, keep_empty, overflow, lifetime, any_class))) {
    return false;
  }
  policy_->OnAllocated(req, space);
  const uint64_t more = policy_->AskAgainAfter(req, space);
  ino->ask_again_at = more > UINT64_MAX - req.file_size ? UINT64_MAX : req.file_size + std::max<uint64_t>(more, 1);
  return true;
}

FsImpl::Reclaimable FsImpl::ReclaimableLocked(uint32_t device) {
  Reclaimable r;
  for (const ZoneSlot& s : members_[device]->zones) {
    if (s.reserved) continue;
    r.zone_capacity = s.capacity;
    r.dead_zone = r.dead_zone || (s.used > 0 && s.live == 0 && !s.writer);
    if (CollectableLocked(members_[device].get(), s)) r.garbage += s.used - s.live;
  }
  return r;
}

Status FsImpl::NoFreeZone(const Inode* ino) {
  std::vector<DeviceUsage> usage;
  Usage(&usage);
  uint64_t live = 0, garbage = 0;
  for (const DeviceUsage& u : usage) live += u.live_bytes, garbage += u.garbage_bytes;
  std::string zones;
  {
    std::lock_guard<std::mutex> l(mu_);
    zones = DescribeZonesLocked();
  }
  return Status::NoSpace(fmt::format("no free zone for {} ({} live, {} not reclaimable now; {})",
                                     ino->created_as.empty() ? std::to_string(ino->id) : ino->created_as,
                                     HumanSize(live), HumanSize(garbage), zones));
}

std::string FsImpl::DescribeZonesLocked() const {
  // Where the space is when a write finds none: kept back, in zones other
  // writers hold, in zones waiting to be reset, or written and live.
  uint32_t empty = 0, held = 0, partly = 0, dead = 0, full = 0;
  uint64_t held_room = 0, partly_room = 0;
  for (const auto& m : members_) {
    for (const ZoneSlot& s : m->zones) {
      if (s.reserved) continue;
      const uint64_t room = s.capacity - std::min(s.used, s.capacity);
      if (s.writer) {
        held++, held_room += room;
      } else if (s.used == 0) {
        empty++;
      } else if (s.live == 0) {
        dead++;
      } else if (room >= m->block_size) {
        partly++, partly_room += room;
      } else {
        full++;
      }
    }
  }
  return fmt::format("data zones: {} empty, {} held by writers ({} room), {} partly written ({} room), "
                     "{} dead awaiting reset, {} full",
                     empty, held, HumanSize(held_room), partly, HumanSize(partly_room), dead, full);
}

bool FsImpl::LenderGaveBack(ZoneRole writer_class) {
  // The lender's own writes (closing the file it gives back) may need a
  // zone too: they never ask it again.
  thread_local bool in_lender = false;
  if (in_lender) return false;
  std::lock_guard<std::mutex> l(lender_mu_);
  if (!lender_ || writer_class == lender_class_) return false;
  in_lender = true;
  const bool gave = lender_(writer_class);
  in_lender = false;
  return gave;
}

bool FsImpl::RevokeIdleZoneLocked(uint32_t device, ZoneRole role, const Inode* self, bool* busy_holder,
                                  int only_class) {
  Member* m = members_[device].get();
  if (RoleOwnsZonesLocked(m, role)) return false;  // its zones are its own
  for (uint32_t z = 0; z < m->zones.size(); z++) {
    ZoneSlot& slot = m->zones[z];
    Inode* holder = slot.holder;
    if (holder == nullptr || holder == self || slot.role != role ||
        (only_class >= 0 && slot.lifetime_class != only_class) || slot.capacity - slot.used < m->block_size) {
      continue;
    }
    // Never wait: a busy holder is not idle, and waiting here could deadlock.
    std::unique_lock<std::mutex> held(holder->mu, std::try_to_lock);
    if (!held.owns_lock()) {
      if (busy_holder != nullptr) *busy_holder = true;
      continue;
    }
    slot.writer = false;
    slot.holder = nullptr;
    holder->zone_device = -1;
    return true;
  }
  return false;
}

Status FsImpl::FlushDirtyDevices() {
  for (auto& m : members_) {
    if (m->dirty.exchange(false)) {
      Status s = m->device->Flush();
      if (!s.ok()) {
        m->dirty = true;
        return s;
      }
    }
  }
  return Status::OK();
}

Status FsImpl::CommitAndReclaim() {
  Status s = journal_->Commit();
  if (!s.ok()) return s;
  bool waiting = false;
  {
    std::lock_guard<std::mutex> l(mu_);
    uint64_t committed = journal_->committed_generation();
    for (auto& m : members_) {
      for (const ZoneSlot& z : m->zones) {
        waiting = waiting || (!z.reserved && z.used > 0 && z.live == 0 && z.dead_generation > committed);
      }
    }
  }
  if (waiting) {
    s = journal_->Commit();  // closes the generation the zones wait for
    if (!s.ok()) return s;
  }
  ReclaimZones();
  return Status::OK();
}

void FsImpl::ReclaimZones() {
  if (options_.read_only) return;
  std::lock_guard<std::mutex> l(mu_);
  uint64_t committed = journal_->committed_generation();
  for (uint32_t d = 0; d < members_.size(); d++) {
    Member* m = members_[d].get();
    for (uint32_t z = 0; z < m->zones.size(); z++) {
      ZoneSlot& s = m->zones[z];
      if (s.reserved || s.used == 0 || s.live != 0 || s.writer || s.readers != 0 ||
          s.dead_generation > committed) {
        continue;
      }
      if (!m->device->ResetZone(z).ok()) continue;  // stays garbage; retried later
      const uint64_t zone_start = m->device->geometry().zone_start(z);
      recent_.Forget(d, zone_start, zone_start + m->device->geometry().zone_size);
      s.used = 0;
      s.role = ZoneRole::kFree;
      s.dead_generation = 0;
      s.capacity = m->data_capacity;  // a zone from before checksums gets a trailer's room too
      if (s.checksummed || s.sealed || s.class_recorded) JournalZoneEmptied(d, z);
      s.checksummed = false;
      s.sealed = s.table_known = s.shared_overflow = s.class_recorded = false;
      s.crcs.clear();
      std::lock_guard<std::mutex> sl(stats_mu_);
      stats_.zone_resets++;
    }
  }
}

bool FsImpl::RoleOwnsZonesLocked(const Member* m, ZoneRole role) {
  return policy_->ZonePerFile(role, m->info.zone_capacity);
}

bool FsImpl::CollectableLocked(const Member* m, const ZoneSlot& s) {
  if (!RoleOwnsZonesLocked(m, s.role)) return true;
  return s.used >= s.capacity && 2 * s.live < s.capacity;
}

Status FsImpl::Usage(std::vector<DeviceUsage>* usage) {
  std::lock_guard<std::mutex> l(mu_);
  usage->clear();
  for (uint32_t d = 0; d < members_.size(); d++) {
    const Member* m = members_[d].get();
    DeviceUsage u;
    u.index = d;
    u.uri = m->info.uri;
    u.tier = m->info.tier;
    u.zones = m->info.zone_count;
    u.zone_size = m->info.zone_size;
    u.zone_capacity = m->info.zone_capacity;
    u.zone_data_bytes = m->data_capacity;
    u.raw_bytes = u.zone_size * u.zones;
    u.random_read_iops = m->device->random_read_iops();
    u.random_read_latency_us = m->device->random_read_latency_us();
    u.busy_ns = m->device->busy_ns();
    for (const ZoneSlot& s : m->zones) {
      if (s.reserved) {
        u.reserved_bytes += u.zone_size;
        continue;
      }
      u.data_zones++;
      if (s.used == 0) u.empty_zones++;
      if (s.live > 0 || s.writer) u.role_zones[static_cast<int>(s.role)]++;
      u.unusable_bytes += u.zone_size - s.capacity;
      u.live_bytes += s.live;
      u.garbage_bytes += s.used - s.live;
      u.free_bytes += s.capacity - s.used;
    }
    // Live bytes are the files' exact bytes on the device (AddLiveLocked):
    // no walk of every file's extents under the lock every read takes
    // (block tiering asks for the usage several times a second, and its
    // tables have hundreds of extents each).
    u.file_bytes = u.live_bytes;
    usage->push_back(u);
  }
  return Status::OK();
}

Status FsImpl::Zones(std::vector<ZoneReport>* zones) {
  zones->clear();
  for (uint32_t d = 0; d < members_.size(); d++) {
    Member* m = members_[d].get();
    std::vector<ZoneInfo> infos;
    if (m->device == nullptr) return Status::IOError("filesystem is unmounted");
    Status s = m->device->ReportZones(0, m->device->geometry().zone_count, &infos);
    if (!s.ok()) return s;
    std::lock_guard<std::mutex> l(mu_);
    for (const ZoneInfo& info : infos) {
      const ZoneSlot& slot = m->zones[info.index];
      ZoneReport r;
      r.device = d;
      r.zone = info.index;
      r.role = slot.role;
      r.condition = info.condition;
      r.start = info.start;
      r.write_pointer = info.write_pointer;
      r.capacity = info.capacity;
      r.live_bytes = slot.live;
      r.writing = slot.writer;
      zones->push_back(r);
    }
  }
  return Status::OK();
}

}  // namespace hintfs
