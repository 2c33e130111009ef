// BlockTiering (block_tiering.h): room on the fast tier. The blocks moved
// up, kept with their totals per zone and per table; the coldest sent back
// down when a hotter one needs the budget, or a zone of them when a move
// finds no empty zone; tables rewritten whole when the metadata is full.
#include <algorithm>
#include <chrono>
#include <set>
#include <vector>

#include "hints/file_tag.h"
#include "placement/block_tiering.h"

namespace hintfs {

// Demotes promoted blocks colder than score, coldest first, until bytes
// more fit in the budget. False if they do not.
//
// The scores are taken with mu_ released: the I/O path takes mu_ on every
// read, and scoring thousands of promoted blocks under it on every move made
// a store's reads queue behind the mover (an update-heavy Zipf load lost a
// tenth of its throughput, docs/benchmarks.md). The coldest-first list one
// scan finds serves the moves that follow until it runs out or a second
// passes; each victim's score is checked again before it goes.
bool BlockTiering::MakeRoom(uint64_t bytes, double score) {
  std::lock_guard<std::mutex> room(room_mu_);
  std::vector<std::pair<std::string, uint64_t>> victims;
  uint64_t freed = 0;  // the victims' fast bytes
  for (;;) {
    {
      std::lock_guard<std::mutex> l(mu_);
      const uint64_t resident = stats_.resident_bytes - std::min(stats_.resident_bytes, freed);
      if (resident + bytes <= budget_) break;
    }
    const auto now = std::chrono::steady_clock::now();
    if (coldest_.empty() || now >= coldest_until_) {
      FindColdest();
      coldest_until_ = now + std::chrono::seconds(1);
    }
    if (coldest_.empty()) return false;
    Victim v = std::move(coldest_.back());
    coldest_.pop_back();
    if (v.score >= score || heat_.BlockScore(v.lo, v.hi) >= score) {
      coldest_.clear();  // the rest are hotter still: nothing goes down for a colder block
      return false;
    }
    std::lock_guard<std::mutex> l(mu_);
    const Promoted* p = FindPromotedLocked(v.key.first, v.key.second);
    if (p == nullptr) continue;  // gone down or dead meanwhile
    freed += p->fast_bytes;
    victims.push_back(v.key);
  }
  Demote(victims);  // together, packed
  return true;
}

void BlockTiering::FindColdest() {
  coldest_.clear();
  {
    std::lock_guard<std::mutex> l(mu_);
    coldest_.reserve(promoted_count_);
    for (const auto& [path, blocks] : promoted_) {
      for (const auto& [offset, p] : blocks) coldest_.push_back(Victim{{path, offset}, p.lo, p.hi, 0});
    }
  }
  for (Victim& v : coldest_) v.score = heat_.BlockScore(v.lo, v.hi);
  // Hottest first, so that the coldest is at the back.
  std::sort(coldest_.begin(), coldest_.end(), [](const Victim& a, const Victim& b) { return a.score > b.score; });
}

void BlockTiering::Demote(const std::vector<std::pair<std::string, uint64_t>>& keys) {
  std::vector<RangeMove> ranges;
  std::vector<std::pair<std::pair<std::string, uint64_t>, Promoted>> erased;
  uint64_t bytes = 0;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (const auto& key : keys) {
      const Promoted* p = FindPromotedLocked(key.first, key.second);
      if (p == nullptr) continue;  // gone down or dead meanwhile
      ranges.push_back(RangeMove{key.first, key.second, p->size});
      bytes += p->size;
      erased.emplace_back(key, *p);
      ErasePromotedLocked(key.first, key.second);
    }
  }
  if (ranges.empty()) return;
  limiter_.Acquire(bytes);
  // Packed on the slow tier too. A range whose table is gone (the block
  // with it) or changed holds no more of the budget either way.
  std::vector<MigrateResult> results;
  const Status s = fs_->MigrateRanges(ranges, Tier::kSlow, kMovedBlocksClass, nullptr, &results);
  std::lock_guard<std::mutex> l(mu_);
  if (!s.ok()) {
    // Nothing moved: the blocks are still up there and hold their room, so
    // they stay counted and go down at the next chance (forgotten, they
    // held their zone until their tables died: a whole YCSB A phase once,
    // docs/benchmarks.md); a table deleted meanwhile is dropped at the next
    // CheckPromotedTables.
    stats_.failed_moves += ranges.size();
    for (auto& [key, p] : erased) AddPromotedLocked(key, std::move(p));
    return;
  }
  for (size_t i = 0; i < ranges.size(); i++) {
    if (!results[i].moved) continue;
    stats_.demoted_blocks++;
    stats_.demoted_bytes += results[i].bytes;
    splits_[ranges[i].path]++;
  }
}

