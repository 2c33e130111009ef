// LifetimeHistory: how long the recent files of one group lived, and what a
// file of the group that has lived a while may expect still to live.
//
// Lifetimes are write distances (bytes the filesystem wrote between a
// file's first allocation and its deletion, AllocationRequest::write_clock).
// A file that has lived `age` is expected to live on for the mean of
// (lifetime - age) over the recorded lifetimes longer than age: the
// lifetimes it can still have. GC weighs a zone's garbage by how long its
// live bytes are expected to stay (fs_gc.cc): space freed from data that
// dies soon would have freed itself.
//
// Not thread-safe: the owner locks.
#ifndef HINTFS_PLACEMENT_LIFETIME_HISTORY_H_
#define HINTFS_PLACEMENT_LIFETIME_HISTORY_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace hintfs {

class LifetimeHistory {
 public:
  // The last kKept lifetimes are kept; fewer than kMinKnown tell nothing.
  static constexpr size_t kKept = 1024;
  static constexpr size_t kMinKnown = 16;
  // What ExpectedRemaining returns when the history cannot tell: too few
  // lifetimes, or a file older than every one recorded.
  static constexpr uint64_t kUnknown = ~uint64_t{0};

  void Add(uint64_t lifetime);
  size_t size() const { return lifetimes_.size(); }
  // The mean of (l - age) over recorded lifetimes l > age, or kUnknown.
  uint64_t ExpectedRemaining(uint64_t age) const;

 private:
  void SortIfStale() const;

  std::deque<uint64_t> lifetimes_;  // oldest first
  // lifetimes_ sorted, and suffix_[i] the sum of sorted_[i..]; rebuilt when
  // a quarter of the lifetimes are newer than them (a lookup per file per
  // GC victim pick must stay cheap).
  mutable std::vector<uint64_t> sorted_;
  mutable std::vector<double> suffix_;
  mutable size_t added_since_sort_ = 0;
};

}  // namespace hintfs

#endif  // HINTFS_PLACEMENT_LIFETIME_HISTORY_H_
