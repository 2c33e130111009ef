// BlockTiering: keeps the hottest blocks of a store's tables on the fast
// tier, whichever tier their table was placed on: HyperDB's semi-SST
// (a table's blocks on both tiers) with HotRAP's retention and promotion,
// at block grain and under an unmodified store.
//
// - Heat: every read of a table is reported with its block (the block index
//   keeper, hints/block_index_keeper.h); KeyHeat (key_heat.h) scores the
//   block's key range, so heat outlives the table. Only reads the fast tier
//   could take over count: those the slow tier served and those of blocks
//   moved up. Reads of tables placed on the fast tier would otherwise make
//   the narrow ranges of a deep level's blocks look hot whenever a wide
//   block of an upper level over the same keys is read, and would fill the
//   hot set (HotThreshold) with blocks that need no move.
// - Promotion by read: a block on the slow tier whose key range is hot is
//   moved up (Filesystem::MigrateRange).
// - Retention (on by default): when a new table is sealed (a flush or
//   compaction output), its blocks whose key ranges are hot and that were
//   written to the slow tier are moved up at once, so a compaction that
//   pushed hot keys down does not lose them. The bytes come from the
//   filesystem's memory of what it just wrote (fs/recent_blocks.h).
// - Budget: blocks moved up hold at most the budget of the fast tier; a
//   range is hot when its score is among the hottest that fit in the budget
//   (and at least min_score); when a move would pass the budget, the coldest
//   promoted blocks go back down first if they are colder than it.
// - The budget is taken from the tables' share of the fast tier (placement
//   plans tables without it: TieringSource::SetAsideFastBytes) and is worth
//   it only while moved blocks serve more reads per byte than the tables
//   placed there do. Every adjust interval the two densities are compared
//   (HyperDB's benefit/cost at the edge of the fast tier): the budget halves
//   when the blocks serve fewer (an update-heavy load rewrites the deep
//   level's tables, and the blocks moved up die with them before they are
//   read again), and doubles up to budget_bytes while the blocks fill it
//   and serve at least twice as many: a zone more holds colder blocks than
//   those up already and takes the place of the coldest table (a scan-heavy
//   load grew it on the first hot blocks and lost the tables it then
//   needed, docs/benchmarks.md). It starts at a zone. Where the budget is
//   taken from the tables' share it never drops under a zone, so that the
//   blocks' density stays measured and a store that gains nothing from
//   them loses at most a zone. Where the blocks use only the room the tables
//   leave (over a SATA SSD) even that zone is a table slot placement lacks
//   (capacity migration sent L2 tables down for it, and YCSB A lost 4-6%,
//   docs/benchmarks.md): the budget goes to none, moves stop, the blocks up
//   there go down (left until their tables died, they held a zone for a
//   whole YCSB A phase), and a zone is tried again after
//   probe_after (doubling while they keep losing). While off, reads are not
//   tracked at all (WantsReads): the heat a probe starts from is what it had
//   when it turned off.
// - A promotion copies a block just read from the slow tier, which the
//   filesystem still has in memory (fs/recent_blocks.h), so it costs a
//   write of the fast tier (and a write back if the block is demoted); it
//   pays only if the block is read again before its table is compacted away. At each adjustment the reads moved blocks
//   served per promotion made are compared: under 2, the score a range needs
//   doubles (up to 64); over 8, it halves (down to min_score).
// - Moves are of a table block's own bytes, made in batches
//   (Filesystem::MigrateRanges), which pack them one after another: a 1 KiB
//   block moved alone took the three 512-byte device blocks it straddles,
//   half as much again, and the hot set of a hotspot load did not fit the
//   fast tier (docs/benchmarks.md). Blocks sent down go together too.
// - When a move finds no empty fast zone (tables, the WAL and placement's
//   reservations hold the rest), the zone of moved blocks that served the
//   fewest reads per byte it holds over the last two adjust intervals (but
//   the one moves go to now: its blocks have had no time to be read) goes
//   down whole, if that is under half the mean of those zones (HyperDB's
//   cost-benefit demotion: the most bytes freed per read given up; a zone
//   emptied whole is reset without GC). At most one zone per
//   adjust interval, so that a burst of candidates does not churn the tier;
//   otherwise the moves pause for a fifth of a second. (Before either, the
//   copy up has the filesystem's GC collect the fast tier's garbage, the
//   zones of moved blocks included: blocks sent down one by one leave
//   holes there.) If the blocks then hold a zone
//   or more less than their budget, placement counted on room the tables,
//   the WAL or their overflows fill: it is asked to set aside a zone more
//   per such failure (up to the budget again), which sends its coldest
//   table down.
//
// - Blocks an earlier mount moved up are adopted at Start (found in the fast
//   zones of their class) with no key range: they count against the budget
//   and, their heat unknown, are the first to go down when room is needed.
//
// - Each move splits its table's extents (and a block that goes down does
//   not join them again), so the metadata grows with the moves. When the
//   filesystem refuses a move for want of metadata room, the table the most
//   moves split is rewritten whole on the tier most of its bytes are on
//   (Filesystem::RelayoutFile); its blocks up there go down with it if that
//   is the slow tier, and come back up on their next reads.
//
// Moved blocks go to shared zones of their own class (kMovedBlocksClass),
// not one zone per move. A background thread makes the moves, through a
// rate limiter; the I/O path only queues; when the fast tier has no room it
// pauses for a fifth of a second. Thread safe.
#ifndef HINTFS_PLACEMENT_BLOCK_TIERING_H_
#define HINTFS_PLACEMENT_BLOCK_TIERING_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "fs/filesystem.h"
#include "fs/rate_limiter.h"
#include "hints/block_index.h"
#include "placement/key_heat.h"
#include "placement/tiering.h"

