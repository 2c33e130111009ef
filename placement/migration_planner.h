// HHZS workload-aware migration (HHZS §3.4), as a pure decision: given the
// tables, where they are and how often they are read, and the tiering state
// of write-guided placement, which one table to move next, if any. The live
// Migrator (migrator.h) and trace replay (replay.h) both ask it, so replay
// models exactly what the filesystem does.
//
// Priority: a table at a lower level outranks one at a higher level; at the
// same level the higher read rate (reads / age) wins, and between tables
// equally read (as every table is at rest) the one holding the newer keys:
// a store's reads favour the keys written last when they favour any (YCSB
// D's latest keys). Where the MANIFEST recorded the tables' sequence numbers
// (RocksDB's), that is the table whose newest key is newer, then whose
// oldest is: a compaction's outputs into a level are named after tables
// that a trivial move brought down with newer keys, and RocksDB zeroes the
// sequence numbers of keys it rewrites at the bottom, so the number in a
// table's name says little of its keys' age. In a YCSB D phase on a RocksDB
// store, 10 of the 11 L3 tables holding keys of the load's last 40% served
// 15-51 reads each, the 105 others 0-10 (docs/benchmarks.md, session 89).
// A table the MANIFEST has not numbered yet, written since, counts as newer
// than every numbered one. Otherwise (LevelDB) the newer table: the store
// numbers its tables in creation order. Tables that a running
// compaction selected are about to be deleted and never move; neither do
// tables whose level is unknown.
//   capacity    when the fast tier holds more tables of the tiering level L_t
//               than the slots reserved for it, or any table deeper than L_t:
//               move the lowest-priority fast table to the slow tier.
//   popularity  when reads of slow-tier tables exceed half the slow device's
//               random-read IOPS: take the highest-priority slow table (at
//               L_t or above); move it to the fast tier if the free fast slots
//               exceed the demands of the levels above L_t (and L_t has room
//               for it), else swap it with the lowest-priority fast table if
//               it outranks that one.
//   fill        (ours, not HHZS's) the same move without read pressure for
//               the levels above L_t: when the free fast slots exceed the
//               demands above L_t, the highest-priority slow table above L_t
//               moves up, read or not. HHZS moves tables up only under read
//               pressure, so the tables a load's compaction debt pushed to
//               the slow tier stayed there after the debt cleared, with most
//               of the SSD empty (docs/benchmarks.md, issue 19). With
//               TieringView::fill_tiering_level, L_t's reserved room is
//               filled the same way once the upper levels rest (below);
//               otherwise it stays popularity's.
// Moves up (popularity, swap, fill) wait while the policy says the store is
// writing the levels above L_t (TieringView::up_moves_wait_until_ns);
// capacity moves down never wait. Two more extensions of HHZS keep migration
// from undoing its own moves under steady writes, where L_t's reservation
// rises and falls with every compaction above it (by 2-8 table slots every
// few seconds in Exp#4's 30% reads; docs/benchmarks.md, issue 19, session
// 74): moves up into L_t's reserved room use only the least room it held
// over the last TieringView::steady_room_ns, and a swap within one level
// needs the slow table read TieringView::swap_margin times as often as the
// fast one. Without them, tables moved up at a peak of the reservation were
// moved down again a second later, and same-level swaps traded tables read
// 0.69 and 0.67 times a second back and forth.
//
// The fast tier's empty room may already serve reads: an SSD cache that
// borrows empty zones (cache/block_cache.h) gives its oldest zone back to
// any writer, a table moved up included. Moves up into that room (fill, at
// any level, and popularity; not swaps, which free what they take)
// therefore go only to a table read more often than a zone of it serves
// (TieringView::free_room_read_rate). Under scrambled Zipfian keys a table
// holds a share of the reads in proportion to its bytes, while the cache
// holds the blocks read before: in YCSB C, a zone of cache served 7-14
// reads a second, the L2 tables moved into such zones 0.1-1.6
// (docs/benchmarks.md, issue 19, session 75). New tables are placed as
// before: the cache gives their writers its zones at once.
#ifndef HINTFS_PLACEMENT_MIGRATION_PLANNER_H_
#define HINTFS_PLACEMENT_MIGRATION_PLANNER_H_

#include <cstdint>
#include <string>
#include <vector>

