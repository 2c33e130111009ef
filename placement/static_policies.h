// The static baselines of HHZS §2.3 and the two bounds:
//   bH        the WAL and levels below H go to the fast tier (spilling to the
//             slow tier when it is full); levels H and deeper go to the slow
//             tier only. b1..b4.
//   all-fast  everything to the fast tier first (spilling when full).
//   all-slow  everything to the slow tier, WAL included.
// Files whose level is unknown (manifests, options) are treated as low
// level; info logs go to the fast tier only while small (LsmKeepsOffFastTier).
// WAL files ("*.log") get the wal class, so they never share a zone with tables.
// With "migration=on" among its options ("b3:migration=on,table_bytes=4MiB")
// a bH policy tiers (HHZS Exp#2's B3+M): the migrator moves hot tables of
// levels below H that spilled to the slow tier up while the fast tier has
// room, and tables that reached level H or deeper down; it never lifts a
// table of level H or deeper.
#ifndef HINTFS_PLACEMENT_STATIC_POLICIES_H_
#define HINTFS_PLACEMENT_STATIC_POLICIES_H_

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <mutex>

#include "fs/allocation.h"
#include "placement/level_tracker.h"
#include "placement/table_ledger.h"
#include "placement/table_size.h"
#include "placement/tiering.h"

namespace hintfs {

// Whether the LSM policies keep request off a fast tier of fast_bytes
// whatever its level: the part of a store's info log (LOG; LevelDB's and
// RocksDB's rotated LOG.old* are renamed from it) past its first
// fast_bytes / kInfoLogFastShare bytes. The small files a store reads or
// appends to all the time (CURRENT, MANIFEST, OPTIONS, the LOG's
// beginning) belong on the fast tier: on an HDD each small append costs a
// seek. But an info log grows with every flush and compaction the store
// reports (6 MiB in one load of the scaled HHZS reproduction, 15% of its
// 40 MiB SSD) and is read only by people, so its bulk goes to the slow
// tier. (all-fast, the upper bound, keeps all of it fast.) The block
// indexes hintfs keeps of tables (hints/block_index_keeper.h) are not kept
// off: each is read at every mount, one random read per table, which on an
// HDD cost 1.7 s of its time per mount of a 220-table store and slowed the
// first phase after it by 13% (docs/benchmarks.md); they are about 0.2% of
// the bytes of the tables they describe (with 4 KiB blocks; 0.6% with 1 KiB).
// hhzs sends them slow while block tiering holds fast room, which a moved
// block serves better.
constexpr uint64_t kInfoLogFastShare = 256;
bool LsmKeepsOffFastTier(const AllocationRequest& request, uint64_t fast_bytes);
// AllocationPolicy::AskAgainAfter for the LSM policies: an info log on a
// fast device may go on there until it holds that device's share; the
// filesystem then asks again, and LsmKeepsOffFastTier sends the rest slow.
// (Without it the log kept a whole shared zone of the fast tier, and every
// LOG.old the store rotates out kept it: 2 MiB of a 40 MiB SSD.)
uint64_t LsmAskAgainAfter(const AllocationRequest& request, const DeviceSpace& device);

// Whether tables of about table_bytes should each own their zones
// (AllocationPolicy::ZonePerFile) on a device with zones of zone_capacity:
// when a table fills at least half a zone and, with the few percent a table
// runs past its target (its last block, index and filter), still fits one.
// HHZS sizes tables to zones; then sharing a zone would leave each zone the
// tail of one table and the head of the next, pinned until both die.
bool LsmTablesOwnZones(ZoneRole role, uint64_t table_bytes, uint64_t zone_capacity);

// A store's write-ahead logs take turns in one zone
// (AllocationPolicy::WritersShareZones): written one after another and
// deleted in that order, they pin little garbage together, while a zone
// each leaves every zone partly empty for as long as the store keeps the
// log open. So do its other small files (ZoneRole::kData: MANIFEST, LOG,
// CURRENT, OPTIONS): the MANIFEST and the info log stay open for the
// store's life and write a few KiB per flush or compaction, so a zone each
// kept 2.6 of HyperDB's scaled 20 NVMe zones for about 1 MiB of live data
// whenever a table found none (docs/benchmarks.md, session 96).
bool LsmWritersShareZones(ZoneRole role);

// An LSM store's table files (flush and compaction outputs) free space once
// written: they may use the filesystem's reserve (AllocationPolicy::MayUseReserve).
bool LsmFreesSpace(const AllocationRequest& request);

// The filesystem's default (fast tier first) for LSM stores: their table
// files may also use the reserve.
class LsmFastFirstPolicy : public FastFirstPolicy {
 public:
  bool MayUseReserve(const AllocationRequest& request) override { return LsmFreesSpace(request); }
};

struct LevelThresholdConfig {
  // A table slot of the fast tier, to count the room migration may fill;
  // 0: learned (table_size.h).
  uint64_t table_bytes = 0;
  TieringServices services;  // all off unless the options say
};

class LevelThresholdPolicy : public AllocationPolicy, public TieringSource {
 public:
  // Levels below fast_levels go fast; fast_levels < 0 puts nothing on the
  // fast tier (all-slow).
  LevelThresholdPolicy(std::string name, int fast_levels, std::shared_ptr<HintBus> bus,
                       LevelThresholdConfig config = LevelThresholdConfig());
  ~LevelThresholdPolicy() override;

