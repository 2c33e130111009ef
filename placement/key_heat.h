// KeyHeat: how hot each part of a store's key space is, learned from the
// table blocks its reads touch. HotRAP (§3.2) scores records by exponential
// smoothing; the filesystem sees blocks, not records, so a read scores the
// key range of the block it hit (from the table's block index,
// hints/block_index.h). Because the score belongs to keys and not to a file,
// it outlives the compactions that rewrite the block into other tables: a
// new block is as hot as the scored ranges it overlaps. That is what lets
// block-granular tiering keep hot data on the fast tier across compactions
// (HotRAP's retention, at block grain).
//
// Scores: score = sum over time slices i of a_i * alpha^(t - i), a_i the
// reads of the range in slice i; the slice t advances every slice_bytes of
// reads (HotRAP: alpha = 0.999, a slice every 10% of the fast tier's size).
// A range's stored (tick, score) decays lazily: its score now is
// alpha^(t - tick) * score.
//
// Ranges are (lo, hi] of user keys, kept by hi; at most max_ranges, the
// coldest evicted as new ones come. Every range decays by the same factor,
// so their order by score changes only when one is read: an index of the
// ranges by a time-invariant rank, log(score) - tick * log(alpha), keeps
// eviction and HotThreshold O(log n) and O(hot set) under the lock. (RALT
// evicts the coldest tenth at once; here that scan held the lock every read
// of the slow tier takes for up to 94 ms with 262,144 ranges, and reads
// under uniform keys waited 45-57 ms at p99.9, docs/benchmarks.md.)
// Overlap queries look at the
// ranges near the asked one (kOverlapProbe of them): exact for ranges of one
// level, which do not overlap each other, approximate where wide ranges of
// upper levels cover many narrow ones.
//
// Thread safe.
#ifndef HINTFS_PLACEMENT_KEY_HEAT_H_
#define HINTFS_PLACEMENT_KEY_HEAT_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace hintfs {

struct KeyHeatOptions {
  double alpha = 0.999;
  uint64_t slice_bytes = 64ull << 20;  // read bytes per time slice
  size_t max_ranges = 1 << 18;
};

struct KeyHeatStats {
  uint64_t reads = 0;      // reads recorded
  uint64_t ranges = 0;     // ranges held
  uint64_t evicted = 0;    // ranges evicted as the coldest
  uint64_t slice = 0;      // the current time slice
};

class KeyHeat {
 public:
  static constexpr int kOverlapProbe = 16;

  explicit KeyHeat(KeyHeatOptions options = KeyHeatOptions());

  // A read of bytes from a block holding keys in (lo, hi]; lo empty: from
  // the smallest key. Returns how hot the block is after the read counted:
  // the range's own score if it was read before (its reads are the block's),
  // else Score(lo, hi) with the read counted (a block new to the tracker is
  // as hot as the ranges it overlaps). One lock, and no probing of the
  // neighbours but for new ranges: every read of the slow tier calls it.
  // reads > 1 counts that many reads of the block at once (a caller that
  // gathers the reads of blocks it knows are hot, to take the lock less).
  double RecordRead(std::string_view lo, std::string_view hi, uint64_t bytes, uint32_t reads = 1);
  // The hottest score now of the recorded ranges that overlap (lo, hi]
  // (0 if none): how hot a block with those keys is.
  double Score(std::string_view lo, std::string_view hi) const;
  // How hot the block with keys (lo, hi] is, as RecordRead answers without
  // counting a read: the range's own score if a block with its upper key
  // was read before, else Score(lo, hi). A lookup for known ranges: block
  // tiering scores every block it moved up with it, and probing each one's
  // neighbours cost a twentieth of a read-mostly store's CPU
  // (docs/benchmarks.md).
  double BlockScore(std::string_view lo, std::string_view hi) const;
  // The score a range needs to be among the hottest that fit in
  // budget_bytes, counting each range by the bytes of the block that
  // scored it last (HotRAP's hot-set size limit, in bytes of blocks). 0
  // when everything fits.
  // Walks the hottest ranges a step at a time, releasing the lock between
  // steps.
  double HotThreshold(uint64_t budget_bytes) const;
  static constexpr int kThresholdStep = 512;

  KeyHeatStats stats() const;

 private:
  struct Range {
    std::string lo;
    uint64_t tick = 0;
    double score = 0;
    uint64_t block_bytes = 0;
    double rank = 0;  // its key in by_rank_
  };
  using RangeMap = std::map<std::string, Range, std::less<>>;
  // Ranges by rank, coldest first, each pointing at its by_hi_ entry (map
  // entries do not move).
  using RankIndex = std::set<std::pair<double, const RangeMap::value_type*>>;
  double NowLocked(const Range& r) const;
  // The order of r among the ranges by score now, at any time until r is
  // read again.
  double RankOf(const Range& r) const;
  double ScoreLocked(std::string_view lo, std::string_view hi) const;

  // alpha^d for the decays d most ranges are read at (no pow per read).
  static constexpr size_t kDecayTable = 4096;

  KeyHeatOptions options_;
  std::vector<double> decay_;  // decay_[d] = alpha^d, d < kDecayTable
  mutable std::mutex mu_;
  RangeMap by_hi_;
  // The same ranges by upper key, hashed (the keys are by_hi_'s own): a
  // read of a range seen before finds it without a walk of the tree.
  std::unordered_map<std::string_view, RangeMap::iterator> exact_;
  RankIndex by_rank_;
  uint64_t block_bytes_ = 0;  // of every range held
  uint64_t slice_ = 0;
  uint64_t slice_read_ = 0;  // bytes read in the current slice
  KeyHeatStats stats_;
};

}  // namespace hintfs

#endif  // HINTFS_PLACEMENT_KEY_HEAT_H_
