#include "placement/migrator.h"

#include <algorithm>
#include <chrono>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fs/clock.h"

namespace hintfs {

namespace {

// Saving the counters costs a journal record: every this many moves.
constexpr uint64_t kSaveEveryMoves = 8;

}  // namespace

std::string MigratorStats::ToJson() const {
  return nlohmann::json{{"to_fast_bytes", to_fast_bytes},
                        {"to_slow_bytes", to_slow_bytes},
                        {"moves", {{"capacity", capacity}, {"popularity", popularity}, {"swap", swap}, {"fill", fill}}},
                        {"busy", busy},
                        {"no_space", no_space},
                        {"errors", errors},
                        {"backlog_tables", backlog_tables},
                        {"backlog_bytes", backlog_bytes},
                        {"slow_read_rate", slow_read_rate},
                        {"borrowed_zone_hit_rate", borrowed_zone_hit_rate},
                        {"last_error", last_error}}
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Migrator::Migrator(Filesystem* fs, std::shared_ptr<HintBus> bus, TieringSource* tiering, MigratorOptions options)
    : fs_(fs),
      bus_(bus),
      tracker_(bus),
      tiering_(tiering),
      options_(options),
      // Sleeps in slices so that Stop is not kept waiting; once stopping, the
      // move under way finishes at full speed.
      limiter_(options.rate_bytes_per_second, 0, MonotonicNs, [this](uint64_t ns) {
        while (ns > 0 && !stopping_.load()) {
          uint64_t slice = std::min<uint64_t>(ns, 20000000);
          std::this_thread::sleep_for(std::chrono::nanoseconds(slice));
          ns -= slice;
        }
      }) {}

Migrator::~Migrator() { Stop(); }

void Migrator::Start() {
  std::lock_guard<std::mutex> l(mu_);
  if (running_ || stopped_) return;
  running_ = true;
  stop_ = false;
  stopping_ = false;
  thread_ = std::thread([this] { Run(); });
}

void Migrator::Stop() {
  bool was_running;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stopped_) return;
    stopped_ = true;
    was_running = running_;
    stop_ = true;
    stopping_ = true;
  }
  if (was_running) {
    cv_.notify_all();
    thread_.join();
  }
  SaveStats();
}

void Migrator::Run() {
  bool moved = false;
  for (;;) {
    {
      std::unique_lock<std::mutex> l(mu_);
      if (!moved) cv_.wait_for(l, std::chrono::milliseconds(options_.interval_ms), [this] { return stop_; });
      if (stop_) return;
    }
    moved = Step().reason != MigrationPlan::Reason::kNone;
  }
}

std::vector<TableView> Migrator::Survey(uint64_t now_ns) {
  std::vector<TableView> tables;
  const auto& members = fs_->superblock().members;
  uint64_t slow_reads = 0;
  std::map<std::string, Seen> seen;
  {
    std::lock_guard<std::mutex> l(mu_);
    seen.swap(seen_);
  }
  for (const auto& [path, level] : tracker_.KnownLevels()) {
    FileStat st;
    if (!fs_->Stat(path, &st).ok() || st.extents.empty()) continue;
    TableView t;
    t.path = path;
    t.level = level;
    t.bytes = st.size;
    t.fast = std::all_of(st.extents.begin(), st.extents.end(), [&](const Extent& e) {
      return e.device < members.size() && members[e.device].tier == Tier::kFast;
    });
    t.compacting = tracker_.InRunningCompaction(path);
    t.seqnos_known = tracker_.SequenceRange(path, &t.oldest_seqno, &t.newest_seqno);
    auto it = seen.find(path);
    Seen s = it != seen.end() ? it->second : Seen{now_ns, st.reads};
    // HHZS's read rate: reads over the table's age (here since first seen,
    // at least a second so a new table's first read is not a stampede).
    double age_s = std::max(1.0, static_cast<double>(now_ns - s.first_seen_ns) / 1e9);
    t.read_rate = static_cast<double>(st.reads) / age_s;
    if (!t.fast && st.reads > s.reads_at_window) slow_reads += st.reads - s.reads_at_window;
    s.reads_at_window = st.reads;
    std::lock_guard<std::mutex> l(mu_);
    seen_[path] = s;  // tables no longer known drop out
    tables.push_back(std::move(t));
  }
  std::lock_guard<std::mutex> l(mu_);
  slow_reads_ += slow_reads;
  slow_read_window_.Close(now_ns, slow_reads_, options_.read_window_ms * 1000000, &stats_.slow_read_rate);
  return tables;
}

