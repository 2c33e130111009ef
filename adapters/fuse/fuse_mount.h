// The hintfs filesystem as a directory, through FUSE (libfuse3, high-level
// API, multi-threaded), so any program can run on it, LSM stores we have no
// adapter for included. The mount shares everything the adapters get from
// the mount registry: the placement policy, hints inferred from file names
// and MANIFEST edits and the I/O pattern, migration, the block cache.
//
// Files can be written anywhere: zones take appends only, so a write over
// bytes a file holds is written out of place (FileWriter::WriteAt) and the
// old blocks become garbage for GC. By default the kernel's write-back cache
// is on (-o no_writeback_cache turns it off): a write() lands in the page
// cache and reaches hintfs at write-back, fsync or close, so a store's many
// small log writes cost no round trip each; the kernel sends pages whole,
// again and out of order, and OrderedAppender writes only what changed. A
// write-back that fails (no space, a device error) is reported by fsync and
// close (EIO or ENOSPC), logged, and the kernel's cached copy is dropped.
// fallocate extends a file with zeros (nothing can be reserved ahead in
// zones written once). Symbolic links, special nodes (FIFOs, sockets,
// device nodes: the kernel serves them), modes and owners are kept
// (Filesystem::Symlink, SetOwnership) and the kernel checks permissions
// (default_permissions); a new inode keeps its creator's mode and owner.
// The mount is named hintfs, type fuse.hintfs, and a mountpoint something
// is already mounted on is refused.
// fsync/fdatasync make a file durable (FileWriter::Sync) and fsync of a
// directory makes namespace changes durable. Truncate works to any size.
// Locks are the kernel's (local to this host), which is what LevelDB and
// RocksDB need. With the write-back cache on, the daemon lifts the kernel's
// strict dirty-page limit for the mount (dirty_limit.h).
//
// A read-only directory .hintfs at the root holds stats.json (filesystem,
// devices, policy, migration, cache, and the mount's own figures: held and
// failed writes) and metrics (Prometheus text), made afresh on every open.
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
  // -o lists: [no_]writeback_cache are ours, the rest go to FUSE.
  std::vector<std::string> fuse_options;
};

// Mounts and serves until unmounted (fusermount3 -u, umount, SIGTERM or
// SIGINT); then the hintfs mount is released cleanly. Returns a process exit
// status (adapters/common/exit_status.h): 0; 1 for a failure (no image, a
// busy mountpoint...); 2 for a bad mount option or spec key; 3 for damage.
int RunFuseMount(const FuseMountOptions& options);

}  // namespace hintfs

#endif  // HINTFS_ADAPTERS_FUSE_FUSE_MOUNT_H_
