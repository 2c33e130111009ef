// LifetimePolicy: lifetime classes for zone allocation and GC, on top of
// any placement policy (it decides nothing about tiers: the class is a
// second key inside the tier the policy chose, fs/allocation.h).
//
// Files that share a zone can be reset together only when all of them are
// dead; until then GC copies the survivors. Two ways to group files:
//   - "hint": ZenFS's rule, one class per write-life-time hint the store
//     gave (RocksDB: WAL short; L0 and the base level medium; the level
//     below long; deeper extreme).
//   - "learned": DumpKV's approach (seed 002) for files. As DumpKV writes
//     with a default lifetime and asks its model at GC, zones follow the
//     rule (but for BlobDB's blob files, which RocksDB hints like the
//     tables of their job and which outlive them: classes of their own)
//     and the model serves GC: features of each table or log at
//     creation (its kind, level, the job writing it, how long recent files
//     of its level lived, decayed creation and deletion counts of its
//     level, free space; lifetime_features.h), labels from the deaths this
//     policy sees, a gradient-boosted classifier (lifetime_model.h)
//     retrained in the background every kRetrainEvery deaths on the last
//     kWindow of them (the first as soon as there are kMinSamples). GC is
//     told how long each file is still expected to live (RemainingLife):
//     from the recent lifetimes of the files of its rule class
//     (lifetime_history.h), given how long it has lived already. The
//     model's classes, as zone classes or to refine those histories, were
//     measured and relocated more (docs/benchmarks.md); the model's
//     predictions are scored and shown.
// The model is kept in the filesystem's attributes (AttachStore) and
// reloaded at mount; one that does not decode is dropped with a warning and
// the rule applies until the next training.
#ifndef HINTFS_PLACEMENT_LIFETIME_POLICY_H_
#define HINTFS_PLACEMENT_LIFETIME_POLICY_H_

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "fs/allocation.h"
#include "fs/filesystem.h"
#include "hints/hint_bus.h"
#include "placement/lifetime_features.h"
#include "placement/lifetime_history.h"
#include "placement/lifetime_model.h"

namespace hintfs {

enum class LifetimeMode { kHint, kLearned };

class LifetimePolicy : public AllocationPolicyWrapper {
 public:
  static constexpr size_t kWindow = 4096;  // deaths trained on
  // Deaths between trainings: the first model as soon as there is enough to
  // learn from, then a new one every kRetrainEvery. A training of a full
  // window takes 60-100 ms of a core here (at a low priority): every 64
  // deaths cost db_bench a tenth of its throughput on two cores.
  static constexpr size_t kRetrainEvery = 256;
  // Lifetime classes: kRuleClassBase + the write-life-time hint (0-5);
  // learned mode adds kBlobClassOffset for BlobDB's blob files.
  static constexpr uint8_t kRuleClassBase = 8;
  static constexpr uint8_t kBlobClassOffset = 8;

  // name is what the filesystem records (the target's name with the
  // lifetime option in it).
  LifetimePolicy(std::string name, std::shared_ptr<AllocationPolicy> target, std::shared_ptr<HintBus> bus,
                 LifetimeMode mode);
  ~LifetimePolicy() override;

  std::string name() const override { return name_; }
  void OnMount(const std::vector<DeviceSpace>& devices) override;
  void ChooseDevices(const AllocationRequest& request, const std::vector<DeviceSpace>& devices,
                     std::vector<uint32_t>* order) override;
  uint8_t LifetimeClass(const AllocationRequest& request) override;
  uint64_t RemainingLife(const std::string& path, uint64_t write_clock) override;
  void OnFileDeleted(const std::string& path, uint64_t size, uint64_t write_clock) override;
  // The target's state with "lifetime": {mode, files classed and
  // predicted, trainings, the model's accuracy on the deaths it predicted,
  // ...}.
  std::string StateJson() const override;

  // Loads the model fs keeps (a warning if it is damaged) and saves each
  // new one there until DetachStore. fs must outlive the attachment.
  void AttachStore(Filesystem* fs);
  void DetachStore();
  // Trains a model now on what this policy has seen, in the caller's
  // thread (tests; the background trainer does this by itself).
  Status TrainNow();
  LifetimeModel model() const;

 private:
  struct FileRecord {
    LifetimeFeatures features{};
    uint64_t birth = 0;     // write clock at the first allocation
    int predicted = -1;     // the model's class; -1: given by the rule
    uint8_t rule_class = 0;
  };
  // The remaining life GC is told comes from the lifetimes of the files of
  // the same rule class (the level, for a store's tables). Histories of
  // the files the model put in each class (per rule class) were measured
  // and relocated more (docs/benchmarks.md).
  void TrainLoop();
  Status TrainLocked(std::unique_lock<std::mutex>* lock);
  void SaveModel(const LifetimeModel& m);

  const std::string name_;
  const LifetimeMode mode_;
  std::unique_ptr<LifetimeFeatureSource> features_;  // learned mode only: the rule needs none

  mutable std::mutex mu_;
  std::mutex train_mu_;  // taken before mu_ (TrainLocked)
  std::unordered_map<std::string, FileRecord> files_;  // live files this mount classified
  std::deque<LifetimeSample> deaths_;
  std::unordered_map<uint8_t, LifetimeHistory> histories_;  // by FileRecord::rule_class
  size_t deaths_since_training_ = 0;
  // Deaths the next training waits for: LifetimeModel::kMinSamples, then
  // kRetrainEvery.
  size_t retrain_after_ = LifetimeModel::kMinSamples;
  std::shared_ptr<const LifetimeModel> model_;
  uint64_t zone_capacity_ = 0;
  uint64_t clock_ = 0;  // the latest write clock seen
  uint64_t trainings_ = 0, training_failures_ = 0;
  uint64_t classed_files_ = 0, predicted_files_ = 0;
  uint64_t predicted_deaths_ = 0, predicted_right_ = 0, predicted_one_off_ = 0;
  double training_ms_ = 0;
  std::string load_warning_;
  Filesystem* store_ = nullptr;
  std::mutex store_mu_;  // held while saving, so that DetachStore waits for a save

  std::condition_variable wake_;
  bool stop_ = false;
  std::thread trainer_;
};

// The LifetimePolicy a policy is or wraps, or null.
LifetimePolicy* LifetimePolicyOf(AllocationPolicy* policy);

}  // namespace hintfs

#endif  // HINTFS_PLACEMENT_LIFETIME_POLICY_H_
