// The static baselines of HHZS §2.3 and the two bounds:
//   bH        the WAL and levels below H go to the fast tier (spilling to the
//             slow tier when it is full); levels H and deeper go to the slow
//             tier only. b1..b4.
//   all-fast  everything to the fast tier first (spilling when full).
//   all-slow  everything to the slow tier, WAL included.
// Files whose level is unknown (manifests, logs) are treated as low level.
// WAL files ("*.log") get the wal role, so they never share a zone with tables.
#ifndef HINTFS_PLACEMENT_STATIC_POLICIES_H_
#define HINTFS_PLACEMENT_STATIC_POLICIES_H_

#include <memory>
#include <string>

#include "fs/allocation.h"
#include "placement/level_tracker.h"

namespace hintfs {

// An LSM store's table files (flush and compaction outputs) free space once
// written: they may use the filesystem's reserve (AllocationPolicy::MayUseReserve).
bool LsmFreesSpace(const AllocationRequest& request);

// The filesystem's default (fast tier first) for LSM stores: their table
// files may also use the reserve.
class LsmFastFirstPolicy : public FastFirstPolicy {
 public:
  bool MayUseReserve(const AllocationRequest& request) override { return LsmFreesSpace(request); }
};

class LevelThresholdPolicy : public AllocationPolicy {
 public:
  // Levels below fast_levels go fast; fast_levels < 0 puts nothing on the
  // fast tier (all-slow).
  LevelThresholdPolicy(std::string name, int fast_levels, std::shared_ptr<HintBus> bus);

  std::string name() const override { return name_; }
  ZoneRole RoleForNewFile(const std::string& path) override;
  void ChooseDevices(const AllocationRequest& request, const std::vector<DeviceSpace>& devices,
                     std::vector<uint32_t>* order) override;
  bool MayUseReserve(const AllocationRequest& request) override { return LsmFreesSpace(request); }
  std::string StateJson() const override;

  const LevelTracker& tracker() const { return tracker_; }

 private:
  std::string name_;
  int fast_levels_;
  LevelTracker tracker_;
};

// The zone role of an LSM store's file: wal for its write-ahead logs, data
// for the rest.
ZoneRole LsmRoleFor(const std::string& path);

// Empty zones a request of role must leave on device so that a budget of
// budget_bytes stays available on the fast tier for the WAL and the block
// cache (HHZS's WAL and cache zones); the WAL and the cache themselves may
// use it.
uint32_t WalBudgetReserve(const DeviceSpace& device, ZoneRole role, uint64_t budget_bytes);

}  // namespace hintfs

#endif  // HINTFS_PLACEMENT_STATIC_POLICIES_H_