  std::string name() const override { return name_; }
  ZoneRole RoleForNewFile(const std::string& path) override;
  void ChooseDevices(const AllocationRequest& request, const std::vector<DeviceSpace>& devices,
                     std::vector<uint32_t>* order) override;
  bool MayUseReserve(const AllocationRequest& request) override { return LsmFreesSpace(request); }
  bool ZonePerFile(ZoneRole role, uint64_t zone_capacity) override {
    return LsmTablesOwnZones(role, table_size_.bytes(), zone_capacity);
  }
  bool WritersShareZones(ZoneRole role) override { return LsmWritersShareZones(role); }
  void OnAllocated(const AllocationRequest& request, const DeviceSpace& device) override;
  uint64_t AskAgainAfter(const AllocationRequest& request, const DeviceSpace& device) override {
    return LsmAskAgainAfter(request, device);
  }
  void OnMigrated(const std::string& path, Tier tier) override;
  // Counts the tables earlier mounts placed.
  void OnMountedFiles(const std::vector<MountedFile>& files) override;
  std::string StateJson() const override;
  // L_t is the deepest fast level (H - 1; none for all-fast); it may take
  // every free slot.
  TieringView Tiering() const override;
  TieringServices Services() const override { return config_.services; }
  void SetAsideFastBytes(uint64_t bytes) override;

  const LevelTracker& tracker() const { return tracker_; }

 private:
  std::string name_;
  int fast_levels_;
  std::shared_ptr<HintBus> bus_;
  LevelThresholdConfig config_;
  LevelTracker tracker_;
  TableSize table_size_;
  uint64_t subscription_ = 0;

  mutable std::mutex mu_;
  TableLedger ledger_;
  int64_t capacity_slots_ = 0;  // fast table slots, as the last allocation saw the devices
  uint64_t set_aside_bytes_ = 0;  // SetAsideFastBytes
};

// The class of an LSM store's file: wal for its write-ahead logs, table for
// its tables, data for the rest.
ZoneRole LsmRoleFor(const std::string& path);

// Table slots once what is set aside for other services moves from
// old_aside to new_aside bytes (until the next allocation recomputes them).
int64_t ShiftedSlots(int64_t slots, uint64_t old_aside, uint64_t new_aside, uint64_t table_bytes);

// Counts in ledger the tables a mount found whose level their tag records,
// on the tier that holds most of their bytes.
void CountMountedTables(const std::vector<MountedFile>& files, TableLedger* ledger);
// Follows the levels h names for tables (TableLedger::Relevel): a table the
// MANIFEST records at a level (every table, when a store opens and writes a
// new MANIFEST), and the outputs of a finished compaction, which for a
// trivial move are its inputs at their new level. Guesses ("inferred") are
// not followed.
void RelevelTables(const Hint& h, TableLedger* ledger);

// Empty zones a request of role must leave on device so that a budget of
// budget_bytes stays available on the fast tier for the WAL and the block
// cache (HHZS's WAL and cache zones), which share it (the cache keeps within
// what the WAL leaves). Everything else, blocks moved up by block tiering
// included, must leave those zones alone: a WAL that finds no fast zone
// spills to the slow tier and pays a seek per sync.
uint32_t WalBudgetReserve(const DeviceSpace& device, ZoneRole role, uint64_t budget_bytes);
// The zones of device that hold what shares that budget: the WAL's and the
// cache's.
uint64_t WalBudgetZonesInUse(const DeviceSpace& device);
// The zones of device that hold blocks moved up by block tiering.
uint64_t MovedBlockZones(const DeviceSpace& device);

}  // namespace hintfs

#endif  // HINTFS_PLACEMENT_STATIC_POLICIES_H_
