// Replays a hint trace against a placement policy in virtual time, over two
// modelled devices (a fast and a slow one, each a set of equal zones with a
// timing profile): the policy sees the trace's hints and every file's zone
// requests exactly as it would under the store, and the model counts where
// bytes land and how long the devices would be busy. The same trace, policy
// and options always give the same result.
//
// The model gives each table whole zones of its own (as HHZS does with tables
// sized to a zone), packs other files into shared zones, spills to the other
// tier when the chosen one is full, and frees a file's zones when it is
// deleted. Under a policy with migration on (tiering.h), the migration planner runs
// once a virtual second and one table at a time moves at the policy's
// migration rate: its new zones are taken when the move starts and its old
// ones freed when it ends, as the filesystem does.
#ifndef HINTFS_PLACEMENT_REPLAY_H_
#define HINTFS_PLACEMENT_REPLAY_H_

#include <cstdint>
#include <map>
#include <string>

#include "fs/filesystem.h"
#include "fs/device/timing_profile.h"
#include "hints/trace.h"

namespace hintfs {

struct ReplayOptions {
  std::string policy = "hhzs";
  std::string fast_profile = "zn540";
  std::string slow_profile = "st14000";
  uint32_t ssd_zones = 64;
  uint32_t hdd_zones = 4096;
  uint64_t zone_capacity = 64ull << 20;  // both tiers
};

struct ReplayResult {
  struct Bytes {
    uint64_t fast = 0;
    uint64_t slow = 0;
  };
  std::map<std::string, Bytes> per_level;  // "wal", "L0", "L1", ..., "other": bytes written
  std::map<std::string, Bytes> resident;   // the same levels: bytes of live files at the end
  struct Migration {
    uint64_t to_fast_bytes = 0, to_slow_bytes = 0;
    uint64_t capacity = 0, popularity = 0, swap = 0, fill = 0;  // moves started, per reason
    uint64_t dropped = 0;  // the table was deleted during its move, or no room
  } migration;
  Bytes written, read;
  double ssd_utilization = 0;     // time-weighted mean of used / total SSD zones
  double ssd_utilization_max = 0;
  double modeled_seconds = 0;     // the busier device's time
  double fast_seconds = 0, slow_seconds = 0;
  uint64_t events = 0;
  uint64_t spilled_zones = 0;     // zones that went to the other tier because the chosen one was full
  std::string policy_state;       // the policy's StateJson() at the end

  std::string ToJson() const;
};

// progress(offset, size) is called now and then. NotFound for an unknown
// policy, InvalidArgument for its bad options or devices without zones;
// Corruption for a damaged trace (the reader's error, naming the offset).
Status ReplayTrace(TraceReader* trace, const ReplayOptions& options, ReplayResult* result,
                   const ProgressFn& progress);

}  // namespace hintfs

#endif  // HINTFS_PLACEMENT_REPLAY_H_
