// The command line `hintfs mount` hands to libfuse, and the checks made on
// the mountpoint before anything is mounted.
#ifndef HINTFS_ADAPTERS_FUSE_FUSE_ARGS_H_
#define HINTFS_ADAPTERS_FUSE_FUSE_ARGS_H_

#include <string>
#include <vector>

#include "adapters/fuse/fuse_mount.h"
#include "fs/status.h"

namespace hintfs {

// argv for fuse_new: -d if debugging, the -o lists without our own options
// ([no_]writeback_cache, which set *writeback), default_permissions, and the
// filesystem's name (fsname=hintfs, subtype=hintfs: `mount` and `df` show
// "hintfs" of type "fuse.hintfs") unless the lists name it.
std::vector<std::string> FuseArguments(const FuseMountOptions& options, bool* writeback);

// The mount spec for options.spec: the SSD block cache off unless the spec
// names cache=, and read_only=on if the -o lists say ro (the kernel refuses
// writes with EROFS; read_only keeps the daemon from writing anything, even
// the journal records of mount and unmount).
//
// The cache serves reads that are exactly one data block, as stores issue
// them; through the kernel every read arrives page-aligned and page-sized, so
// on the mount it never served (0 lookups in a read-only run) and only cost:
// the index of every slow table read to look for blocks, and hhzs 0.65-0.94
// of B3 where it was 0.93-1.11 without it (docs/benchmarks.md, issue 20). A
// spec that does not parse comes back as it is (AcquireMount reports it).
std::string MountSpec(const FuseMountOptions& options);

// What can be checked before anything is mounted: Busy if something is
// already mounted at the mountpoint (a second mount would hide the first);
// NotFound if it does not exist, InvalidArgument if it is not a directory,
// or if the spec asks for metrics on port 0 (metrics=HOST:0) of a mount that
// detaches (the port it picks is said on stderr, which the daemon no longer
// has).
Status CheckBeforeMounting(const FuseMountOptions& options);

// While alive, libfuse's messages are kept rather than printed, so that a
// failed setup step reports one line with libfuse's reason in it.
class FuseLogCapture {
 public:
  FuseLogCapture();
  ~FuseLogCapture();  // libfuse's own printer again
  // What libfuse said, on one line.
  static std::string Text();
  // On success, what libfuse said goes out as it would have.
  static void Print();
};

}  // namespace hintfs

#endif  // HINTFS_ADAPTERS_FUSE_FUSE_ARGS_H_
