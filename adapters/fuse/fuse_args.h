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

// Busy if something is already mounted at mountpoint (a second mount would
// hide the first); NotFound if it does not exist, InvalidArgument if it is
// not a directory.
Status CheckMountpointFree(const std::string& mountpoint);

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
