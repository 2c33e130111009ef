// TableLedger: the live tables a placement policy placed, with their level
// and tier, counted per level: how many tables level i has (HHZS's A_i) and
// how many of them are on the fast tier (F_i). A table is counted once its
// first zone landed, on the tier it landed on (the filesystem may have
// spilled it past the policy's choice), moves with migration and leaves when
// the store deletes it. Not thread safe: the policy holds its own lock.
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

  // A table at level (0 to kMaxLevels - 1) is about to get its first zone.
  void Expect(const std::string& path, int level);
  // Where the first zone of an expected table landed: counts it. False if
  // path was not expected (not a table, or counted already).
  bool Landed(const std::string& path, Tier tier);
  // A table an earlier mount placed, found at mount: counted at once.
  void Found(const std::string& path, int level, Tier tier);
  // Migration moved a counted table to tier.
  void Moved(const std::string& path, Tier tier);
  // The store moved path to another level without rewriting it (a trivial
  // move), or an exact level replaced the one it was expected or found at
  // (a table's tag keeps the level it was written at). Counts it there.
  void Relevel(const std::string& path, int level);
  // The store deleted path (a table or not).
  void Deleted(const std::string& path);

  int64_t allocated(int level) const { return allocated_[level]; }  // A_i
  int64_t fast(int level) const { return fast_[level]; }            // F_i
  int64_t fast_total() const;
  // Of paths, the counted tables at level on the fast tier.
  int64_t FastAmong(int level, const std::vector<std::string>& paths) const;

 private:
  struct Table {
    int level = 0;
    bool fast = false;
  };
  void Count(const Table& t, int sign);

  int64_t allocated_[kMaxLevels] = {};
  int64_t fast_[kMaxLevels] = {};
  std::map<std::string, Table> tables_;    // counted tables
  std::map<std::string, int> expected_;    // table -> level, until its first zone lands
};

}  // namespace hintfs

#endif  // HINTFS_PLACEMENT_TABLE_LEDGER_H_
