// Migrator: HHZS workload-aware migration on a mounted filesystem. A
// background thread asks the migration planner (migration_planner.h) what to
// move, given the tables the hints named, where the filesystem holds them and
// how often they are read, and the placement policy's tiering state; then it
// moves that one table with Filesystem::MigrateFile through a rate limiter.
// Moves are crash-safe in the filesystem; the migrator keeps no state of its
// own that a crash could tear. Its counters are saved as the filesystem
// attribute "migration" (JSON) when it stops and every few moves, so tools
// can show them after the store has exited.
#ifndef HINTFS_PLACEMENT_MIGRATOR_H_
#define HINTFS_PLACEMENT_MIGRATOR_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fs/filesystem.h"
#include "fs/rate_limiter.h"
#include "hints/hint_bus.h"
#include "placement/level_tracker.h"
#include "placement/migration_planner.h"
#include "placement/tiering.h"

namespace hintfs {

// What an SSD cache serves from the fast tier's empty zones it borrows: its
// hits so far and the zones it holds now.
struct BorrowedRoomSample {
  uint64_t hits = 0;
  uint64_t zones = 0;
};

struct MigratorOptions {
  uint64_t rate_bytes_per_second = 4ull << 20;  // HHZS's default
  double slow_read_iops = 0;                    // 0: popularity migration off
  uint64_t interval_ms = 100;                   // planning when idle
  uint64_t read_window_ms = 1000;               // slow-tier read rate window
  // Set when a cache borrows the fast tier's empty zones: the migrator
  // measures the hits a zone of it serves over room_window_ms and moves
  // tables up into that room only if they are read more often
  // (TieringView::free_room_read_rate); before the second window ends (the
  // first is the cache's warm-up), none.
  std::function<BorrowedRoomSample()> borrowed_room;
  uint64_t room_window_ms = 5000;
};

struct MigratorStats {
  uint64_t to_fast_bytes = 0, to_slow_bytes = 0;
  uint64_t capacity = 0, popularity = 0, swap = 0, fill = 0;  // moves done, per reason
  uint64_t busy = 0;      // the table was being written or changed: retried later
  uint64_t no_space = 0;  // the destination tier was full
  uint64_t errors = 0;    // anything else (last_error says what)
  uint64_t backlog_tables = 0;  // fast tables capacity migration still has to move
  uint64_t backlog_bytes = 0;
  double slow_read_rate = 0;    // random reads per second of slow-tier tables, last window
  // Hits per second per zone of the cache in the fast tier's empty room,
  // last window (-1: no cache borrows it, or no window has ended yet).
  double borrowed_zone_hit_rate = -1;
  std::string last_error;

  std::string ToJson() const;
};

class Migrator {
 public:
  // fs and tiering must outlive the migrator.
  Migrator(Filesystem* fs, std::shared_ptr<HintBus> bus, TieringSource* tiering, MigratorOptions options);
  ~Migrator();  // stops
  Migrator(const Migrator&) = delete;
  Migrator& operator=(const Migrator&) = delete;

  // Starts the background thread (once; not after Stop).
  void Start();
  // Finishes the move under way (no longer rate limited), joins the thread
  // and saves the counters. Only the first call does anything: after it the
  // filesystem may be gone.
  void Stop();

  // One planning step and the move it chose (for tests and tools).
  MigrationPlan Step();

  MigratorStats stats() const;
  const MigratorOptions& options() const { return options_; }

 private:
  struct Seen {
    uint64_t first_seen_ns = 0;
    uint64_t reads_at_window = 0;
  };
  // A growing count's rate over windows of time. The first call begins the
  // first window; a call once window_ns have passed since the window began
  // (and time has passed) ends it: True, with the count's increase per
  // second over it in *per_second, and begins the next.
  struct CounterWindow {
    uint64_t start_ns = 0;  // 0: not begun
    uint64_t count_at_start = 0;
    bool Close(uint64_t now_ns, uint64_t count, uint64_t window_ns, double* per_second);
  };
  std::vector<TableView> Survey(uint64_t now_ns);
  // TieringView::free_room_read_rate now, from options_.borrowed_room.
  double FreeRoomReadRate(uint64_t now_ns);
  Status Move(const std::string& path, bool to_fast);
  void Run();
  void SaveStats();

  Filesystem* fs_;
  std::shared_ptr<HintBus> bus_;
  LevelTracker tracker_;
  TieringSource* tiering_;
  MigratorOptions options_;
  RateLimiter limiter_;

  mutable std::mutex mu_;  // guards everything below
  std::condition_variable cv_;
  bool stop_ = false;
  bool running_ = false;
  bool stopped_ = false;
  std::atomic<bool> stopping_{false};  // read by the limiter's sleeper without mu_
  std::thread thread_;
  MigratorStats stats_;
  std::map<std::string, Seen> seen_;
  uint64_t slow_reads_ = 0;  // reads the slow tier served to tables, counted by Survey
  CounterWindow slow_read_window_;
  CounterWindow room_window_;    // the borrowed room's hits
  bool room_warmed_up_ = false;  // the borrowed room's first window has ended
  uint64_t moves_since_save_ = 0;
};

}  // namespace hintfs

#endif  // HINTFS_PLACEMENT_MIGRATOR_H_
