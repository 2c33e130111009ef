#include "placement/lifetime_history.h"

#include <algorithm>

namespace hintfs {

void LifetimeHistory::Add(uint64_t lifetime) {
  lifetimes_.push_back(lifetime);
  if (lifetimes_.size() > kKept) lifetimes_.pop_front();
  added_since_sort_++;
}

void LifetimeHistory::SortIfStale() const {
  if (!sorted_.empty() && added_since_sort_ * 4 < sorted_.size()) return;
  sorted_.assign(lifetimes_.begin(), lifetimes_.end());
  std::sort(sorted_.begin(), sorted_.end());
  suffix_.assign(sorted_.size() + 1, 0);
  for (size_t i = sorted_.size(); i-- > 0;) suffix_[i] = suffix_[i + 1] + static_cast<double>(sorted_[i]);
  added_since_sort_ = 0;
}

uint64_t LifetimeHistory::ExpectedRemaining(uint64_t age) const {
  if (lifetimes_.size() < kMinKnown) return kUnknown;
  SortIfStale();
  const size_t first_longer = static_cast<size_t>(std::upper_bound(sorted_.begin(), sorted_.end(), age) - sorted_.begin());
  const size_t longer = sorted_.size() - first_longer;
  if (longer == 0) return kUnknown;
  const double mean = suffix_[first_longer] / static_cast<double>(longer);
  return static_cast<uint64_t>(mean) - std::min<uint64_t>(age, static_cast<uint64_t>(mean));
}

}  // namespace hintfs