bool Migrator::CounterWindow::Close(uint64_t now_ns, uint64_t count, uint64_t window_ns, double* per_second) {
  if (start_ns == 0) {
    start_ns = now_ns;
    count_at_start = count;
  }
  const uint64_t elapsed = now_ns - start_ns;
  if (elapsed == 0 || elapsed < window_ns) return false;
  *per_second = static_cast<double>(count - count_at_start) / (static_cast<double>(elapsed) / 1e9);
  start_ns = now_ns;
  count_at_start = count;
  return true;
}

MigrationPlan Migrator::Step() {
  const uint64_t now = MonotonicNs();  // the hints' clock (hint_bus.cc)
  std::vector<TableView> tables = Survey(now);
  tiering_->NoteTime(now);
  TieringView tiering = tiering_->Tiering();
  tiering.now_ns = now;
  tiering.free_room_read_rate = FreeRoomReadRate(now);
  double slow_rate;
  {
    std::lock_guard<std::mutex> l(mu_);
    slow_rate = stats_.slow_read_rate;
    // What capacity migration still has to move off the fast tier.
    stats_.backlog_tables = stats_.backlog_bytes = 0;
    if (tiering.tiering_level != TieringView::kNone) {
      int64_t excess = tiering.fast_at_tiering_level - tiering.reserved;
      for (const TableView& t : tables) {
        bool out = t.fast && !t.compacting &&
                   (t.level > tiering.tiering_level || (t.level == tiering.tiering_level && excess > 0));
        if (!out) continue;
        if (t.level == tiering.tiering_level) excess--;
        stats_.backlog_tables++;
        stats_.backlog_bytes += t.bytes;
      }
    }
  }
  MigrationPlan plan = PlanMigration(tables, tiering, slow_rate, options_.slow_read_iops);
  Status s;
  switch (plan.reason) {
    case MigrationPlan::Reason::kNone:
      return plan;
    case MigrationPlan::Reason::kSwap:
      s = Move(plan.swap_out, /*to_fast=*/false);
      if (s.ok()) s = Move(plan.path, /*to_fast=*/true);
      break;
    default:
      s = Move(plan.path, plan.to_fast);
      break;
  }
  bool save = false;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (s.ok()) {
      if (plan.reason == MigrationPlan::Reason::kCapacity) stats_.capacity++;
      if (plan.reason == MigrationPlan::Reason::kPopularity) stats_.popularity++;
      if (plan.reason == MigrationPlan::Reason::kSwap) stats_.swap++;
      if (plan.reason == MigrationPlan::Reason::kFill) stats_.fill++;
      save = ++moves_since_save_ >= kSaveEveryMoves;
    }
  }
  if (save) SaveStats();
  if (!s.ok()) plan.reason = MigrationPlan::Reason::kNone;  // nothing moved: wait before planning again
  return plan;
}

double Migrator::FreeRoomReadRate(uint64_t now_ns) {
  if (!options_.borrowed_room) return 0;
  const BorrowedRoomSample sample = options_.borrowed_room();
  std::lock_guard<std::mutex> l(mu_);
  double hits_per_second = 0;
  if (room_window_.Close(now_ns, sample.hits, options_.room_window_ms * 1000000, &hits_per_second)) {
    // The first window is the cache's warm-up (it starts empty at every
    // mount, and serves little before its blocks are read again): it sets
    // no rate. Per zone held at the window's end: a cache still filling
    // its room counts its new zones before they serve, which errs towards
    // tables.
    if (room_warmed_up_) {
      stats_.borrowed_zone_hit_rate = hits_per_second / static_cast<double>(std::max<uint64_t>(1, sample.zones));
    }
    room_warmed_up_ = true;
  }
  return stats_.borrowed_zone_hit_rate < 0 ? std::numeric_limits<double>::infinity()
                                           : stats_.borrowed_zone_hit_rate;
}

Status Migrator::Move(const std::string& path, bool to_fast) {
  MigrateResult r;
  Status s = fs_->MigrateFile(path, to_fast ? Tier::kFast : Tier::kSlow, &limiter_, &r);
  std::lock_guard<std::mutex> l(mu_);
  if (s.ok()) {
    (to_fast ? stats_.to_fast_bytes : stats_.to_slow_bytes) += r.bytes;
  } else if (s.IsBusy()) {
    stats_.busy++;
  } else if (s.IsNoSpace()) {
    stats_.no_space++;
  } else if (!s.IsNotFound()) {  // deleted meanwhile: nothing to report
    stats_.errors++;
    stats_.last_error = path + ": " + s.ToString();
  }
  return s;
}

void Migrator::SaveStats() {
  std::string json;
  {
    std::lock_guard<std::mutex> l(mu_);
    moves_since_save_ = 0;
    json = stats_.ToJson();
  }
  fs_->SetAttribute("migration", json);  // a read-only mount keeps none
}

MigratorStats Migrator::stats() const {
  std::lock_guard<std::mutex> l(mu_);
  return stats_;
}

}  // namespace hintfs
