// Helpers over the Filesystem interface for the layers above: walking a
// directory tree (the CLI's ls, backup and fsck, the block index keeper),
// making one with its parents (the store adapters, trace apply) and reading
// a whole file (block indexes, a store's CURRENT and MANIFEST).
#ifndef HINTFS_FS_WALK_H_
#define HINTFS_FS_WALK_H_

#include <functional>
#include <string>

#include "fs/filesystem.h"

namespace hintfs {

// "/" + name, or dir + "/" + name.
std::string JoinPath(const std::string& dir, const std::string& name);

// Calls fn for every entry in dir, and with recursive below it, depth first
// in name order (a directory before what it holds). Errors are ReadDir's.
Status Walk(Filesystem* fs, const std::string& dir, bool recursive,
            const std::function<void(const std::string& path, const DirEntry& entry)>& fn);

// mkdir -p: makes dir and every directory above it that is missing (one
// that exists, as anything, is passed over). Errors are Mkdir's; *failed,
// if given, is then the path it failed on.
Status MakeDirectories(Filesystem* fs, const std::string& dir, std::string* failed = nullptr);

// Reads all of the file at path into out. Errors are OpenReader's and
// Read's, or Corruption if the file ends before the size it reported.
Status ReadWholeFile(Filesystem* fs, const std::string& path, std::string* out);

}  // namespace hintfs

#endif  // HINTFS_FS_WALK_H_
