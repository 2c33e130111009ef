#include "placement/key_heat.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace hintfs {

KeyHeat::KeyHeat(KeyHeatOptions options) : options_(options) {
  if (options_.slice_bytes == 0) options_.slice_bytes = 1;
  if (options_.max_ranges < 10) options_.max_ranges = 10;
  if (!(options_.alpha > 0 && options_.alpha <= 1)) options_.alpha = KeyHeatOptions().alpha;  // ranks take its log
  decay_.resize(kDecayTable);
  for (size_t d = 0; d < kDecayTable; d++) decay_[d] = std::pow(options_.alpha, static_cast<double>(d));
}

double KeyHeat::NowLocked(const Range& r) const {
  const uint64_t d = slice_ - r.tick;
  return r.score * (d < kDecayTable ? decay_[d] : std::pow(options_.alpha, static_cast<double>(d)));
}

double KeyHeat::RankOf(const Range& r) const {
  // score * alpha^(slice - tick) orders as log(score) - tick * log(alpha)
  // for every slice: the common factor alpha^slice drops out.
  return std::log(r.score) - static_cast<double>(r.tick) * std::log(options_.alpha);
}

double KeyHeat::RecordRead(std::string_view lo, std::string_view hi, uint64_t bytes, uint32_t reads) {
  std::lock_guard<std::mutex> l(mu_);
  stats_.reads += reads;
  slice_read_ += bytes * reads;
  if (slice_read_ >= options_.slice_bytes) {
    slice_ += slice_read_ / options_.slice_bytes;
    slice_read_ %= options_.slice_bytes;
  }
  auto found = exact_.find(hi);
  const bool is_new = found == exact_.end();
  auto it = is_new ? by_hi_.end() : found->second;
  // A range read before answers with its own score, which its reads made: a
  // lookup, where probing its neighbours under the one lock on every read
  // took a fifth of the CPU of a read-mostly store (docs/benchmarks.md). A
  // new one (a block a compaction wrote) is as hot as what it overlaps.
  const double inherited = is_new ? ScoreLocked(lo, hi) : 0;
  // The range's place in the rank index moves with its score; its node is
  // reused, not freed and allocated again on every read.
  RankIndex::node_type node;
  if (is_new) {
    it = by_hi_.emplace(std::string(hi), Range()).first;
    exact_.emplace(it->first, it);
  } else {
    node = by_rank_.extract({it->second.rank, &*it});
    block_bytes_ -= it->second.block_bytes;
  }
  Range& r = it->second;
  // A block of another table with the same upper key takes the range over
  // with the heat it had: the keys are the same.
  r.score = NowLocked(r) + reads;
  r.tick = slice_;
  if (r.lo != lo) r.lo.assign(lo);
  r.block_bytes = bytes;
  block_bytes_ += bytes;
  r.rank = RankOf(r);
  if (node.empty()) {
    by_rank_.emplace(r.rank, &*it);
  } else {
    node.value() = {r.rank, &*it};
    by_rank_.insert(std::move(node));
  }
  const double score = std::max(r.score, inherited);
  while (by_hi_.size() > options_.max_ranges) {
    const std::string& coldest = by_rank_.begin()->second->first;
    block_bytes_ -= by_rank_.begin()->second->second.block_bytes;
    by_rank_.erase(by_rank_.begin());
    exact_.erase(coldest);  // before the key's string goes with its range
    by_hi_.erase(by_hi_.find(coldest));
    stats_.evicted++;
  }
  return score;
}

double KeyHeat::Score(std::string_view lo, std::string_view hi) const {
  std::lock_guard<std::mutex> l(mu_);
  return ScoreLocked(lo, hi);
}

double KeyHeat::BlockScore(std::string_view lo, std::string_view hi) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = exact_.find(hi);
  if (it != exact_.end()) return NowLocked(it->second->second);  // as RecordRead: same upper key, same range
  return ScoreLocked(lo, hi);
}

double KeyHeat::ScoreLocked(std::string_view lo, std::string_view hi) const {
  double best = 0;
  int probed = 0;
  // Ranges (rlo, rhi] with rhi > lo, in order of rhi; they overlap (lo, hi]
  // when rlo < hi.
  for (auto it = by_hi_.upper_bound(lo); it != by_hi_.end() && probed < kOverlapProbe; ++it, ++probed) {
    if (it->second.lo < hi) best = std::max(best, NowLocked(it->second));
  }
  return best;
}

double KeyHeat::HotThreshold(uint64_t budget_bytes) const {
  // Hottest first, kThresholdStep ranges per hold of the lock: every read
  // of the slow tier and of blocks moved up takes it, and one walk of a
  // hot set of 25,000 ranges held them for 3 ms each second (the reads'
  // longest waits for a mutex in a hotspot read phase, docs/benchmarks.md).
  // Between steps the walk goes on below the last rank it saw; a range
  // read meanwhile moved up and is missed, which errs a little low.
  uint64_t used = 0;
  bool first = true;
  std::pair<double, const RangeMap::value_type*> below;
  for (;;) {
    std::lock_guard<std::mutex> l(mu_);
    if (first && block_bytes_ <= budget_bytes) return 0;  // everything fits: no walk
    auto it = first ? by_rank_.end() : by_rank_.lower_bound(below);
    first = false;
    for (int step = 0; step < kThresholdStep; step++) {
      if (it == by_rank_.begin()) return 0;
      --it;
      const Range& r = it->second->second;
      if (used + r.block_bytes > budget_bytes) return NowLocked(r);
      used += r.block_bytes;
    }
    below = *it;
  }
}

KeyHeatStats KeyHeat::stats() const {
  std::lock_guard<std::mutex> l(mu_);
  KeyHeatStats s = stats_;
  s.ranges = by_hi_.size();
  s.slice = slice_;
  return s;
}

}  // namespace hintfs
