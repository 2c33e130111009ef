// Walking a filesystem's directory tree through the Filesystem interface,
// for the layers above that look at every file (the CLI's ls, backup and
// fsck, the block index keeper).
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

}  // namespace hintfs

#endif  // HINTFS_FS_WALK_H_
