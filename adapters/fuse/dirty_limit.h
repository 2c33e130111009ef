// The kernel keeps a FUSE filesystem's dirty page cache small (a "strict"
// limit of 1% of the dirty memory budget) because a FUSE daemon may be slow
// or hostile. With the write-back cache on, that limit throttles every
// writer long before the daemon is busy; hintfs's daemon runs as root and
// writes back as fast as a local filesystem, so the mount lifts the limit to
// what any local filesystem gets (the global dirty_ratio).
#ifndef HINTFS_ADAPTERS_FUSE_DIRTY_LIMIT_H_
#define HINTFS_ADAPTERS_FUSE_DIRTY_LIMIT_H_

#include <string>

#include "fs/status.h"

namespace hintfs {

// The backing device info name ("major:minor") of the filesystem mounted at
// mountpoint, from /proc/self/mountinfo (no call into the mount itself,
// which may not be served yet). NotFound if nothing is mounted there.
Status MountDeviceName(const std::string& mountpoint, std::string* bdi);

// Clears strict_limit and sets max_ratio to 100 under /sys/class/bdi/<bdi>.
// Needs root and Linux >= 6.2 (strict_limit in sysfs): IOError naming the
// file otherwise.
Status LiftDirtyLimit(const std::string& bdi);

}  // namespace hintfs

#endif  // HINTFS_ADAPTERS_FUSE_DIRTY_LIMIT_H_