bool BlockTiering::DemoteColdestZone() {
  std::vector<std::pair<std::string, uint64_t>> victims;
  {
    // Every read of a moved block takes mu_: only the per-zone totals are
    // walked here, and the blocks only when a zone goes down (a walk of
    // every promoted block on each failed move held the reads for
    // milliseconds, docs/benchmarks.md).
    std::lock_guard<std::mutex> l(mu_);
    const auto now = std::chrono::steady_clock::now();
    if (now < next_zone_demotion_) return false;
    // One zone of blocks is the least the budget holds: keep it.
    if (zone_held_.size() < 2) return false;
    // HyperDB's benefit/cost: the bytes a zone's demotion frees per read
    // it served. Zones hold unequal bytes (blocks sent down one by one,
    // zones left part full), and by reads alone a zone of hot blocks that
    // held a few went down with them.
    uint64_t total_reads = 0, total_held = 0, coldest = kNoZone, coldest_reads = 0, coldest_held = 0;
    for (const auto& [zone, held] : zone_held_) {
      auto it = zone_reads_.find(zone);
      const uint64_t reads = it == zone_reads_.end() ? 0 : it->second.now + it->second.before;
      total_reads += reads;
      total_held += held;
      if (zone == filling_zone_) continue;
      // reads / held below coldest's (cross-multiplied), or as low with more bytes freed
      const double here = static_cast<double>(reads) * static_cast<double>(coldest_held);
      const double there = static_cast<double>(coldest_reads) * static_cast<double>(held);
      if (coldest == kNoZone || here < there || (here == there && held > coldest_held)) {
        coldest = zone;
        coldest_reads = reads;
        coldest_held = held;
      }
    }
    // Served fewer than half the mean reads per byte held, or it stays.
    if (coldest == kNoZone ||
        2.0 * static_cast<double>(coldest_reads) * static_cast<double>(total_held) >=
            static_cast<double>(total_reads) * static_cast<double>(coldest_held)) {
      return false;
    }
    for (const auto& [path, blocks] : promoted_) {
      for (const auto& [offset, p] : blocks) {
        if (p.zone == coldest) victims.emplace_back(path, offset);
      }
    }
    zone_reads_.erase(coldest);
    next_zone_demotion_ = now + options_.adjust_every;
    stats_.demoted_zones++;
  }
  Demote(victims);
  return true;
}

void BlockTiering::AddPromotedLocked(const std::pair<std::string, uint64_t>& key, Promoted p) {
  ErasePromotedLocked(key.first, key.second);
  stats_.resident_bytes += p.fast_bytes;
  HoldInZoneLocked(p.zone, p.fast_bytes);
  promoted_[key.first].emplace(key.second, std::move(p));
  promoted_count_++;
}

BlockTiering::Promoted* BlockTiering::FindPromotedLocked(const std::string& path, uint64_t offset) {
  auto table = promoted_.find(path);
  if (table == promoted_.end()) return nullptr;
  auto it = table->second.find(offset);
  return it == table->second.end() ? nullptr : &it->second;
}

void BlockTiering::ErasePromotedLocked(const std::string& path, uint64_t offset) {
  auto table = promoted_.find(path);
  if (table == promoted_.end()) return;
  auto it = table->second.find(offset);
  if (it == table->second.end()) return;
  const Promoted& p = it->second;
  stats_.resident_bytes -= std::min(stats_.resident_bytes, p.fast_bytes);
  ReleaseFromZoneLocked(p.zone, p.fast_bytes);
  table->second.erase(it);
  promoted_count_--;
  if (table->second.empty()) promoted_.erase(table);
}

void BlockTiering::HoldInZoneLocked(uint64_t zone, uint64_t bytes) {
  if (zone != kNoZone) zone_held_[zone] += bytes;
}

void BlockTiering::ReleaseFromZoneLocked(uint64_t zone, uint64_t bytes) {
  if (zone == kNoZone) return;
  auto z = zone_held_.find(zone);
  if (z != zone_held_.end() && (z->second -= std::min(z->second, bytes)) == 0) zone_held_.erase(z);
}

