// The hintfs filesystem as a directory, through FUSE (libfuse3, high-level
// API, multi-threaded), so any program can run on it, LSM stores we have no
// adapter for included. The mount shares everything the adapters get from
// the mount registry: the placement policy, hints inferred from file names
// and MANIFEST edits and the I/O pattern, migration, the block cache.
//
// Files are append-only, as in every zoned filesystem: a write must start at
// the end of the file (EINVAL otherwise; a store never overwrites). Writes
// reach the filesystem when written; fsync/fdatasync make them durable
// (FileWriter::Sync) and fsync of a directory makes namespace changes
// durable. Truncate works to any size. Locks are the kernel's (local to this
// host), which is what LevelDB and RocksDB need.
//
// A read-only directory .hintfs at the root holds stats.json (filesystem,
// devices, policy, migration, cache) and metrics (Prometheus text), made
// afresh on every open.
#ifndef HINTFS_ADAPTERS_FUSE_FUSE_MOUNT_H_
#define HINTFS_ADAPTERS_FUSE_FUSE_MOUNT_H_

#include <string>
#include <vector>

namespace hintfs {

struct FuseMountOptions {
  std::string spec;        // a mount spec (adapters/common/mount_registry.h)
  std::string mountpoint;
  bool foreground = false;  // else the daemon detaches once the mount is up
  bool debug = false;
  std::vector<std::string> fuse_options;  // passed on as -o
};

// Mounts and serves until unmounted (fusermount3 -u, umount, SIGTERM or
// SIGINT); then the hintfs mount is released cleanly. Returns a process exit
// status: 0, 1 for runtime failures, 2 for bad arguments.
int RunFuseMount(const FuseMountOptions& options);

}  // namespace hintfs

#endif  // HINTFS_ADAPTERS_FUSE_FUSE_MOUNT_H_
