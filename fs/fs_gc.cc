// Filesystem: garbage collection. A victim zone's live extents are copied
// into other zones of its device (fs_copy.cc), checked, and switched to in
// one journal op per file; the emptied zone is reset once that op commits.
#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "fs/fs_impl.h"

namespace hintfs {

bool FsImpl::PickVictimLocked(std::set<std::pair<uint32_t, uint32_t>>* skip, int32_t only_device,
                              uint32_t* device, uint32_t* zone) {
  const std::map<std::pair<uint32_t, uint32_t>, ExpectedStay> stays = ExpectedStaysLocked();
  // Greedy (the most garbage) when the policy estimates no file's remaining
  // life; else the most garbage times how long the space stays free, per
  // byte copied (AllocationPolicy::RemainingLife).
  double best = 0;
  bool found = false;
  for (uint32_t d = 0; d < members_.size(); d++) {
    if (only_device >= 0 && d != static_cast<uint32_t>(only_device)) continue;
    const Member* m = members_[d].get();
    const double horizon = static_cast<double>(m->zones.size()) * static_cast<double>(m->data_capacity);
    std::map<ZoneRole, uint64_t> room;  // GcRoomLocked's, counting every zone, by role
    for (uint32_t z = 0; z < m->zones.size(); z++) {
      const ZoneSlot& s = m->zones[z];
      // Less garbage than a copy's padding is not worth a relocation. A zone
      // being read is fair game: readers keep the extents they resolved, and
      // the reset waits until none is left in it (ReclaimZones). Passing over
      // such zones left the garbage of a fast tier whose zones of moved blocks
      // are read all the time (block tiering under a hot set) in place for
      // good (docs/benchmarks.md).
      const uint64_t padding = kGcPaddingBlocks * m->block_size;
      if (s.reserved || s.writer || s.live == 0 || s.used <= s.live + padding || !CollectableLocked(m, s) ||
          skip->count({d, z})) {
        continue;
      }
      // A victim whose live bytes do not fit elsewhere cannot be freed: GC
      // tries only a few, and the most garbage per byte copied is not always
      // the fewest live bytes.
      auto r = room.find(s.role);
      if (r == room.end()) r = room.emplace(s.role, GcRoomLocked(d, s.role, UINT32_MAX)).first;
      if (r->second - GcRoomInZone(m, s, s.role) < s.live + padding) continue;
      const double garbage = static_cast<double>(s.used - s.live);
      double score = garbage;
      if (!stays.empty()) {
        // Bytes without an estimate stay as long as any: past a device's
        // worth of writes, space freed is as good as free for good.
        auto it = stays.find({d, z});
        const double known = it == stays.end() ? 0 : static_cast<double>(it->second.bytes);
        const double weighted = it == stays.end() ? 0 : it->second.byte_life;
        const double live = static_cast<double>(s.live);
        const double stay = (weighted + std::max(0.0, live - known) * horizon) / live;
        score = garbage * stay / (live + static_cast<double>(padding));
      }
      if (!found || score > best) {
        best = score;
        *device = d;
        *zone = z;
        found = true;
      }
    }
  }
  return found;
}

std::map<std::pair<uint32_t, uint32_t>, FsImpl::ExpectedStay> FsImpl::ExpectedStaysLocked() {
  std::map<std::pair<uint32_t, uint32_t>, ExpectedStay> stays;
  const uint64_t clock = write_clock_.load();
  for (const auto& [id, ino] : inodes_) {
    if (ino->type != FileType::kFile || ino->extents.empty()) continue;
    const uint64_t life = policy_->RemainingLife(ino->created_as, clock);
    if (life == AllocationPolicy::kLifeUnknown) continue;
    for (const Extent& e : ino->extents) {
      const Member* m = members_[e.device].get();
      const uint64_t horizon = m->zones.size() * m->data_capacity;
      ExpectedStay& stay = stays[{e.device, e.zone}];
      stay.bytes += e.length;
      stay.byte_life += static_cast<double>(e.length) * static_cast<double>(std::min(life, horizon));
    }
  }
  return stays;
}

Status FsImpl::CollectGarbage(uint32_t max_zones, uint32_t* zones_freed) {
  // Called holding no file's lock (Filesystem::CollectGarbage).
  return CollectGarbageOn(max_zones, zones_freed, -1, nullptr, /*wait_for_files=*/true);
}

Status FsImpl::CollectGarbageOn(uint32_t max_zones, uint32_t* zones_freed, int32_t only_device,
                                uint32_t* zones_busy, bool wait_for_files) {
  *zones_freed = 0;
  if (zones_busy != nullptr) *zones_busy = 0;
  Status s = CheckWritable();
  if (!s.ok()) return s;
  std::lock_guard<std::mutex> gl(gc_mu_);
  std::set<std::pair<uint32_t, uint32_t>> skip;
  // A victim whose files are in use is passed over and does not count
  // against max_zones: writers that wait for space hold their files, and
  // retrying only the zones with the most garbage, which held their data,
  // failed writes with a third of the device garbage.
  for (uint32_t tried = 0; tried < max_zones;) {
    uint32_t d = 0, z = 0;
    {
      std::lock_guard<std::mutex> l(mu_);
      if (!PickVictimLocked(&skip, only_device, &d, &z)) break;
    }
    skip.insert({d, z});
    bool freed = false;
    s = RelocateZone(d, z, wait_for_files, &freed);
    if (!s.ok() && !s.IsBusy() && !s.IsNoSpace()) return s;
    if (s.IsBusy()) {
      if (zones_busy != nullptr) ++*zones_busy;
      continue;
    }
    tried++;
    if (!freed) continue;
    ++*zones_freed;
    // Reset now, so that the next victim's copies may go into it: a device
    // with one empty zone to spare otherwise filled it with the first
    // victim's copies, found no room for the second's, and ended where it
    // started, so writers waiting for space failed with a quarter of it
    // garbage.
    s = CommitAndReclaim();
    if (!s.ok()) return s;
  }
  {
    std::lock_guard<std::mutex> l(stats_mu_);
    stats_.gc_runs++;
  }
  return CommitAndReclaim();
}

uint64_t FsImpl::GcRoomInZone(const Member* m, const ZoneSlot& s, ZoneRole role) {
  if (s.reserved || s.writer) return 0;
  if (s.used == 0) return s.capacity;  // GC may open any empty zone
  if (s.live > 0 && s.role == role && s.capacity - s.used >= m->block_size) {
    return s.capacity - s.used;  // a partly written zone of the role (PickZoneLocked)
  }
  return 0;
}

uint64_t FsImpl::GcRoomLocked(uint32_t device, ZoneRole role, uint32_t victim) const {
  const Member* m = members_[device].get();
  uint64_t room = 0;
  for (uint32_t z = 0; z < m->zones.size(); z++) {
    if (z != victim) room += GcRoomInZone(m, m->zones[z], role);
  }
  return room;
}

Status FsImpl::RelocateZone(uint32_t device, uint32_t victim, bool wait_for_files, bool* freed) {
  *freed = false;
  Member* m = members_[device].get();
  std::vector<std::shared_ptr<Inode>> owners;
  ZoneRole role;
  uint8_t victim_class = 0;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (m->zones[victim].writer) return Status::Busy("zone in use");
    // Copies that cannot all be placed are garbage the moment they fail.
    // The packed copy pads its last block in each zone it fills.
    if (GcRoomLocked(device, m->zones[victim].role, victim) < m->zones[victim].live + kGcPaddingBlocks * m->block_size) {
      return Status::NoSpace("no room to relocate a zone");
    }
    // Held like a writer's zone so that nothing appends to it and it is
    // not reset meanwhile.
    m->zones[victim].writer = true;
    role = m->zones[victim].role;
    victim_class = m->zones[victim].lifetime_class;
    for (auto& [id, ino] : inodes_) {
      for (const Extent& e : ino->extents) {
        if (e.device == device && e.zone == victim) {
          owners.push_back(ino);
          break;
        }
      }
    }
  }
  auto release_victim = [&] {
    std::lock_guard<std::mutex> l(mu_);
    m->zones[victim].writer = false;
  };
  // The files' extents as they are now, each under its lock for a moment
  // only: the copy runs without them, so readers of the files go on (a zone
  // of moved blocks holds blocks of hundreds of tables, and holding their
  // locks through its copy stalled every read of a hot table for most of a
  // second, docs/benchmarks.md). A file that changes meanwhile keeps its
  // extents and the copy of them is garbage. Readers hold a file's lock
  // for a moment each, but four of them on two cores held it at GC's one
  // try now and then, and the zone they read was passed over (CI's
  // GcCollectsAZoneWhileItIsRead): a caller holding no file's lock waits a
  // little, as the switch does. One that holds a file's lock would wait for
  // itself: an overwrite's GC spent 20 ms on each victim of its own file.
  std::vector<std::vector<Extent>> before(owners.size());
  for (size_t i = 0; i < owners.size(); i++) {
    std::unique_lock<std::mutex> lk;
    const bool locked = wait_for_files ? LockForGcWithin(owners[i].get(), kSwitchLockWait, &lk)
                                       : LockForGc(owners[i].get(), &lk);
    if (!locked) {
      release_victim();
      return Status::Busy("zone in use");
    }
    before[i] = owners[i]->extents;
  }
  // Every zone GC copies into stays held until the copies are counted live:
  // a written zone with no live bytes and no holder would be reset.
  CopyTarget target;
  target.devices = {device};
  target.role = role;
  target.for_gc = true;
  // Under a policy with lifetime classes, survivors go to zones of their
  // own; without (every zone of class 0), GC fills as it always did.
  target.lifetime_class = victim_class == 0 ? 0 : kGcLifetimeClass;
  std::vector<RelocatedExtent> copies;
  Status result = CopyZoneExtents(device, victim, before, &target, &copies);
  if (result.ok()) {
    std::vector<Extent> pieces;
    for (const RelocatedExtent& c : copies) pieces.insert(pieces.end(), c.pieces.begin(), c.pieces.end());
    result = VerifyCopies(pieces, "GC");
  }
  uint64_t moved = 0;
  if (result.ok()) moved = SwitchToCopies(role, owners, before, &copies);
  ReleaseCopyZones(&target);
  release_victim();
  {
    std::lock_guard<std::mutex> l(stats_mu_);
    stats_.gc_bytes_moved += moved;
  }
  std::lock_guard<std::mutex> l(mu_);
  *freed = m->zones[victim].live == 0;
  if (*freed) {
    std::lock_guard<std::mutex> sl(stats_mu_);
    stats_.gc_zones_freed++;
  }
  return result;
}

