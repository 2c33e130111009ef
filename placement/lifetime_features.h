// LifetimeFeatureSource: what is known of a file when it gets its first
// zone, as the features LifetimeModel learns lifetimes from (DumpKV §4.2,
// for files: a file's past is its kind, level and job, and the recent past
// of files like it). Everything comes from hints the layer already has and
// from the allocation request; the clock is the filesystem's write clock.
#ifndef HINTFS_PLACEMENT_LIFETIME_FEATURES_H_
#define HINTFS_PLACEMENT_LIFETIME_FEATURES_H_

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "fs/allocation.h"
#include "hints/hint_bus.h"
#include "placement/level_tracker.h"
#include "placement/lifetime_model.h"

namespace hintfs {

// The features, by index (NaN where unknown).
enum LifetimeFeature {
  kFeatureKind = 0,         // LsmFileKind of its name
  kFeatureLevel,            // LSM level (-1 WAL), as LevelTracker knows it
  kFeatureLifetimeHint,     // the writer's write-life-time hint (0-5)
  kFeatureJobKind,          // 0 flush, 1 compaction, 2 anything else that wrote a table
  kFeatureJobInputs,        // tables the compaction writing it selected
  kFeatureJobInputLevel,    // the shallowest level among them
  kFeatureRecentLifetime,   // log2 of the mean lifetime of the last files of its kind and level
  kFeatureCreations,        // decayed count of creations at its level
  kFeatureDeaths,           // decayed count of deaths at its level
  kFeatureLiveAtLevel,      // files of its level alive now (that this mount saw created)
  kFeatureFreeFraction,     // free share of the device space the last allocation saw
  // Added later, so that a model saved before reads its features where
  // they were:
  kFeatureJobOverlap,       // the compaction's inputs from its deepest input level per input
                            // from its shallowest (the next level's tables it overlaps), 0 if
                            // all come from one level
  kFeatureJobKeyPrefix,     // how narrow its inputs' key range is: the length of the prefix
                            // the smallest and largest key share (known from the MANIFEST's
                            // records of every input)
};
static_assert(kFeatureJobKeyPrefix + 1 == kLifetimeFeatures, "one name per feature");

class LifetimeFeatureSource {
 public:
  explicit LifetimeFeatureSource(std::shared_ptr<HintBus> bus);
  ~LifetimeFeatureSource();
  LifetimeFeatureSource(const LifetimeFeatureSource&) = delete;
  LifetimeFeatureSource& operator=(const LifetimeFeatureSource&) = delete;

  // The decayed counters halve every half_life bytes of the write clock
  // (the policy sets a few zones' worth).
  void SetHalfLife(uint64_t bytes);
  void SetFreeFraction(double fraction);
  // The features of the request's file, and counts its creation.
  LifetimeFeatures OnCreated(const AllocationRequest& request);
  // Counts the death of a file that had features, lifetime bytes after its
  // creation, at clock.
  void OnDied(const LifetimeFeatures& features, uint64_t lifetime, uint64_t clock);

 private:
  static constexpr int kLevelSlots = 10;  // unknown, WAL, L0 ... L7
  static constexpr int kRecent = 8;       // lifetimes averaged per kind and level
  struct Decayed {
    double value = 0;
    uint64_t at = 0;  // clock of the last update
  };
  struct Recent {
    std::array<double, kRecent> log2_lifetimes{};
    int count = 0, next = 0;
  };
  struct Job {
    int kind = 2;
    int inputs = -1, input_level = -1;
    float overlap = std::numeric_limits<float>::quiet_NaN();
    float key_prefix = std::numeric_limits<float>::quiet_NaN();
  };
  struct KeyRange {
    std::string smallest, largest;
  };
  // A compaction's job from its begin hint (inputs, their levels and key
  // ranges as recorded so far).
  Job CompactionJobLocked(const Hint& begin) const;
  void OnHint(const Hint& hint);
  static int LevelSlot(float level);
  double DecayedValueLocked(const Decayed& d, uint64_t clock) const;
  void BumpLocked(Decayed* d, uint64_t clock);

  std::shared_ptr<HintBus> bus_;
  LevelTracker tracker_;
  uint64_t subscription_ = 0;

  mutable std::mutex mu_;
  std::unordered_map<std::string, Job> table_jobs_;  // table path -> the job writing it
  std::unordered_map<int64_t, Job> jobs_;             // running compactions
  std::unordered_map<std::string, KeyRange> key_ranges_;  // live tables' ranges the hints gave
  std::array<Decayed, kLevelSlots> creations_{}, deaths_{};
  std::array<int64_t, kLevelSlots> live_{};
  std::unordered_map<int, Recent> recent_;  // kind * kLevelSlots + level slot
  uint64_t half_life_ = 64ull << 20;
  double free_fraction_ = 1.0;
};

}  // namespace hintfs

#endif  // HINTFS_PLACEMENT_LIFETIME_FEATURES_H_
