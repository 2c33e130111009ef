// Filesystem: moving a file's data between tiers (migration).
//
// The copy is made without the file's lock, so readers go on reading the old
// extents while it runs; the switch happens under the lock only if the file
// did not change meanwhile. Until the journal record that switches the
// extents is durable, the copy is unreferenced data in zones the migration
// holds: a crash leaves it as garbage that mount reclaims, and the file as it
// was. After the record, the old extents are garbage.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "fs/crc32c.h"
#include "fs/fs_impl.h"

namespace hintfs {

namespace {

// Copy unit: large enough for sequential device speed, small enough that the
// rate limiter paces the copy smoothly.
constexpr uint64_t kCopyChunk = 1 << 20;

}  // namespace

Status FsImpl::CopyExtents(const std::vector<Extent>& extents, ZoneRole role, Tier to, RateLimiter* limiter,
                           std::vector<std::pair<uint32_t, uint32_t>>* held, std::vector<MovedExtent>* moved,
                           uint64_t* bytes) {
  std::vector<uint32_t> targets;
  for (uint32_t d = 0; d < members_.size(); d++) {
    if (members_[d]->info.tier == to) targets.push_back(d);
  }
  if (targets.empty()) return Status::InvalidArgument("the filesystem has no device of that tier");
  int64_t dest_device = -1;
  uint32_t dest_zone = 0;
  std::string buf;
  for (size_t i = 0; i < extents.size(); i++) {
    const Extent& old = extents[i];
    if (members_[old.device]->info.tier == to) continue;
    MovedExtent me;
    me.index = i;
    uint64_t done = 0;
    while (done < old.length) {
      uint64_t used = 0, room = 0;
      {
        std::lock_guard<std::mutex> l(mu_);
        if (dest_device >= 0) {
          const ZoneSlot& slot = members_[dest_device]->zones[dest_zone];
          used = slot.used;
          room = RoomLocked(members_[dest_device].get(), slot);
          if (room == 0) {
            Status s = SealZoneLocked(static_cast<uint32_t>(dest_device), dest_zone);
            if (!s.ok()) return s;
          }
        }
        if (room == 0) {
          dest_device = -1;
          for (uint32_t d : targets) {
            uint32_t z = 0;
            // Migration never takes the zones kept back for space-freeing writes.
            uint32_t keep = policy_->ReservedEmptyZones(DeviceSpaceLocked(d), role) + options_.reserve_zones;
            if (PickZoneLocked(d, role, /*for_gc=*/false, &z, keep)) {
              dest_device = d;
              dest_zone = z;
              held->emplace_back(d, z);
              break;
            }
          }
          if (dest_device < 0) return Status::NoSpace("no zone to migrate into on the target tier");
          used = members_[dest_device]->zones[dest_zone].used;
          room = RoomLocked(members_[dest_device].get(), members_[dest_device]->zones[dest_zone]);
        }
      }
      Member* dm = members_[dest_device].get();
      uint64_t piece = std::min({kCopyChunk, room, old.length - done});
      uint64_t padded = BlockRound(static_cast<uint32_t>(dest_device), piece);
      if (padded > room) {  // room is whole blocks, so only a short last piece can overrun
        piece = room;
        padded = room;
      }
      if (limiter != nullptr) limiter->Acquire(piece);
      buf.assign(padded, '\0');
      Status s = ReadChecked(old.device, old.zone, old.offset + done, piece, &buf[0]);
      if (!s.ok()) return s;
      uint64_t at = dm->device->geometry().zone_start(dest_zone) + used;
      s = WriteBlocks(static_cast<uint32_t>(dest_device), dest_zone, at, buf.data(), padded);
      if (!s.ok()) return s;
      me.pieces.push_back({static_cast<uint32_t>(dest_device), dest_zone, at, piece});
      done += piece;
      *bytes += piece;
    }
    moved->push_back(std::move(me));
  }
  if (moved->empty()) return Status::OK();
  // Verify what the devices durably hold, not what a write cache has: every
  // block against the checksum of the source bytes written there.
  Status s = FlushDirtyDevices();
  if (!s.ok()) return s;
  for (const MovedExtent& me : *moved) {
    for (const Extent& p : me.pieces) {
      buf.resize(p.length);
      s = ReadChecked(p.device, p.zone, p.offset, p.length, &buf[0]);
      if (!s.ok()) return Status::Corruption("migration copy does not match its source: " + s.message());
    }
  }
  return Status::OK();
}

Status FsImpl::MigrateFile(const std::string& path, Tier to, RateLimiter* limiter, MigrateResult* result) {
  *result = MigrateResult();
  std::shared_ptr<Inode> ino;
  Status s = HoldInode(path, /*files_only=*/true, &ino);
  if (!s.ok()) return s;
  std::vector<Extent> before;
  uint64_t size_before;
  ZoneRole role;
  {
    std::lock_guard<std::mutex> il(ino->mu);
    if (ino->has_writer) {
      CloseHandle(ino);
      return Status::Busy(path + " is open for writing");
    }
    before = ino->extents;
    size_before = ino->size;
    role = ino->role;
  }
  std::vector<std::pair<uint32_t, uint32_t>> held;
  std::vector<MovedExtent> moved;
  uint64_t bytes = 0;
  // The source zones count the copy as a reader, so none is reset under it
  // if the file changes meanwhile (the copy is then dropped below).
  auto pin = [&](int delta) {
    std::lock_guard<std::mutex> l(mu_);
    for (const Extent& e : before) members_[e.device]->zones[e.zone].readers += delta;
  };
  pin(+1);
  s = CopyExtents(before, role, to, limiter, &held, &moved, &bytes);
  pin(-1);
  if (s.ok() && !moved.empty()) {
    std::lock_guard<std::mutex> il(ino->mu);
    std::lock_guard<std::mutex> l(mu_);
    if (ino->deleted || ino->has_writer || ino->extents != before || ino->size != size_before) {
      s = Status::Busy(path + " changed during migration");
    } else {
      std::vector<Extent> after;
      size_t next = 0;
      for (size_t i = 0; i < before.size(); i++) {
        if (next < moved.size() && moved[next].index == i) {
          AddLiveLocked(before[i], -1);
          for (const Extent& p : moved[next].pieces) {
            AddLiveLocked(p, +1);
            members_[p.device]->zones[p.zone].role = role;
            after.push_back(p);
          }
          next++;
        } else {
          after.push_back(before[i]);
        }
      }
      ino->extents = std::move(after);
      ino->first_dirty = 0;
      QueueInodeLocked(ino.get());
      result->moved = true;
      result->bytes = bytes;
      result->extents = moved.size();
    }
  }
  {
    // A copy that was not switched in has no live bytes: its zones are
    // reclaimed like any dead zone.
    std::lock_guard<std::mutex> l(mu_);
    for (const auto& [d, z] : held) members_[d]->zones[z].writer = false;
  }
  std::string created_as = ino->created_as;
  CloseHandle(ino);
  if (!s.ok()) {
    if (s.IsBusy()) {
      std::lock_guard<std::mutex> l(stats_mu_);
      stats_.migrations_aborted++;
    }
    *result = MigrateResult();
    return s;
  }
  if (!result->moved) return Status::OK();
  s = CommitAndReclaim();
  if (!s.ok()) return s;
  policy_->OnMigrated(created_as, to);
  std::lock_guard<std::mutex> l(stats_mu_);
  stats_.migrated_bytes[static_cast<int>(to)] += bytes;
  stats_.migrations[static_cast<int>(to)]++;
  return Status::OK();
}

}  // namespace hintfs