bool FsImpl::LockForGcWithin(Inode* ino, std::chrono::microseconds wait, std::unique_lock<std::mutex>* lock) {
  // Tries again and again rather than blocking: the bound holds even if the
  // holder waits for this GC and never lets go.
  const auto give_up = std::chrono::steady_clock::now() + wait;
  while (!LockForGc(ino, lock)) {
    if (std::chrono::steady_clock::now() >= give_up) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return true;
}

bool FsImpl::LockForGc(Inode* ino, std::unique_lock<std::mutex>* lock) {
  // Never wait for an inode lock: its holder may be waiting for this GC. A
  // file lent to GC is held by a writer that waits for it (gc_mu_, held by
  // the caller, keeps the loan in force until GC returns).
  if (ino->lent_to_gc) return true;
  *lock = std::unique_lock<std::mutex>(ino->mu, std::try_to_lock);
  return lock->owns_lock();
}

Status FsImpl::CopyZoneExtents(uint32_t device, uint32_t zone, const std::vector<std::vector<Extent>>& extents,
                               CopyTarget* target, std::vector<RelocatedExtent>* copies) {
  std::vector<Extent> sources;
  for (size_t owner = 0; owner < extents.size(); owner++) {
    for (size_t i = 0; i < extents[owner].size(); i++) {
      const Extent& old = extents[owner][i];
      if (old.device != device || old.zone != zone) continue;
      RelocatedExtent c;
      c.owner = owner;
      c.index = i;
      c.old = old;
      sources.push_back(old);
      copies->push_back(std::move(c));
    }
  }
  // Packed: the survivors take their own bytes, not a padded block each.
  std::vector<std::vector<Extent>> pieces;
  Status s = CopyPacked(sources, /*device_order=*/true, target, nullptr, &pieces);
  if (!s.ok()) return s;
  for (size_t k = 0; k < copies->size(); k++) (*copies)[k].pieces = std::move(pieces[k]);
  return Status::OK();
}

uint64_t FsImpl::SwitchToCopies(ZoneRole role, const std::vector<std::shared_ptr<Inode>>& owners,
                                const std::vector<std::vector<Extent>>& before, std::vector<RelocatedExtent>* copies) {
  uint64_t moved = 0;
  size_t next = 0;  // copies are in owner order
  for (size_t owner = 0; owner < owners.size(); owner++) {
    size_t first = next;
    while (next < copies->size() && (*copies)[next].owner == owner) next++;
    Inode* ino = owners[owner].get();
    std::unique_lock<std::mutex> lk;
    // Busy: its copy is garbage. Copies are made, so wait a little for a
    // holder in the middle of an append or a read: thrown away, a copy
    // spends room and frees nothing, and a round that took the last empty
    // zone so left GC none to copy into (docs/benchmarks.md).
    if (!LockForGcWithin(ino, kSwitchLockWait, &lk)) continue;
    std::lock_guard<std::mutex> l(mu_);
    size_t last_copied = 0;
    for (size_t k = first; k < next; k++) last_copied = std::max(last_copied, (*copies)[k].index);
    // A file changed otherwise keeps its extents (the copy is garbage). A
    // log appended to while GC copied keeps the copies of its older
    // extents: without lifetime classes a store's info log has extents in
    // most zones, and a victim holding one was left unfreed.
    if (ino->deleted || !OnlyAppendedTo(before[owner], ino->extents, last_copied)) continue;
    size_t shift = 0;  // extents the file gained before this one (an extent may become several)
    for (size_t k = first; k < next; k++) {
      RelocatedExtent& c = (*copies)[k];
      const size_t i = c.index + shift;
      AddLiveLocked(c.old, -1);
      for (const Extent& p : c.pieces) {
        AddLiveLocked(p, +1);
        SetCopiedZoneClassLocked(p, role);
      }
      std::vector<Extent>& extents = ino->extents;
      extents.erase(extents.begin() + static_cast<long>(i));
      extents.insert(extents.begin() + static_cast<long>(i), c.pieces.begin(), c.pieces.end());
      ino->first_dirty = std::min(ino->first_dirty, i);
      shift += c.pieces.size() - 1;
      moved += c.old.length;
    }
    QueueInodeLocked(ino);
  }
  return moved;
}

}  // namespace hintfs
