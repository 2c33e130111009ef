#include "fs/op_backlog.h"

#include <algorithm>

namespace hintfs {

void OpBacklog::Add(const std::vector<MetadataOp>& ops, const MetadataImage& image) {
  for (const MetadataOp& op : ops) {
    const uint64_t id = op.inode.id;
    if (op.type == MetadataOp::Type::kCreateInode || op.type == MetadataOp::Type::kDeleteInode) {
      extents_op_.erase(id);  // never join changes across an inode's birth or death
    }
    bool extents = op.type == MetadataOp::Type::kSetExtents || op.type == MetadataOp::Type::kReplaceExtents;
    auto joined = extents_op_.find(id);
    // An overwrite's replacement names only the extents it changed: kept as
    // it is, it costs the device batch its pieces, where a placeholder would
    // restate the file from the first extent it replaced (a file rewritten
    // at random: nearly its whole list). After a placeholder it must join
    // it, which states the file as it ends up.
    bool verbatim = op.type == MetadataOp::Type::kReplaceExtents && joined == extents_op_.end();
    if (verbatim || (!extents && op.type != MetadataOp::Type::kAppendTail)) {
      ops_.push_back(op);
      continue;
    }
    // The first extent this change may replace: an appended tail replaces
    // none, so it counts from the end of the file's list.
    auto rec = image.inodes().find(id);
    uint32_t from = op.from_index;
    if (!extents) from = rec == image.inodes().end() ? 0 : static_cast<uint32_t>(rec->second.extents.size());
    if (joined != extents_op_.end()) {
      MetadataOp& into = ops_[joined->second];
      into.from_index = std::min(into.from_index, from);
      continue;
    }
    MetadataOp placeholder;
    placeholder.type = MetadataOp::Type::kSetExtents;
    placeholder.inode.id = id;
    placeholder.from_index = from;
    extents_op_[id] = ops_.size();
    ops_.push_back(placeholder);
  }
}

std::vector<MetadataOp> OpBacklog::Take(const MetadataImage& image) {
  std::vector<MetadataOp> ops;
  ops.reserve(ops_.size());
  for (MetadataOp& op : ops_) {
    if (op.type == MetadataOp::Type::kSetExtents) {
      // Only changes of this file's extents and tail lie between here and
      // its death or the end: the op may as well state the file as it is now,
      // from the first extent any of them replaced. A file deleted later
      // needs none.
      auto rec = image.inodes().find(op.inode.id);
      if (rec == image.inodes().end()) continue;
      const InodeRecord& now = rec->second;
      op.from_index = std::min<uint32_t>(op.from_index, static_cast<uint32_t>(now.extents.size()));
      op.inode.extents.assign(now.extents.begin() + op.from_index, now.extents.end());
      op.inode.size = now.size;
      op.inode.mtime_ns = now.mtime_ns;
      op.inode.tail = now.tail;
    }
    ops.push_back(std::move(op));
  }
  Clear();
  return ops;
}

}  // namespace hintfs
