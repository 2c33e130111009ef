// Filesystem: moving a file's data between tiers (migration).
//
// A migration moves a whole file or a range of its bytes; a range widens to
// the device blocks that hold it, and the file's extents are split there, so
// that a file can live on both tiers one run of blocks at a time.
//
// The copy is made without the file's lock, so readers go on reading the old
// extents while it runs; the switch happens under the lock only if the file
// did not change meanwhile. Until the journal record that switches the
// extents is durable, the copy is unreferenced data in zones the migration
// holds: a crash leaves it as garbage that mount reclaims, and the file as it
// was. After the record, the old extents are garbage.
#include <algorithm>

#include <fmt/format.h>

#include "fs/fs_impl.h"

namespace hintfs {

Status FsImpl::CopyExtents(const std::vector<Extent>& extents, const std::vector<bool>& wanted, Tier to, bool all,
                           RateLimiter* limiter, CopyTarget* target, std::vector<MovedExtent>* moved,
                           uint64_t* bytes) {
  for (uint32_t d = 0; d < members_.size(); d++) {
    if (members_[d]->info.tier == to) target->devices.push_back(d);
  }
  if (target->devices.empty()) return Status::InvalidArgument("the filesystem has no device of that tier");
  std::vector<Extent> copies;
  for (size_t i = 0; i < extents.size(); i++) {
    if (!wanted[i] || (!all && members_[extents[i].device]->info.tier == to)) continue;
    MovedExtent me;
    me.index = i;
    Status s = CopyExtent(extents[i], target, limiter, &me.pieces);
    if (!s.ok()) return s;
    for (const Extent& p : me.pieces) *bytes += p.length;
    copies.insert(copies.end(), me.pieces.begin(), me.pieces.end());
    moved->push_back(std::move(me));
  }
  return VerifyCopies(copies, "migration");
}

void FsImpl::SplitAtRange(const std::vector<Extent>& extents, uint64_t begin, uint64_t end,
                          std::vector<Extent>* pieces, std::vector<bool>* inside) const {
  uint64_t start = 0;  // file offset of the extent
  for (const Extent& e : extents) {
    uint64_t stop = start + e.length;
    if (stop <= begin || start >= end) {
      pieces->push_back(e);
      inside->push_back(false);
      start = stop;
      continue;
    }
    // Cut points relative to the extent, on its device's block boundaries
    // (an extent starts on one; only its last block may be partial).
    uint64_t block = members_[e.device]->block_size;
    uint64_t lo = (std::max(begin, start) - start) / block * block;
    uint64_t hi = std::min(e.length, BlockRound(e.device, std::min(end, stop) - start));
    uint64_t cuts[] = {0, lo, hi, e.length};
    for (int c = 0; c < 3; c++) {
      if (cuts[c + 1] == cuts[c]) continue;
      pieces->push_back(Extent{e.device, e.zone, e.offset + cuts[c], cuts[c + 1] - cuts[c]});
      inside->push_back(c == 1);
    }
    start = stop;
  }
}

std::vector<Extent> FsImpl::SwitchMovedLocked(const std::vector<Extent>& pieces,
                                              const std::vector<MovedExtent>& moved, ZoneRole zone_class) {
  std::vector<Extent> after;
  size_t next = 0;
  for (size_t i = 0; i < pieces.size(); i++) {
    if (next < moved.size() && moved[next].index == i) {
      AddLiveLocked(pieces[i], -1);
      for (const Extent& p : moved[next].pieces) {
        AddLiveLocked(p, +1);
        members_[p.device]->zones[p.zone].role = zone_class;
        after.push_back(p);
      }
      next++;
    } else {
      after.push_back(pieces[i]);
    }
  }
  return after;
}

Status FsImpl::MetadataRoomForSplits() {
  Status s = CheckWritable();
  if (!s.ok()) return s;
  const uint64_t capacity = journal_->stats().zone_capacity;
  const uint64_t limit = capacity / 2;
  if (journal_->SnapshotBound() <= limit) return Status::OK();
  journal_->Remeasure();  // deletions and joined extents since the last measure
  const uint64_t bound = journal_->SnapshotBound();
  if (bound <= limit) return Status::OK();
  {
    std::lock_guard<std::mutex> l(stats_mu_);
    stats_.range_moves_refused++;
  }
  return Status::NoSpace(fmt::format(
      "metadata may take {} of the {} bytes of a metadata zone: range moves wait until deletions or whole-file "
      "moves free some (or mkfs with larger zones)",
      bound, capacity));
}

Status FsImpl::MigrateFile(const std::string& path, Tier to, RateLimiter* limiter, MigrateResult* result) {
  return MoveRange(path, 0, UINT64_MAX, to, ZoneRole::kFree, /*all=*/false, limiter, result);
}

Status FsImpl::MigrateRange(const std::string& path, uint64_t offset, uint64_t length, Tier to,
                            ZoneRole zone_class, RateLimiter* limiter, MigrateResult* result) {
  return MoveRange(path, offset, length, to, zone_class, /*all=*/false, limiter, result);
}

Status FsImpl::RelayoutFile(const std::string& path, Tier to, RateLimiter* limiter, MigrateResult* result) {
  return MoveRange(path, 0, UINT64_MAX, to, ZoneRole::kFree, /*all=*/true, limiter, result);
}

Status FsImpl::MoveRange(const std::string& path, uint64_t offset, uint64_t length, Tier to, ZoneRole zone_class,
                         bool all, RateLimiter* limiter, MigrateResult* result) {
  *result = MigrateResult();
  if (zone_class != ZoneRole::kFree && !IsFileClass(zone_class)) {
    return Status::InvalidArgument(fmt::format("{} is not a file class", ZoneRoleName(zone_class)));
  }
  const bool whole = offset == 0 && length == UINT64_MAX;
  std::shared_ptr<Inode> ino;
  Status s = HoldInode(path, /*files_only=*/true, &ino);
  if (!s.ok()) return s;
  std::vector<Extent> before, pieces;
  std::vector<bool> inside;
  uint64_t size_before;
  ZoneRole role;
  {
    std::lock_guard<std::mutex> il(ino->mu);
    if (ino->has_writer) s = Status::Busy(path + " is open for writing");
    if (!whole && (length == 0 || offset >= ino->size || length > ino->size - offset)) {
      s = Status::InvalidArgument(fmt::format("{}: bytes {}+{} are not inside its {} bytes", path, offset, length,
                                              ino->size));
    }
    before = ino->extents;
    size_before = ino->size;
    role = ino->role;
  }
  if (!s.ok()) {
    CloseHandle(ino);
    return s;
  }
  SplitAtRange(before, offset, offset + std::min(length, UINT64_MAX - offset), &pieces, &inside);
  // A move that splits extents grows the metadata (one that moves whole
  // extents, as a demotion of what a promotion moved, does not).
  if (pieces.size() > before.size()) s = MetadataRoomForSplits();
  if (!s.ok()) {
    CloseHandle(ino);
    return s;
  }
  CopyTarget target;
  target.role = zone_class == ZoneRole::kFree ? role : zone_class;
  std::vector<MovedExtent> moved;
  uint64_t bytes = 0;
  // The source zones count the copy as a reader, so none is reset under it
  // if the file changes meanwhile (the copy is then dropped below).
  auto pin = [&](int delta) {
    std::lock_guard<std::mutex> l(mu_);
    for (const Extent& e : before) members_[e.device]->zones[e.zone].readers += delta;
  };
  pin(+1);
  s = CopyExtents(pieces, inside, to, all, limiter, &target, &moved, &bytes);
  pin(-1);
  bool all_on_to = false;
  if (s.ok() && !moved.empty()) {
    std::lock_guard<std::mutex> il(ino->mu);
    std::lock_guard<std::mutex> l(mu_);
    if (ino->deleted || ino->has_writer || ino->extents != before || ino->size != size_before) {
      s = Status::Busy(path + " changed during migration");
    } else {
      ino->extents = SwitchMovedLocked(pieces, moved, target.role);
      MergeContinuationsLocked(&ino->extents);  // copies of neighbours written one after the other
      ino->first_dirty = 0;
      QueueInodeLocked(ino.get());
      all_on_to = std::all_of(ino->extents.begin(), ino->extents.end(),
                              [&](const Extent& e) { return members_[e.device]->info.tier == to; });
      result->moved = true;
      result->bytes = bytes;
      result->extents = moved.size();
    }
  }
  ReleaseCopyZones(&target);
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
  // Placement hears of a file once all of it is on one tier.
  if (all_on_to) policy_->OnMigrated(created_as, to);
  std::lock_guard<std::mutex> l(stats_mu_);
  stats_.migrated_bytes[static_cast<int>(to)] += bytes;
  stats_.migrations[static_cast<int>(to)]++;
  return Status::OK();
}

}  // namespace hintfs
