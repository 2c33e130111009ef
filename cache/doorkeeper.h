// Doorkeeper: remembers which keys missed recently, so that a full cache
// admits a block only on its second miss (TinyLFU's doorkeeper). A key is
// remembered by its 64-bit hash in two generations of bits: a generation
// takes `keys` insertions, then becomes the older one and the oldest is
// cleared, so a key is remembered for between `keys` and twice that many
// later misses. A key never remembered is reported seen with a small
// probability (two bits per key out of eight per key: about 5% for each full
// generation, so under a tenth), which only admits a block on its first miss.
//
// Replaces a set and a FIFO of hashes, whose node allocations made the check
// of every miss a few percent of a uniform read phase's CPU (HyperDB's
// setting, docs/benchmarks.md). Not thread safe: the cache's lock guards it.
#ifndef HINTFS_CACHE_DOORKEEPER_H_
#define HINTFS_CACHE_DOORKEEPER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hintfs {

class Doorkeeper {
 public:
  explicit Doorkeeper(size_t keys);

  // True if hash was remembered within the last one or two generations;
  // otherwise remembers it and returns false.
  bool SeenOrRemember(uint64_t hash);
  // The generation size from the next rotation on (at least one key).
  void SetKeys(size_t keys) { next_keys_ = keys > 0 ? keys : 1; }
  size_t keys() const { return keys_; }

 private:
  static constexpr size_t kBitsPerKey = 8;
  void Rotate();
  bool Has(const std::vector<uint64_t>& bits, uint64_t hash) const;
  void Set(std::vector<uint64_t>* bits, uint64_t hash);

  size_t keys_, next_keys_;
  size_t inserted_ = 0;  // into the newer generation
  uint64_t mask_ = 0;    // bit positions: the table size (a power of two) - 1
  std::vector<uint64_t> newer_, older_;
};

}  // namespace hintfs

#endif  // HINTFS_CACHE_DOORKEEPER_H_
