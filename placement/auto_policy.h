// SpanDB's automated placement (AUTO) as HHZS §4.1 re-implements it: all
// levels up to a maximum level go to the fast tier, deeper ones to the slow
// tier. Every tuning period the maximum level moves by one: up when the fast
// tier's write throughput is below 40% of its sequential write bandwidth,
// down when above 65%. With less than 13.3% of the fast tier free the maximum
// level is fixed at 1; below 8% no table goes to the fast tier. The WAL
// always goes fast, with space held back for it as in HHZS.
//
// Time is the time of the hints the policy sees (real time under a store,
// virtual time in replay), so replay stays deterministic.
#ifndef HINTFS_PLACEMENT_AUTO_POLICY_H_
#define HINTFS_PLACEMENT_AUTO_POLICY_H_

#include <memory>
#include <mutex>
#include <string>

#include "fs/allocation.h"
#include "placement/level_tracker.h"
#include "placement/static_policies.h"
#include "placement/table_size.h"
#include "placement/tiering.h"

namespace hintfs {

struct AutoConfig {
  double fast_write_mib_per_s = 1002.8;      // zn540
  uint64_t period_ns = 1000000000;            // tuning period
  uint64_t wal_budget_bytes = kWalBudgetFromDevice;  // two fast zones (ResolveWalBudget)
  uint64_t table_bytes = 0;  // the store's target table size (ZonePerFile); 0: learned
  int initial_max_level = 2;
};

class AutoPolicy : public AllocationPolicy {
 public:
  AutoPolicy(std::string name, std::shared_ptr<HintBus> bus, AutoConfig config);
  ~AutoPolicy() override;

  std::string name() const override { return name_; }
  ZoneRole RoleForNewFile(const std::string& path) override;
  bool MayUseReserve(const AllocationRequest& request) override { return LsmFreesSpace(request); }
  bool ZonePerFile(ZoneRole role, uint64_t zone_capacity) override {
    return LsmTablesOwnZones(role, table_size_.bytes(), zone_capacity);
  }
  bool WritersShareZones(ZoneRole role) override { return LsmWritersShareZones(role); }
  void ChooseDevices(const AllocationRequest& request, const std::vector<DeviceSpace>& devices,
                     std::vector<uint32_t>* order) override;
  uint32_t ReservedEmptyZones(const DeviceSpace& device, ZoneRole role) override;
  void OnAllocated(const AllocationRequest& request, const DeviceSpace& device) override;
  uint64_t AskAgainAfter(const AllocationRequest& request, const DeviceSpace& device) override {
    return LsmAskAgainAfter(request, device);
  }
  std::string StateJson() const override;

  int max_level() const;

 private:
  void Tick(uint64_t now_ns);  // mu_ held

  std::string name_;
  std::shared_ptr<HintBus> bus_;
  AutoConfig config_;
  LevelTracker tracker_;
  TableSize table_size_;
  uint64_t subscription_ = 0;

  mutable std::mutex mu_;
  int max_level_;
  uint64_t now_ns_ = 0;            // latest hint time
  uint64_t period_start_ns_ = 0;
  uint64_t fast_bytes_in_period_ = 0;
  double last_throughput_ = 0;     // share of the sequential write bandwidth
  double last_free_share_ = 1;
  uint64_t last_wal_budget_ = 0;  // as resolved on the fast tier last seen
};

}  // namespace hintfs

#endif  // HINTFS_PLACEMENT_AUTO_POLICY_H_
