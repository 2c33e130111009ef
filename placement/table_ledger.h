// TableLedger: the live tables a placement policy placed, with their level
// and tier, counted per level in table slots: how many slots level i's
// tables take (HHZS's A_i) and how many of those are on the fast tier (F_i).
// A table is counted once its first zone landed, on the tier it landed on
// (the filesystem may have spilled it past the policy's choice), moves with
// migration and leaves when the store deletes it.
//
// A table takes one slot (HHZS sizes tables to zones, one table a zone)
// unless its size is known and under half a slot: then its share of one, in
// sixteenths rounded up. LevelDB ends many compaction outputs early (a fifth
// of its L1 outputs are under half a zone), and counted whole they filled
// HHZS's slots at a third of the bytes static placement kept on the fast
// tier (docs/benchmarks.md). The filesystem packs tables under half their
// zone together when it needs the zones (FsImpl::CollectableLocked), and
// leaves longer ones alone, which therefore keep a whole slot. The counts
// are the shares summed and rounded up. Not thread safe: the policy holds
// its own lock.
#ifndef HINTFS_PLACEMENT_TABLE_LEDGER_H_
#define HINTFS_PLACEMENT_TABLE_LEDGER_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fs/superblock.h"

namespace hintfs {

class TableLedger {
 public:
  static constexpr int kMaxLevels = 8;
  static constexpr int64_t kSlotParts = 16;  // a slot's share a short table counts in

  // The size of a slot, which short tables count their share of (0, the
  // default: every table takes a whole slot). Recounts every table.
  void SetSlotBytes(uint64_t bytes);

  // A table at level (0 to kMaxLevels - 1) is about to get its first zone.
  void Expect(const std::string& path, int level);
  // Where the first zone of an expected table landed: counts it. False if
  // path was not expected (not a table, or counted already).
  bool Landed(const std::string& path, Tier tier);
  // A table an earlier mount placed, found at mount with its bytes: counted
  // at once.
  void Found(const std::string& path, int level, Tier tier, uint64_t bytes = 0);
  // The store finished path, an expected or counted table, at bytes.
  void Sized(const std::string& path, uint64_t bytes);
  // Migration moved a counted table to tier.
  void Moved(const std::string& path, Tier tier);
  // The store moved path to another level without rewriting it (a trivial
  // move), or an exact level replaced the one it was expected or found at
  // (a table's tag keeps the level it was written at). Counts it there.
  void Relevel(const std::string& path, int level);
  // The store deleted path (a table or not).
  void Deleted(const std::string& path);

  int64_t allocated(int level) const { return Slots(allocated_[level]); }  // A_i
  int64_t fast(int level) const { return Slots(fast_[level]); }            // F_i
  int64_t fast_total() const;
  // How many counted tables are on the fast tier, whatever their slots: each
  // began in a zone of its own.
  int64_t fast_tables() const { return fast_tables_; }
  // Of paths, the slots of the counted tables at level on the fast tier.
  int64_t FastAmong(int level, const std::vector<std::string>& paths) const;
  // How many counted tables on the fast tier the store finished at more
  // than bytes.
  int64_t FastLargerThan(uint64_t bytes) const;

 private:
  struct Table {
    int level = 0;
    bool fast = false;
    uint64_t bytes = 0;  // 0: not known yet
    int64_t parts = kSlotParts;
  };
  static int64_t Slots(int64_t parts) { return (parts + kSlotParts - 1) / kSlotParts; }
  int64_t PartsOf(uint64_t bytes) const;
  void Count(const Table& t, int sign);

  uint64_t slot_bytes_ = 0;
  int64_t allocated_[kMaxLevels] = {};     // in parts
  int64_t fast_[kMaxLevels] = {};          // in parts
  int64_t fast_tables_ = 0;
  std::map<std::string, Table> tables_;    // counted tables
  struct Expected {
    int level = 0;
    uint64_t bytes = 0;
  };
  std::map<std::string, Expected> expected_;  // until its first zone lands
};

}  // namespace hintfs

#endif  // HINTFS_PLACEMENT_TABLE_LEDGER_H_
