// What hintfs's upper layers keep with each file in the filesystem, which
// stores both without reading them (fs/metadata.h):
//   - the file's class (a ZoneRole id): which files may share a zone and
//     which the policies count apart (the WAL's zones, the cache's);
//   - its tag: what the store said (or hintfs inferred) about it, the LSM
//     level of a table, the job that wrote it and why, encoded here.
#ifndef HINTFS_HINTS_FILE_TAG_H_
#define HINTFS_HINTS_FILE_TAG_H_

#include <cstdint>
#include <string>

#include "fs/metadata.h"
#include "fs/status.h"

namespace hintfs {

// The file classes the layers above the filesystem define. Their ids are the
// values images of format 1 hold (the filesystem knew them then), so old
// images keep their classes. Every other file (tables, MANIFEST, ...) is
// ZoneRole::kData.
constexpr ZoneRole kWalClass = FileClass(3);    // a store's write-ahead logs
constexpr ZoneRole kCacheClass = FileClass(5);  // the SSD block cache's files (cache/)
// A store's tables, under the policies that place by level: apart from
// other files, so that the zones those pin are known (images of format 1
// have their tables in kData).
constexpr ZoneRole kTableClass = FileClass(6);
// Byte ranges of tables that block tiering moved (placement/block_tiering.h):
// many tables' blocks packed into shared zones, on either tier.
constexpr ZoneRole kMovedBlocksClass = FileClass(7);

// "wal", "cache", "table", or the filesystem's name for the role.
std::string FileClassName(ZoneRole role);

struct FileTag {
  int32_t level = -1;  // the LSM level a table was written at; -1: unknown
  uint64_t job = 0;    // the store's flush or compaction job
  std::string reason;  // "flush", "compaction", "inferred", ... (at most 64 bytes)

  bool operator==(const FileTag& o) const { return level == o.level && job == o.job && reason == o.reason; }
};

// Version 1: byte 1, level (fixed32), job (fixed64), reason (length-prefixed).
// Version 0 is the same after byte 0: what images of format 1 recorded.
std::string EncodeFileTag(const FileTag& tag);

// An empty tag is FileTag(). Corruption for an unknown version or bad bytes.
Status DecodeFileTag(const std::string& bytes, FileTag* tag);

// DecodeFileTag, FileTag() for bytes it refuses.
FileTag FileTagOf(const std::string& bytes);

}  // namespace hintfs

#endif  // HINTFS_HINTS_FILE_TAG_H_