namespace hintfs {

struct BlockTieringOptions {
  uint64_t budget_bytes = 0;                  // the most fast bytes for promoted blocks
  TieringSource* tiering = nullptr;           // placement, told the budget in effect
  // Whether the budget is set aside from the tables' share (placement sends
  // tables down to make it room) or the blocks use only the room the tables
  // leave (placement still counts the zones they fill). See
  // BlocksTakeRoomFromTables (tiering.h) for which pays where.
  bool take_room_from_tables = true;
  bool adaptive = true;                       // the budget follows the densities
  std::chrono::milliseconds adjust_every{2000};
  // ... or after this many block reads, if sooner (0: by time only). The
  // adjustments are statistics over reads: a busy store earns as many in a
  // fraction of the interval, and a short run would otherwise end before
  // the budget and the score had moved (a 100,000-read YCSB phase over
  // SATA lasts about 6 s: two adjustments by time alone).
  uint64_t adjust_reads = 4096;
  // Blocks that take no room from the tables turn off (a budget of none)
  // when they serve fewer reads per byte than the tables at a zone, and
  // try a zone again after this wait, doubled each time they lose again
  // (up to 16 times), reset when they win.
  std::chrono::milliseconds probe_after{10000};
  uint64_t rate_bytes_per_second = 4 << 20;   // of moves, both ways
  double min_score = 2;                       // a range read once is never hot
  // Retention at seal. It was off by default while it read the blocks back
  // from the slow tier just after a compaction wrote them there (W1-W3 of
  // Exp#2 lost 15-20%, docs/benchmarks.md); the copy now comes from memory.
  bool retention = true;
  KeyHeatOptions heat;
};

struct BlockTieringStats {
  uint64_t promoted_blocks = 0, promoted_bytes = 0;  // moved up on a read
  uint64_t retained_blocks = 0, retained_bytes = 0;  // moved up when their table was sealed
  uint64_t demoted_blocks = 0, demoted_bytes = 0;    // moved back down for hotter ones
  uint64_t demoted_zones = 0;  // zones of moved blocks sent down whole for want of an empty one
  uint64_t relayouts = 0;      // tables rewritten whole to join the extents moves split
  uint64_t failed_moves = 0;  // the table changed or went, no room on the fast tier, or a move down refused
  uint64_t dropped = 0;       // candidates dropped while moves paused for want of room
  uint64_t resident_bytes = 0;                       // promoted blocks held now
  uint64_t fast_reads_ignored = 0;  // reads of fast-tier tables' blocks: no heat
  uint64_t moved_block_reads = 0;   // reads the blocks moved up served
  uint64_t budget_bytes = 0;        // the budget in effect
  uint64_t budget_changes = 0;      // times the densities moved it
  double min_score = 0;             // the score a range needs now

  std::string ToJson() const;
};

class BlockTiering {
 public:
  BlockTiering(Filesystem* fs, BlockTieringOptions options);
  ~BlockTiering();  // Stop()

  void Start();
  void Stop();
  // Blocks until every queued move is made (tests).
  void WaitIdle();

  // A read of block of the table at path, slow_bytes of it from the slow
  // tier (the keeper's listener; I/O path).
  void OnBlockRead(const std::string& path, const BlockIndex& index, size_t block, uint64_t bytes,
                   uint64_t slow_bytes);
  // Whether OnBlockRead does anything: not at a budget of none (the keeper
  // then skips finding the block).
  bool WantsReads() const { return budget_.load(std::memory_order_relaxed) > 0; }
  // Reads of a block moved up reach the heat this many at a time.
  static constexpr uint32_t kMovedReadsPerRecord = 4;
  // A table was sealed and indexed (the keeper's thread).
  void OnTableIndexed(const std::string& path, std::shared_ptr<const BlockIndex> index);

