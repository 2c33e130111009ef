// What the filesystem under a benchmarked store is doing, read the same way
// whether the store runs on hintfs in the driver's process or on a hintfs
// FUSE mount (whose daemon publishes its figures in `.hintfs/stats.json` at
// the mount's root, adapters/common/mount_stats.h), and the wait for it to
// go quiet after a load.
#ifndef HINTFS_ADAPTERS_BENCH_FS_ACTIVITY_H_
#define HINTFS_ADAPTERS_BENCH_FS_ACTIVITY_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "fs/filesystem.h"

namespace hintfs {

// The statistics file of the hintfs mount that holds host_dir, or "" for a
// directory on another filesystem.
std::string MountStatsFile(const std::string& host_dir);

// The statistics in file; a discarded value if it cannot be read or parsed
// (the file is read, not trusted).
nlohmann::json ReadMountStats(const std::string& file);

// One look at the filesystem's background work.
struct FsActivity {
  // Bytes written and migrated so far: growing while the store writes or
  // compacts, or while migration moves tables.
  uint64_t bytes = 0;
  // Whether migration is holding back moves it may make once a wait is over
  // (hhzs's up_moves_held_ms, placement/hhzs_policy.h): the filesystem is
  // quiet now but will not stay so.
  bool moves_held = false;
};
using ActivitySource = std::function<std::optional<FsActivity>()>;

// Of fs when the store runs on it in this process, else of the mount that
// holds host_dir; a source that always answers nullopt for a directory on
// another filesystem, or while the statistics cannot be read.
ActivitySource FilesystemActivity(Filesystem* fs, const std::string& host_dir);

struct QuietOptions {
  std::chrono::milliseconds poll{250};
  // How long nothing may be written or migrated, with no move held back,
  // for the filesystem to count as quiet: well over a table's move at the
  // slowest migration rate.
  std::chrono::milliseconds quiet{3000};
};

// After a load's compactions: lets the moves migration has in flight, and
// any it starts once the compactions are over (also those it holds back for
// a while after the last compaction), finish before the state is kept, as
// they would in a store left running. Waits up to timeout seconds for the
// filesystem to be quiet. For a store that cannot say whether it is
// compacting (LevelDB) this is also the wait for its compactions, whose
// outputs are writes. (It cannot wait for what the policy will want only
// after the next open: under hhzs, the load's live WALs keep L0's demand up
// until the store's recovery flushes them.) Returns the seconds waited; 0
// when the source tells nothing.
double WaitForFilesystemQuiet(const ActivitySource& activity, double timeout, QuietOptions options = {});

}  // namespace hintfs

#endif  // HINTFS_ADAPTERS_BENCH_FS_ACTIVITY_H_