void BlockTiering::RotateZoneReads() {
  std::lock_guard<std::mutex> l(mu_);
  for (auto it = zone_reads_.begin(); it != zone_reads_.end();) {
    it->second.before = it->second.now;
    it->second.now = 0;
    it = it->second.before == 0 ? zone_reads_.erase(it) : std::next(it);
  }
}

void BlockTiering::CheckPromotedTables(bool rezone) {
  std::set<std::string> paths;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (const auto& [path, blocks] : promoted_) paths.insert(path);
  }
  for (const std::string& path : paths) {
    FileStat st;
    const bool alive = fs_->Stat(path, &st).ok();
    std::lock_guard<std::mutex> l(mu_);
    if (alive) {
      if (rezone) RezoneLocked(path, st.extents);
      continue;
    }
    splits_.erase(path);
    ForgetPromotedLocked(path);
  }
}

bool BlockTiering::GcRanSinceLastLook() {
  const uint64_t gc_zones = fs_->Stats().gc_zones_freed;
  const bool ran = gc_zones != gc_zones_seen_;
  gc_zones_seen_ = gc_zones;
  return ran;
}

void BlockTiering::RezoneLocked(const std::string& path, const std::vector<Extent>& extents) {
  auto table = promoted_.find(path);
  if (table == promoted_.end()) return;
  std::vector<uint64_t> starts;  // file offset of each extent
  uint64_t at = 0;
  for (const Extent& e : extents) {
    starts.push_back(at);
    at += e.length;
  }
  for (auto& [offset, p] : table->second) {
    auto it = std::upper_bound(starts.begin(), starts.end(), offset);
    if (it == starts.begin()) continue;
    const Extent& e = extents[static_cast<size_t>(it - starts.begin()) - 1];
    const bool fast = fs_->superblock().members[e.device].tier == Tier::kFast;
    const uint64_t zone = fast ? ZoneKey(e.device, e.zone) : kNoZone;
    if (zone == p.zone) continue;
    ReleaseFromZoneLocked(p.zone, p.fast_bytes);
    HoldInZoneLocked(zone, p.fast_bytes);
    p.zone = zone;
  }
}

void BlockTiering::ForgetPromotedLocked(const std::string& path) {
  auto table = promoted_.find(path);
  if (table == promoted_.end()) return;
  std::vector<uint64_t> offsets;
  for (const auto& [offset, p] : table->second) offsets.push_back(offset);
  for (uint64_t offset : offsets) ErasePromotedLocked(path, offset);
}

bool BlockTiering::MetadataFull() {
  // The refusals counted since the last look: the snapshot bound alone is
  // loose (all that was journaled since the last roll) and would take a
  // move refused for want of space for one refused for metadata.
  const uint64_t refused = fs_->Stats().range_moves_refused;
  std::lock_guard<std::mutex> l(mu_);
  const bool more = refused > metadata_refusals_seen_;
  metadata_refusals_seen_ = refused;
  return more;
}

bool BlockTiering::RelayoutMostSplit() {
  std::string path;
  {
    std::lock_guard<std::mutex> l(mu_);
    uint64_t most = 0;
    for (const auto& [p, splits] : splits_) {
      if (splits > most) most = splits, path = p;
    }
    if (path.empty()) return false;
    splits_.erase(path);  // rewritten, or gone
  }
  FileStat st;
  if (!fs_->Stat(path, &st).ok()) return false;
  uint64_t bytes[2] = {0, 0};
  for (const Extent& e : st.extents) bytes[static_cast<int>(fs_->superblock().members[e.device].tier)] += e.length;
  const Tier home = bytes[static_cast<int>(Tier::kFast)] > bytes[static_cast<int>(Tier::kSlow)] ? Tier::kFast
                                                                                                 : Tier::kSlow;
  MigrateResult r;
  if (!fs_->RelayoutFile(path, home, &limiter_, &r).ok()) return false;
  std::lock_guard<std::mutex> l(mu_);
  stats_.relayouts++;
  ForgetPromotedLocked(path);  // its blocks are where the table is now, no longer moved blocks
  for (auto it = known_fast_.lower_bound({path, 0}); it != known_fast_.end() && it->first == path;) {
    it = known_fast_.erase(it);
  }
  return true;
}

}  // namespace hintfs
