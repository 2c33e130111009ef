// The subcommands of the hintfs tool. Each returns the process exit status
// (adapters/common/exit_status.h): 0 success, 1 failure, 3 damage; a
// one-line error is printed. Bad usage (2) is found before they run.
#ifndef HINTFS_ADAPTERS_CLI_COMMANDS_H_
#define HINTFS_ADAPTERS_CLI_COMMANDS_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "adapters/common/exit_status.h"
#include "fs/filesystem.h"
#include "fs/walk.h"

namespace hintfs {
namespace cli {

struct MkfsArgs {
  std::vector<std::string> fast, slow;
  uint32_t meta_zones = 3;
  uint32_t fast_data_zones = 0;  // 0: every zone
  std::string policy = "fast-first";
  bool force = false;
};

int Mkfs(const MkfsArgs& args);
int Info(const std::string& uri, bool json);
int Df(const std::string& uri, bool json);
int Ls(const std::string& uri, const std::string& path, bool long_format, bool recursive, bool json);
int Dump(const std::string& uri, bool json);
int Fsck(const std::string& uri, bool deep, bool json);
// fsck --repair: mounts with MountOptions::repair (journal replayed up to
// damage, files past what the devices hold cut), reads every file back and
// moves those that do not check out to /lost+found with the cut ones, then
// checks the result; exit 0 if it is clean, 3 if problems remain.
int Repair(const std::string& uri, bool json);
int Gc(const std::string& uri, uint32_t zones);
int Cat(const std::string& uri, const std::string& path);
// salvage: mount a damaged filesystem as fsck --repair would (read-only),
// copy what checks out, zeros for blocks that do not; exit 3 if anything was
// damaged.
int Backup(const std::string& uri, const std::string& host_dir, bool salvage);
int Restore(const std::string& uri, const std::string& host_dir);
int Profiles();

struct ReplayArgs {
  std::string policy;  // required: replay compares policies
  std::string fast_profile = "zn540";
  std::string slow_profile = "st14000";
  uint32_t ssd_zones = 64;
  uint32_t hdd_zones = 4096;
  std::string zone_size = "64MiB";
  bool json = false;
};
int TraceDump(const std::string& path, bool json);
// Writes a trace's files onto the filesystem at uri and publishes its hints
// there (hints/trace_apply.h), mounted as a store mounts it (its recorded
// policy; the options in uri's query, stats=HOSTPATH among them); prints
// what was written and what GC relocated. oracle_unit (a size; empty: the
// store's hints) gives each file the lifetime hint its real lifetime calls
// for (TraceApplyOptions), only tables of oracle_levels if any are given.
// Exit 1 when a write fails (the filesystem is full, say) or the trace is
// damaged, 2 for a bad size.
int TraceApply(const std::string& path, const std::string& uri, const std::string& oracle_unit,
               const std::vector<int>& oracle_levels, bool json);
// A live view of the mount serving metrics at address (HOST:PORT): tiers,
// levels, migration, cache; count frames (0: until interrupted), a frame an
// interval. Exit 1 if nothing answers there.
int Top(const std::string& address, double interval_seconds, uint32_t count);
int Replay(const std::string& path, const ReplayArgs& args);

// Prints "hintfs: <what>: <status>" and returns ExitStatusFor(status).
int Fail(const std::string& what, const Status& s);
// Mounts uri with the recorded placement policy, and the members named by
// SetMemberUris at the places given there.
Status MountForCli(const std::string& uri, bool read_only, std::unique_ptr<Filesystem>* fs,
                   bool repair = false);
// Mounts uri read-only for info, df, ls and dump. A file-image filesystem
// another process has mounted (Busy) is mounted as a snapshot (file:
// snapshot=1): its journal on the devices (commits up to its last sync), the
// note saying so on stderr.
Status MountForLooking(const std::string& uri, std::unique_ptr<Filesystem>* fs);
// The --member N=URI options of the command line (MountOptions::member_uris).
void SetMemberUris(const std::map<uint32_t, std::string>& member_uris);

}  // namespace cli
}  // namespace hintfs

#endif  // HINTFS_ADAPTERS_CLI_COMMANDS_H_
