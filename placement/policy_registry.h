// Placement policies by name. mkfs records a policy name; mount asks this
// registry to make it (MountOptions::policy_factory). Known: fast-first, hhzs,
// auto, b1, b2, b3, b4, all-fast, all-slow, temperature (RocksDB's file
// temperatures, temperature.h). All but fast-first and temperature take options
// after a colon, kept in the recorded name:
//   hhzs      "hhzs:table_bytes=64MiB,wal_budget=256MiB,hold_ms=0" (HhzsConfig)
//   bN, all-fast, all-slow  "b3:table_bytes=64MiB" (LevelThresholdConfig)
//   both, the services they ask the mount for (tiering.h): "migration=on,
//             migration_rate=4MiB,slow_read_iops=115,cache=all,cache_budget=0"
//             (hhzs: migration and cache on; the others: both off)
//   auto      "auto:wal_budget=1GiB,table_bytes=64MiB,period_ms=1000,fast_write_mib_s=1002.8,
//             max_level=2".
// Every policy also takes lifetime=off|hint|learned: zones grouped by the
// files' lifetime classes (lifetime_policy.h; "fast-first:lifetime=hint").
// table_bytes, the store's target table size, also decides whether tables
// own their zones (LsmTablesOwnZones, static_policies.h). Left out, it is
// learned from the tables the store writes (table_size.h) and wal_budget
// is two zones of the fast tier, grown to the WAL's peak (tiering.h; hhzs
// holds it for wal_window_ms where wal_peak=auto|on|off says, HhzsConfig).
#ifndef HINTFS_PLACEMENT_POLICY_REGISTRY_H_
#define HINTFS_PLACEMENT_POLICY_REGISTRY_H_

#include <memory>
#include <string>
#include <vector>

#include "fs/allocation.h"
#include "fs/status.h"
#include "hints/hint_bus.h"

namespace hintfs {

// The names NewAllocationPolicy accepts, in a stable order.
std::vector<std::string> AllocationPolicyNames();

// Makes the policy called name, listening to bus for hints; NotFound lists
// the known names.
Status NewAllocationPolicy(const std::string& name, std::shared_ptr<HintBus> bus,
                           std::shared_ptr<AllocationPolicy>* policy);

// The same with a bus of its own (no hints arrive: levels come from lifetime
// hints only). For tools that mount to inspect or copy.
Status NewAllocationPolicy(const std::string& name, std::shared_ptr<AllocationPolicy>* policy);

}  // namespace hintfs

#endif  // HINTFS_PLACEMENT_POLICY_REGISTRY_H_
