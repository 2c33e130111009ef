// Ops that are in the image (and in the host log) but in no device batch yet,
// kept compact: all changes of a file's extents and tail ("set extents",
// "append tail", and "replace extents" after one of those) between its birth
// and death become one "set extents" op stating the file as the image has it
// when the backlog is written, so a log flushed after every record costs the
// next device batch one op, not one per flush. Replacements before any such
// change stay as they are: each names only the few extents an overwrite
// changed.
#ifndef HINTFS_FS_OP_BACKLOG_H_
#define HINTFS_FS_OP_BACKLOG_H_

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "fs/metadata.h"

namespace hintfs {

class OpBacklog {
 public:
  // Adds ops, already applied to image.
  void Add(const std::vector<MetadataOp>& ops, const MetadataImage& image);
  // The ops, in order, for image (the image Add saw last, and the result of
  // every op added): replaying them from the state before the first one gives
  // the image. The backlog is then empty.
  std::vector<MetadataOp> Take(const MetadataImage& image);
  bool empty() const { return ops_.empty(); }
  // Drops everything (a journal snapshot holds it all).
  void Clear() {
    ops_.clear();
    extents_op_.clear();
  }

 private:
  std::vector<MetadataOp> ops_;  // "set extents" ops are placeholders until Take
  // inode -> index in ops_ of its placeholder that later changes join.
  std::unordered_map<uint64_t, size_t> extents_op_;
};

}  // namespace hintfs

#endif  // HINTFS_FS_OP_BACKLOG_H_
