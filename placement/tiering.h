// Tiering as a capability of a placement policy. A policy that places tables
// by level (hhzs, the static bN baselines, all-fast, all-slow) also tells
// the mount services what they need to run for it: the tiering state the
// migration planner plans against (migration_planner.h) and the services it
// asks for by default (migration, the SSD block cache), which it reads from
// its options ("b3:migration=on", "hhzs:cache=off"; placement/policy_registry.h). The mount services
// (adapters/common/mount_services.h) and trace replay (replay.h) ask
// TieringOf for it instead of knowing any policy by type.
#ifndef HINTFS_PLACEMENT_TIERING_H_
#define HINTFS_PLACEMENT_TIERING_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "fs/allocation.h"
#include "fs/status.h"
#include "placement/migration_planner.h"

namespace hintfs {

// What a mount runs for the policy unless its spec overrides it.
struct TieringServices {
  bool migration = false;                      // workload-aware migration (HHZS §3.4)
  // migration=auto: on unless block tiering already does its work where a
  // table's move costs more than it saves (ResolveMigration).
  bool migration_auto = false;
  uint64_t migration_rate = 4ull << 20;        // bytes per second, both directions together
  double slow_read_iops = 0;                   // 0: from the slow devices' timing profiles
  std::string cache = "off";                   // block cache admission (cache/admission.h), or auto
  // Fast capacity the WAL and the cache share (kWalBudgetFromDevice: as
  // ResolveWalBudget gives it).
  uint64_t wal_budget_bytes = 0;
  uint64_t cache_budget_bytes = 0;             // more for the cache alone
  // Where the cache lives: "budget" (what the WAL leaves of its budget, HHZS
  // §3.2), "free" (every empty fast zone too, given back to any writer that
  // needs one; cache/block_cache.h), or "auto" (CacheBorrowsFreeZones).
  std::string cache_room = "auto";
};

// Whether a read moved from the slow tier to the fast one, whose QD1 random
// reads take slow_read_us and fast_read_us (0: unknown), saves at least four
// fast reads' worth of time, or either is unknown: what moving data up for
// its reads must save to pay for the writes that move it (an HDD, or a cloud
// volume such as AWS gp3, under a local SSD; not a SATA SSD under an NVMe
// SSD, where a moved read saves a third of its time). A gp3 under a Nitro
// SSD saves about seven fast reads: there the rule at ten kept block tiering
// to the room the tables left, and HotRAP's hotspot-5% read-only workload ran
// at 7,700-14,600 ops/s against 10,200-13,200 with the blocks taking room
// from the tables (docs/benchmarks.md).
bool MovedReadSavesMuch(double fast_read_us, double slow_read_us);

// The slowest QD1 random read latency, in microseconds, of the devices of
// tier among devices (DeviceSpace or DeviceUsage: anything with a tier and a
// random_read_latency_us): 0 if one of them does not know its own, or there
// is none.
template <typename Device>
double TierReadLatency(const std::vector<Device>& devices, Tier tier) {
  double slowest = 0;
  for (const Device& d : devices) {
    if (d.tier != tier) continue;
    if (d.random_read_latency_us == 0) return 0;
    slowest = std::max(slowest, d.random_read_latency_us);
  }
  return slowest;
}

// What cache=auto means: "all", in the fast tier's empty zones
// (CacheBorrowsFreeZones): every block the slow tier serves is kept while
// there is room nobody else uses, then only blocks missed twice, and a
// writer that needs a zone gets one back at once (cache/block_cache.h);
// but "off" where block tiering runs and takes room from the tables
// (blocks_take_room, BlocksTakeRoomFromTables: over an HDD), since it
// promotes the hot blocks itself there, and a cache that admits the rest
// (read once) writes the fast tier and takes the empty zones the promoted
// blocks need (the demo, six runs each: 9,227-9,793 ops/s with the cache
// off against 8,353-9,386 with it borrowing; three in HHZS's budget:
// 8,071-8,821; docs/benchmarks.md). It used to be HHZS's cache in the
// WAL's budget over an HDD and off elsewhere: in a budget of a zone or
// two, over a SATA SSD, admitting every block cost more fast-tier writes
// than its 0.2-4% of hits saved. Any other configured value is kept.
std::string ResolveCacheAdmission(const std::string& configured, bool blocks_take_room);

// Checks a value of the cache's two options, whether they come from a policy
// spec or a URI: key "cache" takes off, auto, all, cbf or expsmooth,
// "cache_room" budget, free or auto. InvalidArgument naming the key and the
// values it takes otherwise (also for any other key).
Status CheckCacheOption(const std::string& key, const std::string& value);

// Whether the cache borrows the fast tier's empty zones (cache_room "free"),
// for a cache configured as configured_cache: "auto" borrows when hintfs
// chose the cache too (cache=auto), and keeps HHZS's budget when the cache's
// admission was named, as the HHZS reproduction names it.
bool CacheBorrowsFreeZones(const std::string& cache_room, const std::string& configured_cache);

// Whether block tiering may take room from the tables on tiers whose QD1
// random reads take fast_read_us and slow_read_us (0: unknown): its budget
// then grows past the fast tier's free room by asking placement to set room
// aside, which sends the coldest tables down. That pays where a read moved
// up saves much (four fast reads' worth or more, MovedReadSavesMuch, or
// either is unknown): each table sent down is a zone written to
// the slow tier. Over a SATA SSD a read moved up saves about 30 us, the
// writes and their verifying reads queue the store's reads on the slow
// device it is bound by, and taking room lost 3-5% against using free room
// only (YCSB C Zipf, HyperDB's setting; docs/benchmarks.md): false there.
bool BlocksTakeRoomFromTables(double fast_read_us, double slow_read_us);

// Whether whole-table migration runs: configured is the policy's (or the
// mount's) migration option, automatic whether it was auto (hhzs's default).
// Auto turns it off where block tiering is on and a moved read saves little
// (MovedReadSavesMuch): the hot blocks go up by themselves, and each table
// that popularity or capacity migration moves puts a table's bytes through
// the slow device the store is bound by, for reads that save about a third
// of their time (YCSB B Zipf in HyperDB's setting ran 5% slower with it,
// docs/benchmarks.md).
bool ResolveMigration(bool configured, bool automatic, bool block_tiering, double fast_read_us,
                      double slow_read_us);

// A WAL budget nobody configured: ResolveWalBudget sizes it from the fast tier.
constexpr uint64_t kWalBudgetFromDevice = ~0ull;

// The WAL budget to hold on a fast tier of fast_bytes in zones of
// zone_capacity: configured, or (kWalBudgetFromDevice) HHZS's two zones,
// the largest WAL of its setting, but at most a quarter of the fast tier
// (at least one zone) so that a small fast tier keeps room for tables.
// A policy that watches the WAL grows it to the WAL's peak.
uint64_t ResolveWalBudget(uint64_t configured, uint64_t zone_capacity, uint64_t fast_bytes);

// Why a fast tier of fast_bytes holds no table of table_bytes once
// budget_bytes are held for the WAL and the cache (a one-line explanation
// naming the options to change), or "" if it holds at least one.
std::string FastTierUnusable(uint64_t fast_bytes, uint64_t budget_bytes, uint64_t table_bytes);

// Why oversized of the fast_tables tables on a fast tier of fast_zones
// zones of zone_bytes, which the store finished larger than a zone, are
// worth its attention (a one-line explanation naming the options to
// change), or "" while they are fewer than two or than an eighth of the
// zones. Each such table takes part of a second zone, which no table slot
// counts. A RocksDB 7.8 or later grows outputs above the bottom level to up
// to twice target_file_size_base, so tables sized to a zone straddle two.
std::string TablesOutgrowZones(int64_t oversized, int64_t fast_tables, uint64_t fast_zones, uint64_t zone_bytes);

class TieringSource {
 public:
  virtual ~TieringSource() = default;
  // The placement state migration plans against; thread safe.
  virtual TieringView Tiering() const = 0;
  // The caller's time on the hints' clock (migration's, or a replay's
  // trace time): what ages in the state, such as the WAL's held peak, is
  // judged at it even while no hint arrives, as in a store at rest.
  virtual void NoteTime(uint64_t /*now_ns*/) {}
  virtual TieringServices Services() const = 0;
  // Fast bytes another service holds for itself (block tiering's budget,
  // placement/block_tiering.h): tables are planned in what is left, so that
  // neither placement nor migration fills the room the service counts on.
  virtual void SetAsideFastBytes(uint64_t bytes) = 0;
};

// The policy's tiering capability, or null if it places no tables by level
// (fast-first, auto).
TieringSource* TieringOf(AllocationPolicy* policy);

}  // namespace hintfs

#endif  // HINTFS_PLACEMENT_TIERING_H_
