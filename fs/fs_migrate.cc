// Filesystem: moving a file's data between tiers (migration).
//
// A migration moves a whole file or ranges of its bytes (of several files at
// once: MigrateRanges); the file's extents are cut at a range's exact bytes,
// so that a file can live on both tiers one run of bytes at a time, and the
// copies are packed one after another (CopyPacked).
//
// The copy is made without the file's lock, so readers go on reading the old
// extents while it runs; the switch happens under the lock only if the file
// did not change meanwhile. Until the journal record that switches the
// extents is durable, the copy is unreferenced data in zones the migration
// holds: a crash leaves it as garbage that mount reclaims, and the file as it
// was. After the record, the old extents are garbage.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "fs/fs_impl.h"

namespace hintfs {

void FsImpl::SplitAtRange(const std::vector<Extent>& extents, uint64_t begin, uint64_t end,
                          std::vector<Extent>* pieces, std::vector<bool>* inside) const {
  SplitAtRanges(extents, {{begin, end}}, pieces, inside);
}

void FsImpl::SplitAtRanges(const std::vector<Extent>& extents, const std::vector<std::pair<uint64_t, uint64_t>>& ranges,
                           std::vector<Extent>* pieces, std::vector<bool>* inside) {
  uint64_t start = 0;  // file offset of the extent
  size_t r = 0;        // the first range that does not end before the extent
  for (const Extent& e : extents) {
    const uint64_t stop = start + e.length;
    while (r < ranges.size() && ranges[r].second <= start) r++;
    // Cut points inside the extent, exact bytes: extents may begin and end
    // anywhere inside a device block (fs_copy.cc).
    uint64_t at = 0;  // relative to the extent
    for (size_t k = r; k < ranges.size() && ranges[k].first < stop && at < e.length; k++) {
      const uint64_t lo = std::max(ranges[k].first, start) - start;
      const uint64_t hi = std::min(ranges[k].second, stop) - start;
      if (lo > at) {
        pieces->push_back(Extent{e.device, e.zone, e.offset + at, lo - at});
        inside->push_back(false);
      }
      pieces->push_back(Extent{e.device, e.zone, e.offset + lo, hi - lo});
      inside->push_back(true);
      at = hi;
    }
    if (at < e.length) {
      pieces->push_back(Extent{e.device, e.zone, e.offset + at, e.length - at});
      inside->push_back(false);
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
        SetCopiedZoneClassLocked(p, zone_class);
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
  return MoveOne(path, 0, UINT64_MAX, to, ZoneRole::kFree, /*all=*/false, limiter, result);
}

Status FsImpl::MigrateRange(const std::string& path, uint64_t offset, uint64_t length, Tier to,
                            ZoneRole zone_class, RateLimiter* limiter, MigrateResult* result) {
  return MoveOne(path, offset, length, to, zone_class, /*all=*/false, limiter, result);
}

Status FsImpl::RelayoutFile(const std::string& path, Tier to, RateLimiter* limiter, MigrateResult* result) {
  return MoveOne(path, 0, UINT64_MAX, to, ZoneRole::kFree, /*all=*/true, limiter, result);
}

Status FsImpl::MigrateRanges(const std::vector<RangeMove>& moves, Tier to, ZoneRole zone_class,
                             RateLimiter* limiter, std::vector<MigrateResult>* results) {
  for (const RangeMove& m : moves) {
    if (m.length == 0) return Status::InvalidArgument(m.path + ": an empty range");
  }
  return MoveRanges(moves, to, zone_class, /*all=*/false, limiter, results);
}

Status FsImpl::MoveOne(const std::string& path, uint64_t offset, uint64_t length, Tier to, ZoneRole zone_class,
                       bool all, RateLimiter* limiter, MigrateResult* result) {
  std::vector<MigrateResult> results;
  Status s = MoveRanges({RangeMove{path, offset, length}}, to, zone_class, all, limiter, &results);
  *result = s.ok() ? results[0] : MigrateResult();
  if (s.ok()) s = result->status;
  if (!s.ok()) *result = MigrateResult();
  return s;
}

Status FsImpl::PlanFileMove(const std::string& path, const std::vector<RangeMove>& moves, FileMove* plan) {
  Status s = HoldInode(path, /*files_only=*/true, &plan->ino);
  if (!s.ok()) return s;
  std::lock_guard<std::mutex> il(plan->ino->mu);
  const uint64_t size = plan->ino->size;
  if (plan->ino->has_writer) return Status::Busy(path + " is open for writing");
  for (size_t i : plan->requests) {
    const RangeMove& m = moves[i];
    const bool whole = m.offset == 0 && m.length == UINT64_MAX;
    if (!whole && (m.length == 0 || m.offset >= size || m.length > size - m.offset)) {
      return Status::InvalidArgument(
          fmt::format("{}: bytes {}+{} are not inside its {} bytes", path, m.offset, m.length, size));
    }
    plan->ranges.emplace_back(m.offset, whole ? UINT64_MAX : m.offset + m.length);
  }
  // Sorted and joined where they overlap, as SplitAtRanges wants them.
  std::sort(plan->ranges.begin(), plan->ranges.end());
  std::vector<std::pair<uint64_t, uint64_t>> joined;
  for (const auto& r : plan->ranges) {
    if (!joined.empty() && r.first <= joined.back().second) {
      joined.back().second = std::max(joined.back().second, r.second);
    } else {
      joined.push_back(r);
    }
  }
  plan->ranges.swap(joined);
  plan->before = plan->ino->extents;
  plan->size_before = size;
  plan->role = plan->ino->role;
  plan->created_as = plan->ino->created_as;
  SplitAtRanges(plan->before, plan->ranges, &plan->pieces, &plan->inside);
  return Status::OK();
}

Status FsImpl::CopyPlanned(std::vector<FileMove>* plans, Tier to, bool all, RateLimiter* limiter,
                           CopyTarget* target) {
  for (uint32_t d = 0; d < members_.size(); d++) {
    if (members_[d]->info.tier == to) target->devices.push_back(d);
  }
  if (target->devices.empty()) return Status::InvalidArgument("the filesystem has no device of that tier");
  std::vector<Extent> sources;
  std::vector<std::pair<FileMove*, size_t>> owners;  // (plan, piece) of each source
  for (FileMove& plan : *plans) {
    if (!plan.status.ok()) continue;
    for (size_t i = 0; i < plan.pieces.size(); i++) {
      if (!plan.inside[i] || (!all && members_[plan.pieces[i].device]->info.tier == to)) continue;
      sources.push_back(plan.pieces[i]);
      owners.emplace_back(&plan, i);
    }
  }
  // The source zones count the copy as a reader, so none is reset under it
  // if a file changes meanwhile (its copy is then dropped).
  auto pin = [&](int delta) {
    std::lock_guard<std::mutex> l(mu_);
    for (const FileMove& plan : *plans) {
      for (const Extent& e : plan.before) members_[e.device]->zones[e.zone].readers += delta;
    }
  };
  std::vector<std::vector<Extent>> copies;
  pin(+1);
  Status s = CopyPacked(sources, /*device_order=*/false, target, limiter, &copies);
  pin(-1);
  if (!s.ok()) return s;
  std::vector<Extent> written;
  for (size_t k = 0; k < sources.size(); k++) {
    auto [plan, index] = owners[k];
    plan->moved.push_back(MovedExtent{index, copies[k]});
    written.insert(written.end(), copies[k].begin(), copies[k].end());
  }
  return VerifyCopies(written, "migration");
}

void FsImpl::SwitchPlanned(FileMove* plan, Tier to, ZoneRole zone_class, MigrateResult* result) {
  Inode* ino = plan->ino.get();
  std::lock_guard<std::mutex> il(ino->mu);
  std::lock_guard<std::mutex> l(mu_);
  if (ino->deleted || ino->has_writer || ino->extents != plan->before || ino->size != plan->size_before) {
    plan->status = Status::Busy(plan->created_as + " changed during migration");
    return;
  }
  std::vector<Extent> after =
      SwitchMovedLocked(plan->pieces, plan->moved, zone_class == ZoneRole::kFree ? plan->role : zone_class);
  MergeContinuationsLocked(&after);  // copies of neighbours written one after the other
  // Only the extents that changed are journaled (a replacement, op 20): a
  // table split by many block moves has hundreds of extents, and stating
  // them all again for each move filled the journal with copies of them.
  const std::vector<Extent>& now = ino->extents;
  size_t prefix = 0, suffix = 0;
  while (prefix < after.size() && prefix < now.size() && after[prefix] == now[prefix]) prefix++;
  while (suffix < after.size() - prefix && suffix < now.size() - prefix &&
         after[after.size() - 1 - suffix] == now[now.size() - 1 - suffix]) {
    suffix++;
  }
  QueueInodeLocked(ino);  // changes made before go first
  QueueReplacementLocked(ino, prefix, now.size() - prefix - suffix,
                         std::vector<Extent>(after.begin() + static_cast<long>(prefix),
                                             after.end() - static_cast<long>(suffix)));
  ino->extents = std::move(after);
  plan->all_on_to = std::all_of(ino->extents.begin(), ino->extents.end(),
                                [&](const Extent& e) { return members_[e.device]->info.tier == to; });
  result->moved = true;
  for (const MovedExtent& me : plan->moved) {
    for (const Extent& p : me.pieces) result->bytes += p.length;
  }
  result->extents = plan->moved.size();
}

Status FsImpl::MoveRanges(const std::vector<RangeMove>& moves, Tier to, ZoneRole zone_class, bool all,
                          RateLimiter* limiter, std::vector<MigrateResult>* results) {
  results->assign(moves.size(), MigrateResult());
  if (zone_class != ZoneRole::kFree && !IsFileClass(zone_class)) {
    return Status::InvalidArgument(fmt::format("{} is not a file class", ZoneRoleName(zone_class)));
  }
  // One plan per file, its ranges together: a second switch of a file would
  // find it changed by the first.
  std::map<std::string, size_t> plan_of;
  std::vector<FileMove> plans;
  for (size_t i = 0; i < moves.size(); i++) {
    auto [it, added] = plan_of.emplace(moves[i].path, plans.size());
    if (added) plans.emplace_back();
    plans[it->second].requests.push_back(i);
  }
  bool splits = false;
  for (auto& [path, index] : plan_of) {
    FileMove& plan = plans[index];
    plan.status = PlanFileMove(path, moves, &plan);
    splits = splits || (plan.status.ok() && plan.pieces.size() > plan.before.size());
  }
  auto close_all = [&] {
    for (FileMove& plan : plans) {
      if (plan.ino != nullptr) CloseHandle(plan.ino);
    }
  };
  // A move that splits extents grows the metadata (one that moves whole
  // extents, as a demotion of what a promotion moved, does not).
  Status s = splits ? MetadataRoomForSplits() : Status::OK();
  CopyTarget target;
  target.role = zone_class != ZoneRole::kFree ? zone_class : plans.size() == 1 ? plans[0].role : ZoneRole::kData;
  if (s.ok()) s = CopyPlanned(&plans, to, all, limiter, &target);
  std::vector<MigrateResult> per_file(plans.size());
  for (size_t i = 0; s.ok() && i < plans.size(); i++) {
    if (plans[i].status.ok() && !plans[i].moved.empty()) SwitchPlanned(&plans[i], to, zone_class, &per_file[i]);
  }
  ReleaseCopyZones(&target);
  close_all();
  if (!s.ok()) return s;
  return FinishMoves(moves, to, &plans, per_file, results);
}

void FsImpl::CountMovedBytes(const std::vector<RangeMove>& moves, const FileMove& plan,
                             std::vector<MigrateResult>* results) {
  std::vector<uint64_t> at(plan.pieces.size() + 1, 0);  // file offset of each piece
  for (size_t i = 0; i < plan.pieces.size(); i++) at[i + 1] = at[i] + plan.pieces[i].length;
  for (const MovedExtent& me : plan.moved) {
    for (size_t k : plan.requests) {
      const RangeMove& m = moves[k];
      const uint64_t end = m.length > UINT64_MAX - m.offset ? UINT64_MAX : m.offset + m.length;
      const uint64_t lo = std::max(m.offset, at[me.index]), hi = std::min(end, at[me.index + 1]);
      if (lo >= hi) continue;
      (*results)[k].bytes += hi - lo;
      (*results)[k].extents++;
    }
  }
}

Status FsImpl::FinishMoves(const std::vector<RangeMove>& moves, Tier to, std::vector<FileMove>* plans,
                           const std::vector<MigrateResult>& per_file, std::vector<MigrateResult>* results) {
  bool any = false;
  uint64_t aborted = 0;
  for (size_t i = 0; i < plans->size(); i++) {
    const FileMove& plan = (*plans)[i];
    any = any || per_file[i].moved;
    if (plan.status.IsBusy() && plan.ino != nullptr && !plan.before.empty()) aborted++;
    for (size_t k : plan.requests) {
      MigrateResult& r = (*results)[k];
      r.status = plan.status;
      r.moved = per_file[i].moved;
    }
    if (per_file[i].moved) CountMovedBytes(moves, plan, results);
  }
  if (aborted > 0) {
    std::lock_guard<std::mutex> l(stats_mu_);
    stats_.migrations_aborted += aborted;
  }
  if (!any) return Status::OK();
  Status s = CommitAndReclaim();
  if (!s.ok()) return s;
  for (size_t i = 0; i < plans->size(); i++) {
    // Placement hears of a file once all of it is on one tier.
    if (per_file[i].moved && (*plans)[i].all_on_to) policy_->OnMigrated((*plans)[i].created_as, to);
  }
  std::lock_guard<std::mutex> l(stats_mu_);
  for (const MigrateResult& r : per_file) {
    if (!r.moved) continue;
    stats_.migrated_bytes[static_cast<int>(to)] += r.bytes;
    stats_.migrations[static_cast<int>(to)]++;
  }
  return Status::OK();
}

}  // namespace hintfs
