// Filesystem: copying extents into other zones, the one copier of GC
// (relocation within a device), migration (to the other tier) and
// overwrites (a file's rewritten blocks, written out of place). A copy
// goes in pieces of at most kCopyChunk; each piece is read checked against
// its source's block checksums and written with checksums of its own, and
// VerifyCopies reads back what the devices durably hold before a caller
// switches a file's extents to the copy.
//
// GC and migration copy packed (CopyPacked): the extents they copy follow
// one another byte for byte, so that only the last device block of a copy
// is padded. A table block of 1 KiB moved up alone took three 512-byte
// device blocks on average, half as much again as its bytes, and the hot
// set of a hotspot load no longer fit the fast tier (docs/benchmarks.md);
// extents therefore may begin and end anywhere inside a device block.
#include <algorithm>
#include <tuple>

#include "fs/fs_impl.h"

namespace hintfs {

namespace {

// Copy unit: large enough for sequential device speed, small enough that a
// rate limiter paces the copy smoothly.
constexpr uint64_t kCopyChunk = 1 << 20;

}  // namespace

Status FsImpl::NextCopyZoneLocked(CopyTarget* target, uint64_t* used, uint64_t* room) {
  *room = 0;
  if (target->device >= 0) {
    Member* m = members_[target->device].get();
    const ZoneSlot& slot = m->zones[target->zone];
    *used = slot.used;
    *room = RoomLocked(m, slot);
    if (*room > 0) return Status::OK();
    Status s = SealZoneLocked(static_cast<uint32_t>(target->device), target->zone);
    if (!s.ok()) return s;
  }
  target->device = -1;
  for (uint32_t d : target->devices) {
    // GC takes the empty zone kept back for it; a migration leaves the
    // policy's reservations and the reserve for space-freeing writes alone.
    const uint32_t keep =
        target->for_gc ? 0 : KeptEmptyZones(DeviceSpaceLocked(d), target->role, /*frees_space=*/false);
    uint32_t z = 0;
    if (PickZoneLocked(d, target->role, target->for_gc, &z, keep, /*overflow=*/false, target->lifetime_class)) {
      target->device = d;
      target->zone = z;
      target->held.emplace_back(d, z);
      Member* m = members_[d].get();
      *used = m->zones[z].used;
      *room = RoomLocked(m, m->zones[z]);
      return Status::OK();
    }
  }
  return Status::NoSpace(target->for_gc ? "no zone to relocate into" : "no zone to copy into on the tiers allowed");
}

Status FsImpl::WriteInPieces(uint64_t length, CopyTarget* target, RateLimiter* limiter, const PieceSource& fill,
                             std::vector<Extent>* pieces) {
  std::string buf;
  for (uint64_t done = 0; done < length;) {
    uint64_t used = 0, room = 0;
    Status found;
    bool to_fast = false;
    {
      std::lock_guard<std::mutex> l(mu_);
      found = NextCopyZoneLocked(target, &used, &room);
      for (uint32_t d : target->devices) to_fast |= members_[d]->info.tier == Tier::kFast;
    }
    // Zones a lender filled with copies of its own come back before a copy
    // to the fast tier fails (GC takes its own reserve and never asks).
    for (int given = 0; found.IsNoSpace() && to_fast && !target->for_gc && given < kMaxZonesGivenBack &&
                        LenderGaveBack(target->role);
         given++) {
      found = CommitAndReclaim();
      if (!found.ok()) return found;
      std::lock_guard<std::mutex> l(mu_);
      found = NextCopyZoneLocked(target, &used, &room);
    }
    // Then garbage on the fast tier is collected, as a writer's allocation
    // does: the tails of dead tables and moved blocks that died leave zones
    // partly dead that nothing reclaims while no writer runs short (a
    // read-only phase), and block tiering's moves failed for space with a
    // sixth of the fast tier garbage (docs/benchmarks.md, HotRAP's workloads).
    if (found.IsNoSpace() && to_fast && !target->for_gc) found = CollectFastGarbageFor(target, &used, &room);
    if (!found.ok()) return found;
    const uint32_t device = static_cast<uint32_t>(target->device);
    uint64_t piece = std::min({kCopyChunk, room, length - done});
    uint64_t padded = BlockRound(device, piece);
    if (padded > room) {  // room is whole blocks, so only a short last piece can overrun
      piece = room;
      padded = room;
    }
    if (limiter != nullptr) limiter->Acquire(piece);
    buf.assign(padded, '\0');
    Status s = fill(done, piece, &buf[0]);
    if (!s.ok()) return s;
    const uint64_t at = members_[device]->device->geometry().zone_start(target->zone) + used;
    s = WriteBlocks(device, target->zone, at, buf.data(), padded);
    if (!s.ok()) return s;
    pieces->push_back({device, target->zone, at, piece});
    done += piece;
  }
  return Status::OK();
}

Status FsImpl::CollectFastGarbageFor(CopyTarget* target, uint64_t* used, uint64_t* room) {
  Status found = Status::NoSpace("no zone to copy into on the tiers allowed");
  for (uint32_t d : target->devices) {
    for (int round = 0; found.IsNoSpace() && round < kCopyGcRounds; round++) {
      uint32_t freed = 0;
      Status s = CollectGarbageOn(2, &freed, static_cast<int32_t>(d));
      if (!s.ok() && !s.IsNoSpace()) return s;
      // It also resets the zones emptied earlier whose reads have ended
      // since (a zone is reset only once no read is left in it, and a victim
      // this very copy reads from is one): look again even if it freed none.
      {
        std::lock_guard<std::mutex> l(mu_);
        found = NextCopyZoneLocked(target, used, room);
      }
      if (freed == 0) break;
    }
  }
  return found;
}

Status FsImpl::ReadSource(const Extent& source, char* dst) {
  // Blocks just read or written (a promotion after a read, retention after
  // a write) come from memory rather than the slow device again.
  if (recent_.Get(source.device, source.offset, source.length, members_[source.device]->block_size, dst)) {
    return Status::OK();
  }
  return ReadChecked(source.device, source.zone, source.offset, source.length, dst);
}

namespace {

// Runs of extents that follow one another on their zone, each up to
// kCopyChunk: one read each where a copy or its check would make one per
// extent (a zone of moved blocks holds a couple of thousand, and a GC
// that read them one at a time kept the device busy for most of a second).
std::vector<Extent> JoinAdjacent(std::vector<Extent> extents) {
  std::sort(extents.begin(), extents.end(), [](const Extent& a, const Extent& b) {
    return std::tie(a.device, a.zone, a.offset) < std::tie(b.device, b.zone, b.offset);
  });
  std::vector<Extent> runs;
  for (const Extent& e : extents) {
    if (!runs.empty()) {
      Extent& last = runs.back();
      if (ExtentContinues(last, e) && last.length + e.length <= kCopyChunk) {
        last.length += e.length;
        continue;
      }
    }
    runs.push_back(e);
  }
  return runs;
}

}  // namespace

Status FsImpl::CopyPacked(const std::vector<Extent>& sources, bool device_order, CopyTarget* target,
                          RateLimiter* limiter, std::vector<std::vector<Extent>>* pieces) {
  pieces->assign(sources.size(), {});
  // In device order, neighbours on a zone are read together; in the given
  // order (a file's), a file's copies follow one another and join.
  // (*pieces)[i] answers for sources[i] either way.
  std::vector<size_t> order(sources.size());
  for (size_t i = 0; i < order.size(); i++) order[i] = i;
  if (device_order) {
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return std::tie(sources[a].device, sources[a].zone, sources[a].offset) <
             std::tie(sources[b].device, sources[b].zone, sources[b].offset);
    });
  }
  uint64_t total = 0;
  for (const Extent& e : sources) total += e.length;
  if (total == 0) return Status::OK();
  // WriteInPieces asks for the stream in order: a cursor on the source
  // that holds stream byte `at`.
  size_t k = 0;
  uint64_t start = 0;  // stream offset of sources[order[k]]
  auto src = [&](size_t i) -> const Extent& { return sources[order[i]]; };
  auto fill = [&](uint64_t done, uint64_t piece, char* dst) {
    const uint64_t stop = done + piece;
    for (uint64_t at = done; at < stop;) {
      while (at >= start + src(k).length) start += src(k++).length;
      // One read for this source and the ones right after it on the zone.
      size_t j = k;
      uint64_t j_start = start;
      uint64_t end = std::min(j_start + src(j).length, stop);
      while (end == j_start + src(j).length && end < stop && j + 1 < order.size() &&
             ExtentContinues(src(j), src(j + 1))) {
        j_start += src(j).length;
        j++;
        end = std::min(j_start + src(j).length, stop);
      }
      const Extent run{src(k).device, src(k).zone, src(k).offset + (at - start), end - at};
      Status s = ReadSource(run, dst + (at - done));
      if (!s.ok()) return s;
      at = end;
    }
    return Status::OK();
  };
  std::vector<Extent> stream;
  Status s = WriteInPieces(total, target, limiter, fill, &stream);
  if (!s.ok()) return s;
  // Cut the stream's extents back into one run per source.
  size_t next = 0;
  uint64_t used = 0;  // bytes of stream[next] given out already
  for (size_t i : order) {
    for (uint64_t left = sources[i].length; left > 0;) {
      const Extent& e = stream[next];
      const uint64_t n = std::min(left, e.length - used);
      (*pieces)[i].push_back(Extent{e.device, e.zone, e.offset + used, n});
      left -= n;
      used += n;
      if (used == e.length) next++, used = 0;
    }
  }
  return Status::OK();
}