  BlockTieringStats stats() const;
  const KeyHeat& heat() const { return heat_; }

  // Compares the reads per byte that moved blocks and fast tables served
  // since the last call and moves the budget (see above); the thread calls
  // it every adjust_every when adaptive. Public for tests.
  void AdjustBudget();
  // The rule AdjustBudget applies: -1 (halve) when the blocks serve fewer
  // reads per byte than the tables, +1 (double, if the blocks fill it) when
  // they serve at least kGrowthMargin times as many, else 0.
  static constexpr double kGrowthMargin = 2;
  static int BudgetDirection(double block_density, double table_density);

 private:
  struct Candidate {
    std::string path;
    uint64_t offset = 0, size = 0;
    std::string lo, hi;  // the block's key range
    double score = 0;    // its heat when queued
    bool retention = false;
  };
  static constexpr uint64_t kNoZone = ~uint64_t{0};
  // How zones are named in zone_held_, zone_reads_ and Promoted::zone.
  static uint64_t ZoneKey(uint32_t device, uint32_t zone) { return uint64_t{device} << 32 | zone; }
  struct Promoted {
    uint64_t size = 0;        // the table block's bytes
    uint64_t fast_bytes = 0;  // what its move copied (less than size if part was up already)
    std::string lo, hi;
    uint64_t zone = kNoZone;  // device << 32 | zone of its fast copy
    uint32_t unrecorded_reads = 0;  // not yet told to the heat (kMovedReadsPerRecord)
  };
  struct ZoneReads {
    uint64_t now = 0, before = 0;  // this adjust interval's and the last one's
  };
  // Whether a block this hot may move up now.
  bool Hot(double score) const;
  void Run();
  // Moves up what of batch is still hot and on the slow tier, as far as
  // the budget allows, hottest first, in one MigrateRanges.
  void MoveBatch(const std::vector<Candidate>& batch);
  // batch's candidates still hot (their scores taken again) and still on
  // the slow tier, hottest first.
  std::vector<Candidate> StillWanted(const std::vector<Candidate>& batch);
  // The MigrateRanges of ready, and what a NoSpace calls for: a table
  // rewritten when the metadata is full, else a zone more claimed and a
  // zone of moved blocks sent down; each followed by one retry.
  Status MoveUp(const std::vector<Candidate>& ready, std::vector<MigrateResult>* results);
  // After MoveUp: the candidates whose table changed during the copy (Busy)
  // are moved again, once, and their results replaced. GC, which a copy up
  // runs when it finds no zone, may move the blocks up there of the very
  // tables being moved (it no longer passes over the zones the copy pins),
  // and the room it made would go unused. The retry's own errors leave the
  // first results. True if any was moved again.
  bool RetryChanged(const std::vector<Candidate>& ready, std::vector<MigrateResult>* results);
  static std::vector<RangeMove> RangesOf(const std::vector<Candidate>& candidates);
  // Where the range is now; found is false if the file is gone.
  ReadLocation Where(const std::string& path, uint64_t offset, uint64_t size);
  bool OnSlowTier(const std::string& path, uint64_t offset, uint64_t size);
  bool DemoteColdestZone();
  void AdoptMovedBlocks();
  void RotateZoneReads();
  bool MakeRoom(uint64_t bytes, double score);
  struct Victim {
    std::pair<std::string, uint64_t> key;  // (path, offset)
    std::string lo, hi;
    double score = 0;
  };
  // Fills coldest_ with every promoted block, coldest last (room_mu_ held;
  // the scores are taken without mu_).
  void FindColdest();
  // Moves promoted blocks ((path, offset) keys) back down, together.
  void Demote(const std::vector<std::pair<std::string, uint64_t>>& keys);
  // One look at each table with promoted blocks: forgets the blocks of
  // those gone (their bytes went with them) and, if rezone, finds the zone
  // of each block of the others again from the table's extents. GC moves
  // blocks between zones of their class (to collect the holes blocks sent
  // down one by one leave), and the zone demotion must weigh zones as they
  // are. The mover's thread.
  void CheckPromotedTables(bool rezone);
  // Whether GC emptied a zone since the last call (FsStats::gc_zones_freed;
  // the filesystem's stats walk its files, so not on every move).
  bool GcRanSinceLastLook();
  // Sets the zone of each of path's promoted blocks from the table's
  // extents. mu_ held.
  void RezoneLocked(const std::string& path, const std::vector<Extent>& extents);
  // A promoted block's bytes join or leave zone's total in zone_held_
  // (nothing for kNoZone). mu_ held.
  void HoldInZoneLocked(uint64_t zone, uint64_t bytes);
  void ReleaseFromZoneLocked(uint64_t zone, uint64_t bytes);
  // Drops path's blocks from promoted_ and the budget. mu_ held.
  void ForgetPromotedLocked(const std::string& path);
  // promoted_ changes only through these, which keep resident_bytes,
  // zone_held_ and promoted_count_ with it. mu_ held.
  void AddPromotedLocked(const std::pair<std::string, uint64_t>& key, Promoted p);
  // The promoted block at (path, offset), or nullptr. mu_ held.
  Promoted* FindPromotedLocked(const std::string& path, uint64_t offset);
  // Forgets the promoted block at (path, offset) if there is one. mu_ held.
  void ErasePromotedLocked(const std::string& path, uint64_t offset);
  // After a move failed with NoSpace: whether the filesystem refused a move
  // for want of metadata room since the last call (FsStats::
  // range_moves_refused; Filesystem::MigrateRange).
  bool MetadataFull();
  // Rewrites whole, on the tier most of its bytes are on, the table the
  // most moves split since it was last rewritten: its extents join and the
  // metadata shrinks. Its moved blocks are then part of the table. False if
  // there was none to rewrite.
  bool RelayoutMostSplit();
  void Queue(Candidate c);
  void SetBudget(uint64_t bytes);
  // A move found no empty zone though the blocks hold less than the
  // budget: a zone more is set aside (see above). Call with mu_ held.
  void ClaimShortfallLocked();

