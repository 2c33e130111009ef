// LifetimeModel: a gradient-boosted classifier of how long a file lives,
// after DumpKV (seed 002, §4.3-§4.4), for files instead of values.
//
// A lifetime is a write distance: the bytes the filesystem's files wrote
// between the file's creation and its deletion (AllocationRequest::
// write_clock). Training splits the lifetimes it is given into kClasses
// classes at their quartiles (short to long; a file still alive counts in
// the longest class once it has outlived the last split point) and trains a
// multi-class model with libxgboost. Prediction walks the trees in this
// class's own arrays: xgboost's single-row prediction costs about 17 us a
// call on the development machine (JSON parsing per call), the walk well
// under one.
#ifndef HINTFS_PLACEMENT_LIFETIME_MODEL_H_
#define HINTFS_PLACEMENT_LIFETIME_MODEL_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "fs/status.h"

namespace hintfs {

constexpr int kLifetimeFeatures = 13;
using LifetimeFeatures = std::array<float, kLifetimeFeatures>;  // NaN: unknown

struct LifetimeSample {
  LifetimeFeatures features{};
  uint64_t lifetime = 0;  // write distance from creation to deletion
  bool alive = false;     // still alive: lifetime is its age so far, a lower bound
};

class LifetimeModel {
 public:
  static constexpr int kClasses = 4;
  // Fewer dead samples than this give quartiles too coarse to train on.
  static constexpr size_t kMinSamples = 64;

  // Trains a model on samples. InvalidArgument if fewer than kMinSamples of
  // them are dead or their lifetimes do not differ; IOError naming
  // xgboost's message if it fails.
  static Status Train(const std::vector<LifetimeSample>& samples, LifetimeModel* model);

  bool trained() const { return !roots_.empty(); }
  // The most likely class of a file with these features, 0 (shortest) to
  // kClasses - 1. 0 for an untrained model.
  int Predict(const LifetimeFeatures& features) const;
  // The class a lifetime falls into by this model's split points.
  int ClassOf(uint64_t lifetime) const;
  // The median lifetime of the training samples of class c (the longest
  // class's is a lower bound: it holds files still alive).
  uint64_t TypicalLifetime(int c) const { return typical_[c]; }
  uint64_t SplitPoint(int i) const { return splits_[i]; }  // i < kClasses - 1
  size_t trees() const { return roots_.size(); }

  // Version 1: "LTM1", fixed32 CRC32C of what follows, then the split
  // points, typical lifetimes and trees (docs/formats.md).
  std::string Encode() const;
  // Corruption for bytes Encode did not make (bad magic, checksum, sizes).
  static Status Decode(const std::string& bytes, LifetimeModel* model);

 private:
  struct Node {
    int32_t left = -1, right = -1;  // children; -1: a leaf
    uint16_t feature = 0;
    bool default_left = false;      // where a missing (NaN) feature goes
    float value = 0;                // split threshold (go left if below), or the leaf's weight
  };
  // Sets the split points between clusters of the sorted lifetimes.
  void SplitAtClusters(const std::vector<uint64_t>& sorted);
  // Takes the trees of xgboost's JSON model dump.
  Status LoadXgboostJson(const std::string& json);

  uint64_t splits_[kClasses - 1] = {};
  uint64_t typical_[kClasses] = {};
  std::vector<Node> nodes_;
  std::vector<uint32_t> roots_;        // per tree, its first node
  std::vector<uint8_t> tree_class_;    // per tree, the class its leaves score
};

}  // namespace hintfs

#endif  // HINTFS_PLACEMENT_LIFETIME_MODEL_H_