Status FsImpl::VerifyCopies(const std::vector<Extent>& pieces, const std::string& what) {
  if (pieces.empty()) return Status::OK();
  // What the devices durably hold, not what a write cache has.
  Status s = FlushDirtyDevices();
  if (!s.ok()) return s;
  std::string buf;
  for (const Extent& p : JoinAdjacent(pieces)) {
    buf.resize(p.length);
    s = ReadChecked(p.device, p.zone, p.offset, p.length, &buf[0], /*check=*/true);
    if (!s.ok()) return Status::Corruption(what + " copy does not match its source: " + s.message());
  }
  return Status::OK();
}

void FsImpl::ReleaseCopyZones(CopyTarget* target) {
  // A copy that was not switched in has no live bytes: its zones are then
  // reclaimed like any dead zone.
  std::lock_guard<std::mutex> l(mu_);
  for (const auto& [d, z] : target->held) {
    ZoneSlot& slot = members_[d]->zones[z];
    slot.writer = false;
    // A copy that filled its zone to the last block is sealed now: the
    // device would otherwise count it as active while the filesystem,
    // seeing no room in it, does not (it would be sealed only when the next
    // copy asked it for room).
    if (slot.used > 0 && RoomLocked(members_[d].get(), slot) == 0) {
      SealZoneLocked(d, z);
    } else if (!target->for_gc && slot.live > 0) {
      // A switched-in copy of a file that owns its zones owns this one as
      // its writer did, and GC may pack it only once it is finished. Left
      // open, six such zones of short tables on a 20-zone fast tier sent a
      // compaction's outputs to the slow tier (docs/benchmarks.md, issue 20,
      // session 78). GC's own target zones stay open for its next copies.
      RetireOwnedZoneLocked(d, z);
    }
  }
  target->held.clear();
  target->device = -1;
}

}  // namespace hintfs
