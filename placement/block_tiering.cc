#include "placement/block_tiering.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "fs/walk.h"
#include "hints/file_tag.h"

namespace hintfs {

namespace {

constexpr size_t kMaxQueued = 10000;
// Moves made together (Filesystem::MigrateRanges packs their bytes, so a
// block takes its own bytes of the fast tier, not the device blocks it
// straddles): a few hundred KiB, so that one batch is a short write.
constexpr size_t kBatchBlocks = 128;
constexpr uint64_t kBatchBytes = 256 << 10;
constexpr size_t kMaxKnownFast = 200000;
constexpr double kMaxMinScore = 64;

}  // namespace

std::string BlockTieringStats::ToJson() const {
  return fmt::format(
      "{{\"promoted_blocks\":{},\"promoted_bytes\":{},\"retained_blocks\":{},\"retained_bytes\":{},"
      "\"demoted_blocks\":{},\"demoted_bytes\":{},\"demoted_zones\":{},\"relayouts\":{},\"failed_moves\":{},"
      "\"dropped\":{},"
      "\"resident_bytes\":{},\"fast_reads_ignored\":{},\"moved_block_reads\":{},"
      "\"budget_bytes\":{},\"budget_changes\":{},\"min_score\":{}}}",
      promoted_blocks, promoted_bytes, retained_blocks, retained_bytes, demoted_blocks, demoted_bytes, demoted_zones,
      relayouts, failed_moves, dropped, resident_bytes, fast_reads_ignored, moved_block_reads, budget_bytes,
      budget_changes, min_score);
}

BlockTiering::BlockTiering(Filesystem* fs, BlockTieringOptions options)
    : fs_(fs), options_(options), heat_(options.heat), limiter_(std::max<uint64_t>(options.rate_bytes_per_second, 1)) {
  min_score_ = options_.min_score;
  probe_wait_ = options_.probe_after;
}

BlockTiering::~BlockTiering() { Stop(); }

void BlockTiering::Start() {
  std::vector<DeviceUsage> usage;
  if (fs_->Usage(&usage).ok()) {
    for (const DeviceUsage& u : usage) {
      if (u.tier == Tier::kFast) zone_bytes_ = u.zone_capacity;
    }
  }
  if (options_.budget_bytes > 0) AdoptMovedBlocks();
  {
    const uint64_t refused = fs_->Stats().range_moves_refused;
    std::lock_guard<std::mutex> l(mu_);
    metadata_refusals_seen_ = refused;
  }
  // An adaptive budget starts at a zone, or at the zones the adopted blocks
  // fill: an earlier mount had earned those.
  const uint64_t step = std::max<uint64_t>(zone_bytes_, 1);
  const uint64_t adopted = (stats().resident_bytes + step - 1) / step * step;
  SetBudget(options_.adaptive ? std::min(options_.budget_bytes, std::max(step, adopted)) : options_.budget_bytes);
  std::lock_guard<std::mutex> l(mu_);
  if (!thread_.joinable()) thread_ = std::thread([this] { Run(); });
}

void BlockTiering::SetBudget(uint64_t bytes) {
  {
    std::lock_guard<std::mutex> l(mu_);
    shortfall_ = 0;
  }
  budget_ = bytes;
  if (options_.tiering != nullptr && options_.take_room_from_tables) options_.tiering->SetAsideFastBytes(bytes);
}

void BlockTiering::ClaimShortfallLocked() {
  // Placement may owe more than one zone (the tables' tails, the WAL's
  // zones): a zone more per failure while the blocks are a zone or more
  // under budget, at most the budget again.
  const uint64_t budget = budget_;
  if (!options_.take_room_from_tables || zone_bytes_ == 0 || stats_.resident_bytes + zone_bytes_ > budget ||
      shortfall_ + zone_bytes_ > budget) {
    return;
  }
  shortfall_ += zone_bytes_;
  if (options_.tiering != nullptr) options_.tiering->SetAsideFastBytes(budget + shortfall_);
}

void BlockTiering::AdjustBudget() {
  uint64_t table_bytes = 0;
  std::vector<DeviceUsage> usage;
  if (!fs_->Usage(&usage).ok()) return;
  for (const DeviceUsage& u : usage) {
    if (u.tier == Tier::kFast) table_bytes += u.zone_capacity * u.role_zones[static_cast<int>(kTableClass)];
  }
  const uint64_t step = std::max<uint64_t>(zone_bytes_, 1);
  uint64_t block_reads, table_reads, resident, promoted;
  {
    std::lock_guard<std::mutex> l(mu_);
    block_reads = stats_.moved_block_reads - last_block_reads_;
    table_reads = stats_.fast_reads_ignored - last_table_reads_;
    promoted = stats_.promoted_blocks - last_promoted_;
    last_block_reads_ = stats_.moved_block_reads;
    last_table_reads_ = stats_.fast_reads_ignored;
    last_promoted_ = stats_.promoted_blocks;
    resident = stats_.resident_bytes;
    if (promoted > 0) {  // in a steady state, the reads each promotion earns
      double score = min_score_;
      if (block_reads < 2 * promoted) score = std::min(kMaxMinScore, 2 * score);
      if (block_reads > 8 * promoted) score = std::max(options_.min_score, score / 2);
      min_score_ = score;
    }
  }
  uint64_t budget = budget_;
  const auto now = std::chrono::steady_clock::now();
  if (budget == 0) {
    // Off (BlockTieringOptions::probe_after): a zone again once the wait is
    // over, to measure whether the load has changed.
    if (now < probe_at_) return;
    budget = std::min(options_.budget_bytes, step);
  } else {
    if (block_reads + table_reads == 0) return;  // nothing read: nothing learned
    double block_density = static_cast<double>(block_reads) / static_cast<double>(std::max(resident, step));
    double table_density = static_cast<double>(table_reads) / static_cast<double>(std::max(table_bytes, step));
    // Blocks that take room from the tables keep a zone, so that their
    // density stays measured; those that use only the room the tables leave
    // may go to none: their zone is a table slot placement then lacks.
    const uint64_t floor = options_.take_room_from_tables ? std::min(options_.budget_bytes, step) : 0;
    const int direction = BudgetDirection(block_density, table_density);
    if (direction < 0) {
      budget = budget <= step ? floor : std::max(step, budget / 2);
    } else if (direction > 0 && resident + step > budget) {
      budget = std::min(options_.budget_bytes, std::max(step, 2 * budget));
      probe_wait_ = options_.probe_after;  // the blocks pay again
    }
  }
  if (budget == budget_) return;
  if (budget == 0) {
    probe_at_ = now + probe_wait_;
    probe_wait_ = std::min(probe_wait_ * 2, options_.probe_after * 16);
  }
  SetBudget(budget);
  {
    std::lock_guard<std::mutex> l(mu_);
    stats_.budget_changes++;
  }
  // Down to the new budget, coldest first; with none, every block goes down.
  // Left up there until their tables died, they held their zone for a whole
  // YCSB A phase (a deep level's tables outlive it), a zone the tables lacked:
  // a compaction into L2 spilled one output more to the slow tier each time
  // (36 of ~80 L2 tables there against 26 without block tiering, 6% of
  // throughput; docs/benchmarks.md, session 95). A zone of writes to the slow
  // tier once is the cheaper.
  MakeRoom(0, std::numeric_limits<double>::infinity());
}

int BlockTiering::BudgetDirection(double block_density, double table_density) {
  if (block_density < table_density) return -1;
  // A zone more holds blocks colder than those up already and costs the
  // coldest table there; the blocks' average must beat it by a margin.
  return block_density >= kGrowthMargin * table_density ? 1 : 0;
}

void BlockTiering::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!thread_.joinable()) return;
    stopping_ = true;
    queue_.clear();
    queued_.clear();
  }
  cv_.notify_all();
  thread_.join();
  idle_cv_.notify_all();
}

