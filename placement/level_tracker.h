// LevelTracker: what placement knows about each file's LSM level, learned
// from hints. A listener's hints give exact levels, even before a table's
// first byte (table creation is joined with its job's output level); without
// a listener the level is estimated: from the I/O pattern when
// hints/level_inference.h published a guess ("inferred"), else from the
// writer's lifetime hint, following how RocksDB 7.8 assigns them: short =
// WAL, medium = L0 or the base level, long = the level below the base,
// extreme = deeper. Estimates are scored against the level a listener or the
// MANIFEST records later.
#ifndef HINTFS_PLACEMENT_LEVEL_TRACKER_H_
#define HINTFS_PLACEMENT_LEVEL_TRACKER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "hints/hint_bus.h"

namespace hintfs {

class LevelTracker {
 public:
  static constexpr int kUnknown = -2;
  static constexpr int kWal = -1;

  explicit LevelTracker(std::shared_ptr<HintBus> bus);
  ~LevelTracker();
  LevelTracker(const LevelTracker&) = delete;
  LevelTracker& operator=(const LevelTracker&) = delete;

  // The level of the file at path: exact if a hint named it, else estimated
  // from lifetime_hint, else kUnknown. A block index file (hints/
  // block_index_keeper.h) carries its table's hint and has no level.
  int LevelOf(const std::string& path, int lifetime_hint) const;

  // Every table whose level a hint named, with that level.
  std::unordered_map<std::string, int> KnownLevels() const;
  // The smallest and largest sequence numbers of the table's keys, as the
  // MANIFEST recorded them (RocksDB's; LevelDB records none): false if not
  // known.
  bool SequenceRange(const std::string& path, uint64_t* smallest, uint64_t* largest) const;
  // True while a running compaction has the table at path as an input.
  bool InRunningCompaction(const std::string& path) const;
  // The inputs of the compactions running now.
  std::vector<std::string> RunningCompactionInputs() const;

  uint64_t exact_answers() const { return exact_.load(); }
  uint64_t estimated_answers() const { return estimated_.load(); }
  // Estimates later checked against the level a listener or the MANIFEST
  // recorded for the same table.
  uint64_t estimates_confirmed() const;
  uint64_t estimates_wrong() const;
  // Compactions announced by inference (reason "inferred", hints/
  // level_inference.h) scored against the MANIFEST: outputs whose recorded
  // level was the inferred job's (right) or not (wrong), compaction outputs
  // no inferred job announced (missed; tables a listener told of are not
  // counted), inferred inputs the committing edit dropped (right) or not
  // (wrong), and tables the MANIFEST dropped that no inferred job named
  // (missed; with a listener, every input).
  struct CompactionScore {
    uint64_t inferred = 0;
    uint64_t outputs_right = 0, outputs_wrong = 0, outputs_missed = 0;
    uint64_t inputs_right = 0, inputs_wrong = 0, inputs_missed = 0;
  };
  CompactionScore compaction_score() const;
  // {"known_levels":..,"exact_answers":..,"estimated_answers":..,
  //  "estimated_from_io":..,"estimates_confirmed":..,"estimates_wrong":..,
  //  "inferred_compactions":..,"inferred_outputs_right":..,"inferred_outputs_wrong":..,
  //  "compaction_outputs_not_inferred":..,"inferred_inputs_right":..,"inferred_inputs_wrong":..,
  //  "compaction_inputs_not_inferred":..}
  nlohmann::json Stats() const;

 private:
  void OnHint(const Hint& hint);
  void ScoreCompactionsLocked(const Hint& hint);

  std::shared_ptr<HintBus> bus_;
  uint64_t subscription_ = 0;
  mutable std::mutex mu_;
  std::unordered_map<std::string, int> levels_;  // path -> level
  std::unordered_map<std::string, std::pair<uint64_t, uint64_t>> seqnos_;  // path -> its keys' sequence numbers
  std::unordered_map<int64_t, int> job_levels_;  // running job -> output level
  std::unordered_map<int64_t, std::vector<std::string>> job_inputs_;  // running compaction -> inputs
  std::unordered_map<std::string, int> compacting_;  // input path -> running compactions using it
  mutable std::unordered_map<std::string, int> estimates_;  // path -> level guessed
  std::unordered_map<std::string, int> inferred_;           // path -> level the I/O pattern suggests
  uint64_t confirmed_ = 0, wrong_ = 0;
  CompactionScore compaction_score_;
  std::unordered_map<std::string, int> guessed_outputs_;  // output of an inferred job -> its level
  std::unordered_map<int64_t, std::set<std::string>> job_guessed_inputs_;  // running inferred job -> inputs
  std::unordered_map<int64_t, std::set<std::string>> ended_inputs_;  // ended ones, until their edit is read
  mutable std::atomic<uint64_t> exact_{0}, estimated_{0}, from_io_{0};
};

}  // namespace hintfs

#endif  // HINTFS_PLACEMENT_LEVEL_TRACKER_H_
