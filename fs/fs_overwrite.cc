// Filesystem: overwrites, written out of place, and truncation.
//
// Zones take appends only, so bytes a file already holds on a device are
// never written where they are: the extents holding them are cut at the
// write's exact bytes, the new bytes written elsewhere (WriteInPieces, the
// copier of GC and migration), and the file's extent list is switched to the
// new blocks in one journal op. Until that op is durable the new blocks are unreferenced; after
// it the old ones are garbage. A crash therefore leaves each block old or
// new: zones are reset only once a power-cut durable commit says they are
// dead, and mount falls back to a file's last durable record when a later one
// names blocks the devices lost.
//
// Bytes not yet on a device (the writer's buffer) are patched in memory; if
// the journal already carries some of them (a synced tail), the whole tail
// is journaled again with the next commit.
//
// Truncation needs no copy: a cut releases the extents past the new size and
// shortens the one holding it; growth appends zeros to the writer's buffer.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "fs/fs_impl.h"

namespace hintfs {

void FsImpl::MergeContinuationsLocked(std::vector<Extent>* extents) const {
  std::vector<Extent> merged;
  merged.reserve(extents->size());
  for (const Extent& e : *extents) {
    if (!merged.empty()) {
      Extent& last = merged.back();
      if (ExtentContinues(last, e)) {
        last.length += e.length;
        continue;
      }
    }
    merged.push_back(e);
  }
  extents->swap(merged);
}

void FsImpl::QueueReplacementLocked(Inode* ino, size_t from, size_t replaced, const std::vector<Extent>& with) {
  if (ino->deleted || options_.read_only) return;
  MetadataOp op;
  op.type = MetadataOp::Type::kReplaceExtents;
  op.inode.id = ino->id;
  op.from_index = static_cast<uint32_t>(from);
  op.replaced = static_cast<uint32_t>(replaced);
  op.inode.extents = with;
  op.inode.size = ino->extent_bytes() + ino->tail_len;  // what the journal holds: the lengths did not change
  op.inode.mtime_ns = ino->mtime_ns;
  journal_->Add(op);
}

Status FsImpl::OverwriteExtents(Inode* ino, uint64_t offset, std::string_view data) {
  const uint64_t end = offset + data.size();
  // A file rewritten at random has many extents: only the window around the
  // ones that hold [offset, end) (with a neighbour each side, which the new
  // blocks may continue) is split, switched and journaled.
  const std::vector<Extent>& all = ino->extents;
  size_t lo = 0;
  uint64_t base = 0;  // file offset of all[lo]
  while (lo < all.size() && base + all[lo].length <= offset) base += all[lo++].length;
  size_t hi = lo;
  for (uint64_t pos = base; hi < all.size() && pos < end;) pos += all[hi++].length;
  if (lo > 0) base -= all[--lo].length;
  if (hi < all.size()) hi++;
  std::vector<Extent> pieces;
  std::vector<bool> inside;
  SplitAtRange(std::vector<Extent>(all.begin() + static_cast<long>(lo), all.begin() + static_cast<long>(hi)),
               offset - base, end - base, &pieces, &inside);
  // The pieces inside cover [offset, end) exactly; each is written anew
  // from data as one MovedExtent.
  CopyTarget target;
  target.role = ino->role;
  std::vector<MovedExtent> moved;
  std::vector<Extent> written;
  uint64_t pos = base;  // file offset of pieces[i]
  Status s;
  for (size_t i = 0; i < pieces.size() && s.ok(); pos += pieces[i].length, i++) {
    if (!inside[i]) continue;
    const Extent& old = pieces[i];
    if (target.devices.empty()) {
      // The new blocks go to the tier the old ones are on; the other is the
      // fallback when it is full.
      Tier tier = members_[old.device]->info.tier;
      for (int pass = 0; pass < 2; pass++) {
        for (uint32_t d = 0; d < members_.size(); d++) {
          if ((members_[d]->info.tier == tier) == (pass == 0)) target.devices.push_back(d);
        }
      }
    }
    const char* bytes = data.data() + (pos - offset);  // the piece lies inside [offset, end)
    MovedExtent me;
    me.index = i;
    auto fill = [&](uint64_t done, uint64_t piece, char* dst) {
      std::memcpy(dst, bytes + done, piece);
      return Status::OK();
    };
    s = WriteInPieces(old.length, &target, /*limiter=*/nullptr, fill, &me.pieces);
    written.insert(written.end(), me.pieces.begin(), me.pieces.end());
    moved.push_back(std::move(me));
  }
  if (s.ok()) {
    std::lock_guard<std::mutex> l(mu_);
    std::vector<Extent> window = SwitchMovedLocked(pieces, moved, target.role);
    MergeContinuationsLocked(&window);
    QueueInodeLocked(ino);  // changes made before go first, as they were made
    QueueReplacementLocked(ino, lo, hi - lo, window);
    SpliceExtents(&ino->extents, lo, hi - lo, window);
  }
  // On failure the blocks written are unreferenced: their zones are
  // reclaimed as any dead zone.
  ReleaseCopyZones(&target);
  if (!s.ok()) return s;
  uint64_t bytes[2] = {0, 0};
  for (const Extent& e : written) bytes[static_cast<int>(members_[e.device]->info.tier)] += e.length;
  std::lock_guard<std::mutex> l(stats_mu_);
  stats_.bytes_written[0] += bytes[0];
  stats_.bytes_written[1] += bytes[1];
  stats_.overwritten_bytes += data.size();
  return Status::OK();
}

Status FsImpl::Overwrite(Inode* ino, uint64_t offset, std::string_view data) {
  if (data.empty()) return Status::OK();
  if (offset + data.size() > ino->size) {
    return Status::InvalidArgument(fmt::format("overwrite of bytes {}+{} of a {}-byte file", offset, data.size(),
                                               ino->size));
  }
  // Set first, so that the replacement op carries it: a separate update of
  // the file's attributes would restate its extent list.
  ino->mtime_ns = WallClockNs();
  const uint64_t extent_bytes = ino->extent_bytes();
  if (offset < extent_bytes) {
    const size_t on_device = static_cast<size_t>(std::min<uint64_t>(data.size(), extent_bytes - offset));
    Status s = OverwriteExtents(ino, offset, data.substr(0, on_device));
    if (!s.ok()) return s;
    data.remove_prefix(on_device);
    offset += on_device;
  }
  if (!data.empty()) {
    const size_t at = static_cast<size_t>(offset - extent_bytes);
    ino->pending.replace(at, data.size(), data.data(), data.size());
    // A synced tail the journal holds changed: it is journaled whole again.
    if (at < ino->tail_len) ino->first_dirty = std::min(ino->first_dirty, ino->extents.size());
    ino->attr_dirty = true;  // the mtime goes with the bytes
  }
  ino->data_version++;
  return Status::OK();
}

Status FsImpl::Truncate(const std::string& path, uint64_t size) {
  std::shared_ptr<Inode> ino;
  Status s = HoldInode(path, /*files_only=*/true, &ino);
  if (!s.ok()) return s;
  {
    std::lock_guard<std::mutex> il(ino->mu);
    if (size < ino->size) ino->data_version++;  // bytes past size will be new ones
    if (size >= ino->size) {
      ino->pending.append(size - ino->size, '\0');
    } else if (size >= ino->extent_bytes()) {
      ino->pending.resize(size - ino->extent_bytes());
    } else {
      ino->pending.clear();
      std::lock_guard<std::mutex> l(mu_);
      uint64_t pos = 0;
      size_t keep = 0;
      for (; keep < ino->extents.size(); keep++) {
        Extent& e = ino->extents[keep];
        if (pos + e.length >= size) break;
        pos += e.length;
      }
      // Extents after the cut are released; the one holding the cut shrinks.
      for (size_t i = keep; i < ino->extents.size(); i++) AddLiveLocked(ino->extents[i], -1);
      if (keep < ino->extents.size() && size > pos) {
        Extent cut = ino->extents[keep];
        cut.length = size - pos;
        AddLiveLocked(cut, +1);
        ino->extents[keep] = cut;
        keep++;
      }
      ino->extents.resize(keep);
      ino->first_dirty = std::min(ino->first_dirty, keep == 0 ? 0 : keep - 1);
    }
    ino->tail_len = std::min(ino->tail_len, ino->pending.size());
    CountKeptBytes(ino.get(), std::min<uint64_t>(ino->kept_in_tail, ino->pending.size()));
    ino->size = size;
    ino->mtime_ns = WallClockNs();
    ino->attr_dirty = true;
    QueueInodeLocked(ino.get());
  }
  CloseHandle(ino);
  return CommitUnflushed();
}

}  // namespace hintfs