void BlockTiering::WaitIdle() {
  std::unique_lock<std::mutex> l(mu_);
  idle_cv_.wait(l, [this] { return (queue_.empty() && !busy_) || stopping_; });
}

bool BlockTiering::Hot(double score) const { return score >= std::max(min_score_.load(), threshold_.load()); }

void BlockTiering::Queue(Candidate c) {
  std::lock_guard<std::mutex> l(mu_);
  auto key = std::make_pair(c.path, c.offset);
  if (stopping_ || queue_.size() >= kMaxQueued || queued_.count(key) ||
      FindPromotedLocked(key.first, key.second) != nullptr || known_fast_.count(key)) {
    return;
  }
  queued_.insert(std::move(key));
  queue_.push_back(std::move(c));
  cv_.notify_one();
}

void BlockTiering::OnBlockRead(const std::string& path, const BlockIndex& index, size_t block, uint64_t,
                               uint64_t slow_bytes) {
  const IndexedBlock& b = index.blocks[block];
  reads_seen_.fetch_add(1, std::memory_order_relaxed);
  // Off (a budget of none): the read costs nothing more. The heat, the
  // moved blocks' reads and the fast reads were a tenth of the CPU of a
  // SATA-bound uniform read phase that promotes nothing (HyperDB's setting,
  // docs/benchmarks.md); a probe measures afresh (AdjustBudget).
  if (budget_ == 0) return;
  uint32_t reads = 1;
  if (slow_bytes == 0) {
    std::lock_guard<std::mutex> l(mu_);
    Promoted* moved = FindPromotedLocked(path, b.offset);
    if (moved == nullptr) {
      stats_.fast_reads_ignored++;
      return;
    }
    stats_.moved_block_reads++;
    if (moved->zone != kNoZone) zone_reads_[moved->zone].now++;
    // A block up there is hot already: its reads reach the heat
    // kMovedReadsPerRecord at a time, so that most reads of a hot set take
    // the heat's lock a fraction of the time (the heat's bookkeeping was a
    // sixth of the CPU of a hotspot read phase, docs/benchmarks.md).
    if (++moved->unrecorded_reads < kMovedReadsPerRecord) return;
    reads = moved->unrecorded_reads;
    moved->unrecorded_reads = 0;
  }
  const std::string& lo = index.LowerBound(block);
  const double score = heat_.RecordRead(lo, b.last_key, b.size, reads);
  if (budget_ == 0 || slow_bytes == 0 || !Hot(score)) return;
  Queue(Candidate{path, b.offset, b.size, lo, b.last_key, score, /*retention=*/false});
}

