// Filesystem: moving a file's data between tiers (migration).
//
// The copy is made without the file's lock, so readers go on reading the old
// extents while it runs; the switch happens under the lock only if the file
// did not change meanwhile. Until the journal record that switches the
// extents is durable, the copy is unreferenced data in zones the migration
// holds: a crash leaves it as garbage that mount reclaims, and the file as it
// was. After the record, the old extents are garbage.
#include "fs/fs_impl.h"

namespace hintfs {

Status FsImpl::CopyExtents(const std::vector<Extent>& extents, Tier to, RateLimiter* limiter, CopyTarget* target,
                           std::vector<MovedExtent>* moved, uint64_t* bytes) {
  for (uint32_t d = 0; d < members_.size(); d++) {
    if (members_[d]->info.tier == to) target->devices.push_back(d);
  }
  if (target->devices.empty()) return Status::InvalidArgument("the filesystem has no device of that tier");
  std::vector<Extent> copies;
  for (size_t i = 0; i < extents.size(); i++) {
    if (members_[extents[i].device]->info.tier == to) continue;
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
  CopyTarget target;
  target.role = role;
  std::vector<MovedExtent> moved;
  uint64_t bytes = 0;
  // The source zones count the copy as a reader, so none is reset under it
  // if the file changes meanwhile (the copy is then dropped below).
  auto pin = [&](int delta) {
    std::lock_guard<std::mutex> l(mu_);
    for (const Extent& e : before) members_[e.device]->zones[e.zone].readers += delta;
  };
  pin(+1);
  s = CopyExtents(before, to, limiter, &target, &moved, &bytes);
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
  policy_->OnMigrated(created_as, to);
  std::lock_guard<std::mutex> l(stats_mu_);
  stats_.migrated_bytes[static_cast<int>(to)] += bytes;
  stats_.migrations[static_cast<int>(to)]++;
  return Status::OK();
}

}  // namespace hintfs