namespace hintfs {

struct TableView {
  std::string path;
  int level = -1;          // -1: unknown
  bool fast = false;       // where its data is now
  uint64_t bytes = 0;
  double read_rate = 0;    // reads per second since it was written
  bool compacting = false; // an input of a running compaction
  // The sequence numbers of its oldest and newest keys, if the MANIFEST
  // recorded them (seqnos_known).
  bool seqnos_known = false;
  uint64_t oldest_seqno = 0, newest_seqno = 0;
};

// The smallest value a quantity took over a sliding window of time, kept as
// the change points that can still be the smallest (their values increase).
// The policy notes L_t's reservation whenever it may change; the planner
// asks for its floor at its own time.
class RecentFloor {
 public:
  // value is in effect from now_ns on.
  void Note(uint64_t now_ns, int64_t value);
  // The smallest value in effect at any time within window_ns before now_ns
  // (now_ns 0: not known, the smallest kept). Requires !empty().
  int64_t Floor(uint64_t now_ns, uint64_t window_ns) const;
  // When Floor will be the current value, if it does not change (0: it is).
  uint64_t SettlesAt(uint64_t window_ns) const;
  bool empty() const { return points_.empty(); }
  void Clear() { points_.clear(); }

 private:
  struct Point {
    uint64_t until_ns = 0;  // when a later value replaced it; 0: in effect
    int64_t value = 0;
  };
  std::vector<Point> points_;
};

// The largest value a quantity took over a sliding window of time: the
// floor of its negation.
class RecentPeak {
 public:
  // value is in effect from now_ns on.
  void Note(uint64_t now_ns, int64_t value) { negated_.Note(now_ns, -value); }
  // The largest value in effect at any time within window_ns before now_ns.
  // Requires !empty().
  int64_t Peak(uint64_t now_ns, uint64_t window_ns) const { return -negated_.Floor(now_ns, window_ns); }
  bool empty() const { return negated_.empty(); }

 private:
  RecentFloor negated_;
};

// What placement knows (TieringSource::Tiering(), tiering.h).
struct TieringView {
  static constexpr int kNone = 1 << 20;  // every level fits: no tiering level
  // false: the policy has not measured the fast tier since it was mounted
  // (hhzs does at the first allocation), so it knows no capacity: nothing
  // moves. Taken for a capacity of none, it made L0 the tiering level and
  // every fast table deeper than L0 an excess: in one YCSB D phase of the
  // reproduction the planner asked 34 times for a capacity move before the
  // store's open allocated anything (docs/benchmarks.md, session 90).
  bool known = true;
  int tiering_level = kNone;
  int64_t reserved = 0;      // fast slots L_t may hold
  int64_t fast_at_tiering_level = 0;  // L_t's tables on the fast tier
  int64_t free_slots = 0;    // fast table slots holding no table
  int64_t demand_below = 0;  // sum of the demands of levels above L_t
  // No table moves up before this time (the hints' clock), and the
  // caller's time on it (0: not known, no wait). A policy sets it while
  // the store writes the levels above L_t: a table moved up between two of
  // their compactions takes the room the next one's outputs need, and they
  // spill to the slow tier (docs/benchmarks.md, issue 20, session 53).
  uint64_t up_moves_wait_until_ns = 0;
  uint64_t now_ns = 0;
  // Fill also L_t's reserved room with its slow tables, read or not. Before
  // the wait above existed, this churned: every compaction above L_t shrank
  // the room and capacity migration moved the filled tables down again.
  bool fill_tiering_level = false;
  // L_t's reservation over time (empty: not kept) and the window over which
  // moves up take its floor as L_t's room (0: the reservation now, HHZS).
  RecentFloor reserved_history;
  uint64_t steady_room_ns = 0;
  // A same-level swap needs the slow table read this many times as often as
  // the fast one it replaces (1: any more often, HHZS).
  double swap_margin = 1;
  // Reads per second a zone of the fast tier's empty room serves already
  // (0: none, no cache borrows it). A table moves up into that room only
  // if it is read more often than that (a table holds a zone); infinity:
  // not measured yet, so nothing moves into it, and no swap is made while
  // L_t has room (it may turn out the table's).
  double free_room_read_rate = 0;
};

struct MigrationPlan {
  enum class Reason { kNone, kCapacity, kPopularity, kSwap, kFill };
  Reason reason = Reason::kNone;
  std::string path;       // the table to move
  bool to_fast = false;   // its destination
  std::string swap_out;   // kSwap: the fast table to move to the slow tier first
};

const char* MigrationReasonName(MigrationPlan::Reason reason);

// True if a outranks b.
bool HigherPriority(const TableView& a, const TableView& b);

// slow_read_rate: reads per second served by slow-tier tables lately;
// slow_read_iops: the slow device's random-read IOPS (0 disables popularity).
MigrationPlan PlanMigration(const std::vector<TableView>& tables, const TieringView& tiering,
                            double slow_read_rate, double slow_read_iops);

}  // namespace hintfs

#endif  // HINTFS_PLACEMENT_MIGRATION_PLANNER_H_