void BlockTiering::OnTableIndexed(const std::string& path, std::shared_ptr<const BlockIndex> index) {
  if (budget_ == 0 || !options_.retention) return;
  for (size_t i = 0; i < index->blocks.size(); i++) {
    const IndexedBlock& b = index->blocks[i];
    const double score = heat_.BlockScore(index->LowerBound(i), b.last_key);
    if (Hot(score)) {
      Queue(Candidate{path, b.offset, b.size, index->LowerBound(i), b.last_key, score, /*retention=*/true});
    }
  }
}

void BlockTiering::Run() {
  auto next_threshold = std::chrono::steady_clock::now();
  auto next_adjust = next_threshold + options_.adjust_every;
  uint64_t reads_at_adjust = 0;
  const uint64_t every_reads = options_.adjust_reads > 0 ? options_.adjust_reads : UINT64_MAX;
  std::unique_lock<std::mutex> l(mu_);
  for (;;) {
    // A tenth of a second at most, so that adjust_reads is noticed soon.
    cv_.wait_for(l, std::chrono::milliseconds(100), [this] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    const bool enough_reads = reads_seen_ - reads_at_adjust >= every_reads;
    if (std::chrono::steady_clock::now() >= next_threshold || enough_reads) {
      l.unlock();
      // Once a second: the hot-set threshold for the budget (a pass over
      // every range under the heat's lock, which every read takes).
      if (std::chrono::steady_clock::now() >= next_threshold) {
        threshold_ = heat_.HotThreshold(budget_);
        CheckPromotedTables(GcRanSinceLastLook());
        next_threshold = std::chrono::steady_clock::now() + std::chrono::seconds(1);
      }
      if (std::chrono::steady_clock::now() >= next_adjust || enough_reads) {
        if (options_.adaptive) AdjustBudget();
        RotateZoneReads();
        next_adjust = std::chrono::steady_clock::now() + options_.adjust_every;
        reads_at_adjust = reads_seen_;
      }
      l.lock();
    }
    if (std::chrono::steady_clock::now() < paused_until_) {
      stats_.dropped += queue_.size();  // they come back with their next reads
      queue_.clear();
      queued_.clear();
      idle_cv_.notify_all();
      continue;
    }
    if (queue_.empty()) continue;
    std::vector<Candidate> batch;
    uint64_t batch_bytes = 0;
    while (!queue_.empty() && batch.size() < kBatchBlocks && batch_bytes < kBatchBytes) {
      batch_bytes += queue_.front().size;
      batch.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
    busy_ = true;
    l.unlock();
    MoveBatch(batch);
    l.lock();
    for (const Candidate& c : batch) queued_.erase({c.path, c.offset});
    busy_ = false;
    if (queue_.empty()) idle_cv_.notify_all();
  }
}

ReadLocation BlockTiering::Where(const std::string& path, uint64_t offset, uint64_t size) {
  std::unique_ptr<FileReader> reader;
  if (!fs_->OpenReader(path, &reader).ok()) return ReadLocation();
  return reader->Locate(offset, static_cast<size_t>(size));
}

bool BlockTiering::OnSlowTier(const std::string& path, uint64_t offset, uint64_t size) {
  return Where(path, offset, size).slow;
}

std::vector<BlockTiering::Candidate> BlockTiering::StillWanted(const std::vector<Candidate>& batch) {
  std::vector<Candidate> ready;
  for (const Candidate& queued : batch) {
    // Cooled down while queued, or the hot set moved past it. A block new
    // to the heat was queued as hot as what it overlaps, and its own score
    // is that of its first read: the higher of the two stands.
    Candidate c = queued;
    c.score = std::max(c.score, heat_.BlockScore(c.lo, c.hi));
    if (!Hot(c.score)) continue;
    if (!OnSlowTier(c.path, c.offset, c.size)) {
      std::lock_guard<std::mutex> l(mu_);
      if (known_fast_.size() >= kMaxKnownFast) known_fast_.clear();
      known_fast_.insert({c.path, c.offset});
      continue;
    }
    ready.push_back(std::move(c));
  }
  // Hottest first: when the budget runs short, the coldest stay down.
  std::sort(ready.begin(), ready.end(), [](const Candidate& a, const Candidate& b) { return a.score > b.score; });
  return ready;
}

std::vector<RangeMove> BlockTiering::RangesOf(const std::vector<Candidate>& candidates) {
  std::vector<RangeMove> ranges;
  for (const Candidate& c : candidates) ranges.push_back(RangeMove{c.path, c.offset, c.size});
  return ranges;
}

Status BlockTiering::MoveUp(const std::vector<Candidate>& ready, std::vector<MigrateResult>* results) {
  auto move = [&] { return fs_->MigrateRanges(RangesOf(ready), Tier::kFast, kMovedBlocksClass, nullptr, results); };
  Status s = move();
  // Refused for want of metadata room, not of the fast tier's: placement
  // must not give up a table for it, nor a zone of hot blocks go down.
  bool for_metadata = s.IsNoSpace() && MetadataFull();
  if (for_metadata && RelayoutMostSplit()) {
    s = move();
    for_metadata = s.IsNoSpace() && MetadataFull();
  }
  if (s.IsNoSpace() && !for_metadata) {
    std::lock_guard<std::mutex> l(mu_);
    ClaimShortfallLocked();
  }
  if (s.IsNoSpace() && !for_metadata && DemoteColdestZone()) s = move();  // into the zone just emptied
  return s;
}

bool BlockTiering::RetryChanged(const std::vector<Candidate>& ready, std::vector<MigrateResult>* results) {
  std::vector<Candidate> again;
  std::vector<size_t> at;  // where each of again is in ready
  for (size_t i = 0; i < ready.size(); i++) {
    if ((*results)[i].status.IsBusy()) {
      again.push_back(ready[i]);
      at.push_back(i);
    }
  }
  if (again.empty()) return false;
  std::vector<MigrateResult> retried;
  // On an error they stay where they are, counted as failed.
  if (fs_->MigrateRanges(RangesOf(again), Tier::kFast, kMovedBlocksClass, nullptr, &retried).ok()) {
    for (size_t k = 0; k < at.size(); k++) (*results)[at[k]] = retried[k];
  }
  return true;
}

void BlockTiering::MoveBatch(const std::vector<Candidate>& batch) {
  std::vector<Candidate> ready = StillWanted(batch);
  if (ready.empty() || budget_ == 0) return;
  uint64_t bytes = 0;
  size_t fit = 0;
  while (fit < ready.size() && MakeRoom(bytes + ready[fit].size, ready[fit].score)) bytes += ready[fit++].size;
  ready.resize(fit);
  if (ready.empty()) return;
  limiter_.Acquire(bytes);
  std::vector<MigrateResult> results;
  Status s = MoveUp(ready, &results);
  // GC moved blocks of this batch's tables: their zones are found again
  // now, not at the next second's look (the zone demotion may come first).
  if (s.ok() && RetryChanged(ready, &results) && GcRanSinceLastLook()) CheckPromotedTables(/*rezone=*/true);
  std::vector<ReadLocation> at(ready.size());
  for (size_t i = 0; s.ok() && i < ready.size(); i++) {
    if (results[i].moved) at[i] = Where(ready[i].path, ready[i].offset, ready[i].size);
  }
  std::lock_guard<std::mutex> l(mu_);
  if (!s.ok()) {
    stats_.failed_moves += ready.size();
    // The fast tier is full (placement's reservations keep its empty zones):
    // try again in a fifth of a second rather than once per queued block
    // (a second was most of a short run: the budget never filled).
    if (s.IsNoSpace()) paused_until_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
    return;
  }
  for (size_t i = 0; i < ready.size(); i++) {
    const Candidate& c = ready[i];
    if (!results[i].moved) {
      stats_.failed_moves++;  // the table changed or went meanwhile
      continue;
    }
    const uint64_t zone = at[i].found && !at[i].slow ? ZoneKey(at[i].device, at[i].zone) : kNoZone;
    AddPromotedLocked({c.path, c.offset}, Promoted{c.size, results[i].bytes, c.lo, c.hi, zone});
    splits_[c.path]++;
    filling_zone_ = zone;
    (c.retention ? stats_.retained_blocks : stats_.promoted_blocks)++;
    (c.retention ? stats_.retained_bytes : stats_.promoted_bytes) += c.size;
  }
}

void BlockTiering::AdoptMovedBlocks() {
  std::vector<ZoneReport> zones;
  if (!fs_->Zones(&zones).ok()) return;
  std::set<uint64_t> moved_zones;
  for (const ZoneReport& z : zones) {
    if (z.role == kMovedBlocksClass && z.live_bytes > 0 && fs_->superblock().members[z.device].tier == Tier::kFast) {
      moved_zones.insert(ZoneKey(z.device, z.zone));
    }
  }
  if (moved_zones.empty()) return;
  std::map<std::pair<std::string, uint64_t>, Promoted> adopted;
  Walk(fs_, "/", /*recursive=*/true, [&](const std::string& path, const DirEntry& entry) {
    FileStat st;
    if (entry.type != FileType::kFile || !fs_->Stat(path, &st).ok()) return;
    uint64_t at = 0;
    Promoted* run = nullptr;  // the adopted run the previous extent ended
    for (const Extent& e : st.extents) {
      const uint64_t zone = ZoneKey(e.device, e.zone);
      if (!moved_zones.count(zone)) {
        run = nullptr;
      } else if (run != nullptr && run->zone == zone) {
        run->size += e.length;
        run->fast_bytes += e.length;
      } else {
        run = &adopted[{path, at}];
        *run = Promoted{e.length, e.length, "", "", zone};
      }
      at += e.length;
    }
  });
  std::lock_guard<std::mutex> l(mu_);
  for (auto& [key, p] : adopted) {
    AddPromotedLocked(key, std::move(p));
  }
}

BlockTieringStats BlockTiering::stats() const {
  std::lock_guard<std::mutex> l(mu_);
  BlockTieringStats s = stats_;
  s.budget_bytes = budget_;
  s.min_score = min_score_;
  return s;
}

}  // namespace hintfs
