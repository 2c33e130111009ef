// HHZS write-guided data placement (HHZS §3.3), driven by hints.
//
// In units of tables (HHZS sizes a table to fill one SSD zone; here a
// "slot" is table_bytes of fast-tier capacity):
//   A_i  tables of level i placed on the fast tier and still alive
//   D_i  storage demand: for L0 the live WALs (each becomes a flushed table),
//        for deeper levels the tables running compactions may still write
//        (+selected tables at compaction begin, -1 per output, the rest at end)
//   C    fast-tier capacity for tables: fast data capacity minus the WAL budget
//   t    tiering level: the lowest i with sum_{j<=i} (A_j + D_j) >= C
//   R    slots reserved for L_t: C - sum_{j<t} (A_j + D_j)
// A new table goes to the fast tier if it comes from a flush (rule i), is at a
// level below t (rule ii), or is at L_t while fewer than R of L_t's tables are
// on the fast tier (rule iii); otherwise to the slow tier. WAL files always go
// to the fast tier. The fs spills to the slow tier if the fast tier is full.
#ifndef HINTFS_PLACEMENT_HHZS_POLICY_H_
#define HINTFS_PLACEMENT_HHZS_POLICY_H_

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "fs/allocation.h"
#include "placement/level_tracker.h"

namespace hintfs {

struct HhzsConfig {
  uint64_t table_bytes = 64ull << 20;       // the store's target table size
  uint64_t wal_budget_bytes = 256ull << 20;  // fast capacity held back for WAL (and cache)
};

class HhzsPolicy : public AllocationPolicy {
 public:
  static constexpr int kMaxLevels = 8;

  // name is how mkfs and mount spell it, options included ("hhzs:table_bytes=4MiB").
  HhzsPolicy(std::string name, std::shared_ptr<HintBus> bus, HhzsConfig config);
  ~HhzsPolicy() override;

  std::string name() const override { return name_; }
  ZoneRole RoleForNewFile(const std::string& path) override;
  void ChooseDevices(const AllocationRequest& request, const std::vector<DeviceSpace>& devices,
                     std::vector<uint32_t>* order) override;
  void OnAllocated(const AllocationRequest& request, const DeviceSpace& device) override;
  // The WAL budget is held as empty fast zones that tables may not take.
  uint32_t ReservedEmptyZones(const DeviceSpace& device, ZoneRole role) override;
  std::string StateJson() const override;

  // The placement decision for a table at level (a flush output if from_flush)
  // given fast capacity for tables of capacity_slots; also the tiering level
  // and the slots reserved for it. Exposed for tests.
  struct Decision {
    bool fast = false;
    int tiering_level = kMaxLevels;
    int64_t reserved = 0;
  };
  Decision Decide(int level, bool from_flush, int64_t capacity_slots) const;

  int64_t allocated(int level) const;
  int64_t demand(int level) const;

 private:
  struct Job {
    int level = -1;
    int64_t selected = 0;
    int64_t written = 0;
  };
  void OnHint(const Hint& hint);
  Decision DecideLocked(int level, bool from_flush, int64_t capacity_slots) const;

  std::string name_;
  std::shared_ptr<HintBus> bus_;
  HhzsConfig config_;
  LevelTracker tracker_;
  uint64_t subscription_ = 0;

  mutable std::mutex mu_;
  int64_t allocated_[kMaxLevels] = {};
  int64_t demand_[kMaxLevels] = {};
  std::map<int64_t, Job> jobs_;                 // running compactions
  std::map<std::string, int> fast_tables_;      // path -> level, tables that landed fast
  std::map<std::string, bool> decided_;         // table -> the tier chosen (fast?)
  std::map<std::string, int> pending_levels_;   // table -> level, until its first zone lands
  std::set<std::string> live_wals_;
  int64_t last_capacity_slots_ = 0;
  uint64_t fast_decisions_ = 0, slow_decisions_ = 0;
};

}  // namespace hintfs

#endif  // HINTFS_PLACEMENT_HHZS_POLICY_H_
