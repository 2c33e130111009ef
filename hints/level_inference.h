// LevelInference: guesses a new table's LSM level before its first byte for
// stores that send no hints about it (RocksDB without the listener, LevelDB,
// anything on the FUSE mount), from what the filesystem sees:
//   - which tables are being scanned right now (a run of reads that each
//     start near where the previous one ended, or reads from the start that
//     covered nearly all of a table this mount saw written: through the
//     kernel a small table arrives in one or two reads): the inputs of a
//     running compaction, whose levels the MANIFEST already told (hints on
//     the bus);
//   - the writer's lifetime hint (RocksDB: short = WAL, medium = L0 or the
//     base level, long = the level below the base, extreme = deeper).
// The first table created after a new write-ahead log is the flush of the
// old one's memtable, whatever else runs. Otherwise no scan under way means a
// flush too: level 0, or for a store that sends no lifetime hint the level
// its last flush was recorded at (LevelDB pushes a flushed table down to L2
// when nothing overlaps). A compaction whose shallowest input is level L
// writes level L + 1; a "medium" table is L1 only while an L0 table is being
// scanned, else a flush. The guess is published at the
// table's first append as a table-creation hint with reason "inferred";
// LevelTracker uses it as an estimate and scores it against the level the
// MANIFEST records later.
//
// Passes every call on to the next observer.
#ifndef HINTFS_HINTS_LEVEL_INFERENCE_H_
#define HINTFS_HINTS_LEVEL_INFERENCE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "fs/filesystem.h"
#include "hints/hint_bus.h"

namespace hintfs {

class LevelInference : public IoObserver {
 public:
  using Clock = std::function<uint64_t()>;  // nanoseconds, monotonic

  LevelInference(std::shared_ptr<HintBus> bus, std::shared_ptr<IoObserver> next, Clock clock = nullptr);
  ~LevelInference() override;

  void OnCreate(const std::string& path, ZoneRole role) override;
  void OnLifetimeHint(const std::string& path, int lifetime) override;
  void OnAppend(const std::string& path, std::string_view data) override;
  void OnDelete(const std::string& path) override;
  void OnRead(const std::string& path, uint64_t offset, uint64_t bytes) override;



  // A table scanned within this long counts as an input of a running compaction.
  static constexpr uint64_t kScanWindowNs = 1000000000;

 private:
  struct Scan {
    uint64_t next_offset = UINT64_MAX;
    int run = 0;           // reads in a row that continued the previous one
    uint64_t from_start = 0;  // bytes read without a gap from offset 0
    uint64_t last_ns = 0;  // when the run was last extended (0: not scanning)
  };
  void OnHint(const Hint& hint);
  int GuessLocked(int lifetime, uint64_t now);

  std::shared_ptr<HintBus> bus_;
  std::shared_ptr<IoObserver> next_;
  Clock clock_;
  uint64_t subscription_ = 0;
  std::mutex mu_;
  std::map<std::string, int> levels_;    // tables whose level a hint named
  std::map<std::string, Scan> scans_;    // reads of those tables
  std::map<std::string, int> pending_;   // new tables before their first append -> lifetime hint
  std::map<std::string, uint64_t> sizes_;  // bytes appended to tables since the mount
  int flush_level_ = 0;                  // where the last flush output was recorded
  bool flush_pending_ = false;           // a log switched since the last flush output
};

}  // namespace hintfs

#endif  // HINTFS_HINTS_LEVEL_INFERENCE_H_
