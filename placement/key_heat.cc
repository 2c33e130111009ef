#include "placement/key_heat.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace hintfs {

KeyHeat::KeyHeat(KeyHeatOptions options) : options_(options) {
  if (options_.slice_bytes == 0) options_.slice_bytes = 1;
  if (options_.max_ranges < 10) options_.max_ranges = 10;
  decay_.resize(kDecayTable);
  for (size_t d = 0; d < kDecayTable; d++) decay_[d] = std::pow(options_.alpha, static_cast<double>(d));
}

double KeyHeat::NowLocked(const Range& r) const {
  const uint64_t d = slice_ - r.tick;
  return r.score * (d < kDecayTable ? decay_[d] : std::pow(options_.alpha, static_cast<double>(d)));
}

double KeyHeat::RecordRead(std::string_view lo, std::string_view hi, uint64_t bytes) {
  std::lock_guard<std::mutex> l(mu_);
  stats_.reads++;
  slice_read_ += bytes;
  if (slice_read_ >= options_.slice_bytes) {
    slice_ += slice_read_ / options_.slice_bytes;
    slice_read_ %= options_.slice_bytes;
  }
  auto it = by_hi_.find(hi);
  const bool is_new = it == by_hi_.end();
  // A range read before answers with its own score, which its reads made: a
  // lookup, where probing its neighbours under the one lock on every read
  // took a fifth of the CPU of a read-mostly store (docs/benchmarks.md). A
  // new one (a block a compaction wrote) is as hot as what it overlaps.
  const double inherited = is_new ? ScoreLocked(lo, hi) : 0;
  if (is_new) it = by_hi_.emplace(std::string(hi), Range()).first;
  Range& r = it->second;
  // A block of another table with the same upper key takes the range over
  // with the heat it had: the keys are the same.
  r.score = NowLocked(r) + 1;
  r.tick = slice_;
  r.lo.assign(lo);
  r.block_bytes = bytes;
  const double score = std::max(r.score, inherited);
  if (by_hi_.size() > options_.max_ranges) EvictColdestLocked();
  return score;
}

double KeyHeat::Score(std::string_view lo, std::string_view hi) const {
  std::lock_guard<std::mutex> l(mu_);
  return ScoreLocked(lo, hi);
}

double KeyHeat::BlockScore(std::string_view lo, std::string_view hi) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = by_hi_.find(hi);
  if (it != by_hi_.end()) return NowLocked(it->second);  // as RecordRead: same upper key, same range
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
  std::vector<std::pair<double, uint64_t>> ranges;
  {
    std::lock_guard<std::mutex> l(mu_);
    ranges.reserve(by_hi_.size());
    for (const auto& [hi, r] : by_hi_) ranges.emplace_back(NowLocked(r), r.block_bytes);
  }
  std::sort(ranges.begin(), ranges.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  uint64_t used = 0;
  for (const auto& [score, bytes] : ranges) {
    if (used + bytes > budget_bytes) return score;
    used += bytes;
  }
  return 0;
}

void KeyHeat::EvictColdestLocked() {
  std::vector<double> scores;
  scores.reserve(by_hi_.size());
  for (const auto& [hi, r] : by_hi_) scores.push_back(NowLocked(r));
  size_t tenth = std::max<size_t>(1, scores.size() / 10);
  std::nth_element(scores.begin(), scores.begin() + static_cast<long>(tenth - 1), scores.end());
  double cutoff = scores[tenth - 1];
  size_t evicted = 0;
  for (auto it = by_hi_.begin(); it != by_hi_.end() && evicted < tenth;) {
    if (NowLocked(it->second) <= cutoff) {
      it = by_hi_.erase(it);
      evicted++;
    } else {
      ++it;
    }
  }
  stats_.evicted += evicted;
}

KeyHeatStats KeyHeat::stats() const {
  std::lock_guard<std::mutex> l(mu_);
  KeyHeatStats s = stats_;
  s.ranges = by_hi_.size();
  s.slice = slice_;
  return s;
}

}  // namespace hintfs
