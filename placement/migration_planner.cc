#include "placement/migration_planner.h"

#include <algorithm>
#include <cmath>

namespace hintfs {

const char* MigrationReasonName(MigrationPlan::Reason reason) {
  switch (reason) {
    case MigrationPlan::Reason::kNone: return "none";
    case MigrationPlan::Reason::kCapacity: return "capacity";
    case MigrationPlan::Reason::kPopularity: return "popularity";
    case MigrationPlan::Reason::kSwap: return "swap";
    case MigrationPlan::Reason::kFill: return "fill";
  }
  return "?";
}

bool HigherPriority(const TableView& a, const TableView& b) {
  if (a.level != b.level) return a.level < b.level;
  if (a.read_rate != b.read_rate) return a.read_rate > b.read_rate;
  // A table whose numbers are not known yet was written since the MANIFEST
  // last named it, so it holds the newest keys. Comparing it by name with
  // tables compared by numbers could make the order cycle.
  if (a.seqnos_known != b.seqnos_known) return !a.seqnos_known;
  if (a.seqnos_known) {
    if (a.newest_seqno != b.newest_seqno) return a.newest_seqno > b.newest_seqno;
    if (a.oldest_seqno != b.oldest_seqno) return a.oldest_seqno > b.oldest_seqno;
  }
  // The newer table: stores name tables by a growing number ("000123.sst"),
  // so the longer name, then the later one, is the newer. A total order
  // keeps plans deterministic.
  if (a.path.size() != b.path.size()) return a.path.size() > b.path.size();
  return a.path > b.path;
}

void RecentFloor::Note(uint64_t now_ns, int64_t value) {
  if (!points_.empty()) {
    if (points_.back().value == value) return;
    points_.back().until_ns = now_ns;
  }
  // A value no smaller that ended no later can never be the floor again.
  while (!points_.empty() && points_.back().value >= value) points_.pop_back();
  points_.push_back(Point{0, value});
}

int64_t RecentFloor::Floor(uint64_t now_ns, uint64_t window_ns) const {
  for (const Point& p : points_) {
    bool expired = now_ns != 0 && p.until_ns != 0 && p.until_ns + window_ns <= now_ns;
    if (!expired) return p.value;  // values increase: the first in the window is the least
  }
  return points_.back().value;
}

uint64_t RecentFloor::SettlesAt(uint64_t window_ns) const {
  // The point before the current one ended last of all earlier ones.
  return points_.size() < 2 ? 0 : points_[points_.size() - 2].until_ns + window_ns;
}

namespace {

bool Movable(const TableView& t) { return !t.compacting && t.level >= 0; }

// Whether t, moved up, would serve more reads from the zone it takes than
// the room serves already (the cache borrowing it; the header).
bool OutreadsFreeRoom(const TableView& t, const TieringView& tiering) {
  return tiering.free_room_read_rate <= 0 || t.read_rate > tiering.free_room_read_rate;
}

// Placement's rule (ii) (HHZS §3.3 step 4): the levels above L_t, or every
// level if all fit, and with fill_tiering_level L_t's tables while it has
// reserved room. Without the wait for moves up, filling that room made
// capacity migration trim it again at every compaction (single runs of YCSB
// A-F at the devices' real speed moved 12-42 MB up and as much down per
// 2,000 operations).
bool BelongsOnFastTier(const TableView& t, const TieringView& tiering, int64_t steady_room) {
  if (tiering.tiering_level == TieringView::kNone || t.level < tiering.tiering_level) return true;
  return tiering.fill_tiering_level && t.level == tiering.tiering_level &&
         tiering.fast_at_tiering_level < steady_room;
}

// The room moves up may fill at L_t: its reservation now, or the least it
// held over the window, so that a table moved up at a peak is not moved
// down again at the next dip.
int64_t SteadyRoom(const TieringView& tiering) {
  if (tiering.steady_room_ns == 0 || tiering.reserved_history.empty()) return tiering.reserved;
  return std::min(tiering.reserved, tiering.reserved_history.Floor(tiering.now_ns, tiering.steady_room_ns));
}

// Whether a swap of hot (slow) for cold (fast) pays for its two moves:
// across levels by priority, within one by the margin of their read rates.
bool WorthSwapping(const TableView& hot, const TableView& cold, double margin) {
  if (hot.level != cold.level || margin <= 1) return HigherPriority(hot, cold);
  return hot.read_rate > cold.read_rate * margin;
}

// The lowest-priority movable table on the fast tier, or null.
const TableView* ColdestFast(const std::vector<TableView>& tables) {
  const TableView* best = nullptr;
  for (const TableView& t : tables) {
    if (t.fast && Movable(t) && (best == nullptr || HigherPriority(*best, t))) best = &t;
  }
  return best;
}

}  // namespace

MigrationPlan PlanMigration(const std::vector<TableView>& tables, const TieringView& tiering,
                            double slow_read_rate, double slow_read_iops) {
  MigrationPlan plan;
  if (!tiering.known) return plan;
  const int t = tiering.tiering_level;
  // Capacity: the tiering level over its reservation, or deeper levels fast.
  bool over = t != TieringView::kNone && tiering.fast_at_tiering_level > tiering.reserved;
  for (const TableView& table : tables) {
    if (table.fast && table.level > t && t != TieringView::kNone) over = true;
  }
  if (over) {
    const TableView* cold = ColdestFast(tables);
    // Never below L_t: an excess made only of compaction inputs goes away
    // by itself when the compaction ends.
    if (cold != nullptr && cold->level >= t) {
      plan.reason = MigrationPlan::Reason::kCapacity;
      plan.path = cold->path;
      plan.to_fast = false;
      return plan;
    }
  }
  if (tiering.now_ns != 0 && tiering.now_ns < tiering.up_moves_wait_until_ns) return plan;
  // Fill, or popularity under read pressure: room nothing else claims (free
  // slots beyond the demands above L_t) takes the highest-priority slow
  // table above L_t, where placement would now put it.
  const bool pressure = slow_read_iops > 0 && slow_read_rate > slow_read_iops / 2;
  const bool room = tiering.free_slots > tiering.demand_below;
  const int64_t steady_room = SteadyRoom(tiering);
  if (room) {
    const TableView* up = nullptr;
    for (const TableView& table : tables) {
      if (table.fast || !Movable(table) || !BelongsOnFastTier(table, tiering, steady_room) ||
          !OutreadsFreeRoom(table, tiering)) {
        continue;
      }
      if (up == nullptr || HigherPriority(table, *up)) up = &table;
    }
    if (up != nullptr) {
      plan.reason = pressure && up->read_rate > 0 ? MigrationPlan::Reason::kPopularity : MigrationPlan::Reason::kFill;
      plan.path = up->path;
      plan.to_fast = true;
      return plan;
    }
  }
  // Popularity: only when the slow tier is the bottleneck for reads.
  if (!pressure) return plan;
  // The highest-priority slow table at L_t or above, for a swap; for a move
  // into the room, the highest of those that outread it.
  const TableView* hot = nullptr;
  const TableView* hot_for_room = nullptr;
  for (const TableView& table : tables) {
    if (table.fast || !Movable(table) || table.read_rate <= 0) continue;
    if (t != TieringView::kNone && table.level > t) continue;  // capacity would move it back
    if (hot == nullptr || HigherPriority(table, *hot)) hot = &table;
    if (OutreadsFreeRoom(table, tiering) && (hot_for_room == nullptr || HigherPriority(table, *hot_for_room))) {
      hot_for_room = &table;
    }
  }
  if (hot == nullptr) return plan;
  const bool tiering_room = room && tiering.fast_at_tiering_level < steady_room;
  if (tiering_room && hot_for_room != nullptr) {
    plan.reason = MigrationPlan::Reason::kPopularity;  // L_t's reserved room, by reads
    plan.path = hot_for_room->path;
    plan.to_fast = true;
    return plan;
  }
  // What the room serves is not measured yet: there is room, so wait for
  // the measurement rather than pay a swap's move down.
  if (tiering_room && std::isinf(tiering.free_room_read_rate)) return plan;
  const TableView* cold = ColdestFast(tables);
  if (cold != nullptr && WorthSwapping(*hot, *cold, tiering.swap_margin)) {
    plan.reason = MigrationPlan::Reason::kSwap;
    plan.path = hot->path;
    plan.to_fast = true;
    plan.swap_out = cold->path;
  }
  return plan;
}

}  // namespace hintfs