  Filesystem* fs_;
  BlockTieringOptions options_;
  KeyHeat heat_;
  RateLimiter limiter_;
  std::atomic<double> threshold_{0};
  std::atomic<uint64_t> budget_{0};   // in effect
  uint64_t shortfall_ = 0;            // set aside beyond the budget (ClaimShortfallLocked); mu_
  std::atomic<double> min_score_{0};  // in effect (options_.min_score at the start)
  uint64_t last_promoted_ = 0;        // promoted_blocks at the last adjustment
  uint64_t zone_bytes_ = 0;           // a fast zone's capacity (the budget's step)
  uint64_t last_block_reads_ = 0, last_table_reads_ = 0;  // at the last adjustment
  // With a budget of none: when to try a zone again, and the wait after the
  // next loss (AdjustBudget's caller only).
  std::chrono::steady_clock::time_point probe_at_;
  std::chrono::milliseconds probe_wait_{0};
  std::atomic<uint64_t> reads_seen_{0};  // OnBlockRead calls, for adjust_reads

  mutable std::mutex mu_;
  std::condition_variable cv_, idle_cv_;
  std::deque<Candidate> queue_;
  std::set<std::pair<std::string, uint64_t>> queued_;  // (path, offset)
  // Promoted blocks by table path, then offset: every read of a fast block
  // looks here, and a path hashed once costs less than a walk of a tree of
  // (path, offset) pairs comparing paths (a tenth of a hotspot read phase's
  // CPU, docs/benchmarks.md).
  std::unordered_map<std::string, std::unordered_map<uint64_t, Promoted>> promoted_;
  uint64_t promoted_count_ = 0;                    // blocks in promoted_
  std::map<uint64_t, uint64_t> zone_held_;         // moved bytes per Promoted::zone
  std::map<std::string, uint64_t> splits_;  // moves made per table since it was last rewritten
  uint64_t metadata_refusals_seen_ = 0;      // FsStats::range_moves_refused at the last look
  uint64_t gc_zones_seen_ = 0;               // FsStats::gc_zones_freed at the last look (the thread's)
  std::set<std::pair<std::string, uint64_t>> known_fast_;  // hot blocks found on the fast tier
  std::map<uint64_t, ZoneReads> zone_reads_;  // reads of moved blocks, by Promoted::zone
  uint64_t filling_zone_ = kNoZone;           // the zone of the last move up
  std::chrono::steady_clock::time_point next_zone_demotion_;
  bool busy_ = false, stopping_ = false;
  std::chrono::steady_clock::time_point paused_until_;  // no room up there until then
  // MakeRoom's candidates, coldest last, and until when they stand; under
  // room_mu_ (the mover's thread, and AdjustBudget's caller).
  std::mutex room_mu_;
  std::vector<Victim> coldest_;
  std::chrono::steady_clock::time_point coldest_until_;
  std::thread thread_;
  BlockTieringStats stats_;
};

}  // namespace hintfs

#endif  // HINTFS_PLACEMENT_BLOCK_TIERING_H_
