// TableSize: the size of the store's tables, the unit ("slot") in which the
// LSM policies plan the fast tier. Configured ("hhzs:table_bytes=64MiB") it
// never changes. Otherwise it is learned from the tables the store finishes
// (the bytes of every flush and compaction output hint, from RocksDB's
// listener or from the MANIFEST): the median of the latest kWindow tables,
// which is the store's target size whether it is RocksDB's 64 MiB, LevelDB's
// 2 MiB or anything a user set, while a compaction's short last output or an
// odd large L0 table moves it little. Before the first table it guesses
// kDefaultGuess, or one fast zone if that is smaller (HHZS sizes tables to
// zones; a guess above the fast tier's zone would plan too few slots).
//
// Thread safe: policies read it from paths that hold no lock of theirs
// (AllocationPolicy::ZonePerFile).
#ifndef HINTFS_PLACEMENT_TABLE_SIZE_H_
#define HINTFS_PLACEMENT_TABLE_SIZE_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>

#include "hints/hint.h"

namespace hintfs {

class TableSize {
 public:
  static constexpr uint64_t kDefaultGuess = 64ull << 20;  // RocksDB's target_file_size_base
  static constexpr size_t kWindow = 32;

  // configured_bytes 0: learn it.
  explicit TableSize(uint64_t configured_bytes);

  // The store finished a table: an output hint with its bytes (other hints
  // and outputs of unknown size are ignored).
  void Note(const Hint& hint);
  // The fast tier's zone capacity, which bounds the guess before any table.
  void NoteFastZone(uint64_t zone_capacity);

  // The table size to plan with (never 0).
  uint64_t bytes() const { return bytes_.load(std::memory_order_relaxed); }
  bool configured() const { return configured_; }
  uint64_t tables_seen() const;

 private:
  void UpdateLocked();

  const bool configured_;
  std::atomic<uint64_t> bytes_;
  mutable std::mutex mu_;
  uint64_t fast_zone_ = 0;
  uint64_t seen_ = 0;
  std::deque<uint64_t> recent_;
};

}  // namespace hintfs

#endif  // HINTFS_PLACEMENT_TABLE_SIZE_H_
