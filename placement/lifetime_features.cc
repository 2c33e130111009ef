#include "placement/lifetime_features.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "hints/file_kind.h"
#include "hints/table_map.h"

namespace hintfs {

LifetimeFeatureSource::LifetimeFeatureSource(std::shared_ptr<HintBus> bus) : bus_(std::move(bus)), tracker_(bus_) {
  subscription_ = bus_->Subscribe([this](const Hint& h) { OnHint(h); });
}

LifetimeFeatureSource::~LifetimeFeatureSource() { bus_->Unsubscribe(subscription_); }

void LifetimeFeatureSource::SetHalfLife(uint64_t bytes) {
  std::lock_guard<std::mutex> l(mu_);
  half_life_ = std::max<uint64_t>(bytes, 1);
}

void LifetimeFeatureSource::SetFreeFraction(double fraction) {
  std::lock_guard<std::mutex> l(mu_);
  free_fraction_ = fraction;
}

void LifetimeFeatureSource::OnHint(const Hint& h) {
  std::lock_guard<std::mutex> l(mu_);
  switch (h.kind) {
    case Hint::Kind::kCompactionBegin:
      jobs_[h.job] = CompactionJobLocked(h);
      break;
    case Hint::Kind::kCompactionOutput:
      if (!h.smallest_key.empty() || !h.largest_key.empty()) key_ranges_[h.path] = {h.smallest_key, h.largest_key};
      break;
    case Hint::Kind::kCompactionEnd:
      jobs_.erase(h.job);
      break;
    case Hint::Kind::kTableFileCreation: {
      auto it = jobs_.find(h.job);
      Job job = it != jobs_.end() ? it->second : Job();
      if (it == jobs_.end()) job.kind = h.reason == "flush" ? 0 : (h.reason == "compaction" ? 1 : 2);
      table_jobs_[h.path] = job;
      break;
    }
    case Hint::Kind::kFileDeleted:
      table_jobs_.erase(h.path);
      key_ranges_.erase(h.path);
      break;
    default:
      break;
  }
}

LifetimeFeatureSource::Job LifetimeFeatureSource::CompactionJobLocked(const Hint& begin) const {
  Job job;
  job.kind = 1;
  job.inputs = static_cast<int>(begin.count != 0 ? begin.count : begin.inputs.size());
  int deepest = -1;
  for (const HintFile& f : begin.inputs) {
    if (f.level >= 0 && (job.input_level < 0 || f.level < job.input_level)) job.input_level = f.level;
    deepest = std::max(deepest, f.level);
  }
  if (job.input_level >= 0) {
    int shallow = 0, deep = 0;
    for (const HintFile& f : begin.inputs) {
      shallow += f.level == job.input_level;
      deep += f.level == deepest;
    }
    job.overlap = deepest > job.input_level ? static_cast<float>(deep) / static_cast<float>(shallow) : 0.0f;
  }
  // RocksDB's compaction picker takes the file whose key range overlaps
  // the least of the next level first: how much key space a compaction
  // covers says something of when its outputs are covered again.
  if (begin.inputs.empty()) return job;
  std::string smallest, largest;
  for (const HintFile& f : begin.inputs) {
    auto it = key_ranges_.find(f.path);
    if (it == key_ranges_.end()) return job;  // a range unknown: the union is not known
    if (smallest.empty() || it->second.smallest < smallest) smallest = it->second.smallest;
    if (it->second.largest > largest) largest = it->second.largest;
  }
  job.key_prefix = static_cast<float>(SharedPrefixLength(smallest, largest));
  return job;
}

int LifetimeFeatureSource::LevelSlot(float level) {
  if (std::isnan(level)) return 0;
  const int slot = static_cast<int>(level) + 2;
  return slot < 1 ? 1 : (slot >= kLevelSlots ? kLevelSlots - 1 : slot);
}

double LifetimeFeatureSource::DecayedValueLocked(const Decayed& d, uint64_t clock) const {
  const double elapsed = clock > d.at ? static_cast<double>(clock - d.at) : 0.0;
  return d.value * std::exp2(-elapsed / static_cast<double>(half_life_));
}

void LifetimeFeatureSource::BumpLocked(Decayed* d, uint64_t clock) {
  d->value = 1 + DecayedValueLocked(*d, clock);
  d->at = std::max(d->at, clock);
}

LifetimeFeatures LifetimeFeatureSource::OnCreated(const AllocationRequest& request) {
  constexpr float kUnknown = std::numeric_limits<float>::quiet_NaN();
  LifetimeFeatures f;
  f.fill(kUnknown);
  const LsmFileKind kind = ClassifyLsmFile(request.path);
  f[kFeatureKind] = static_cast<float>(kind);
  int level = kind == LsmFileKind::kWal ? LevelTracker::kWal : LevelTracker::kUnknown;
  if (kind == LsmFileKind::kTable) level = tracker_.LevelOf(request.path, request.lifetime_hint);
  if (level != LevelTracker::kUnknown) f[kFeatureLevel] = static_cast<float>(level);
  f[kFeatureLifetimeHint] = static_cast<float>(request.lifetime_hint);
  std::lock_guard<std::mutex> l(mu_);
  if (auto it = table_jobs_.find(request.path); it != table_jobs_.end()) {
    f[kFeatureJobKind] = static_cast<float>(it->second.kind);
    if (it->second.inputs >= 0) f[kFeatureJobInputs] = static_cast<float>(it->second.inputs);
    if (it->second.input_level >= 0) f[kFeatureJobInputLevel] = static_cast<float>(it->second.input_level);
    f[kFeatureJobOverlap] = it->second.overlap;
    f[kFeatureJobKeyPrefix] = it->second.key_prefix;
  }
  const int slot = LevelSlot(f[kFeatureLevel]);
  if (auto it = recent_.find(static_cast<int>(kind) * kLevelSlots + slot); it != recent_.end()) {
    double sum = 0;
    for (int i = 0; i < it->second.count; i++) sum += it->second.log2_lifetimes[i];
    f[kFeatureRecentLifetime] = static_cast<float>(sum / it->second.count);
  }
  f[kFeatureCreations] = static_cast<float>(DecayedValueLocked(creations_[slot], request.write_clock));
  f[kFeatureDeaths] = static_cast<float>(DecayedValueLocked(deaths_[slot], request.write_clock));
  f[kFeatureLiveAtLevel] = static_cast<float>(live_[slot]);
  f[kFeatureFreeFraction] = static_cast<float>(free_fraction_);
  BumpLocked(&creations_[slot], request.write_clock);
  live_[slot]++;
  return f;
}

void LifetimeFeatureSource::OnDied(const LifetimeFeatures& features, uint64_t lifetime, uint64_t clock) {
  std::lock_guard<std::mutex> l(mu_);
  const int slot = LevelSlot(features[kFeatureLevel]);
  BumpLocked(&deaths_[slot], clock);
  if (live_[slot] > 0) live_[slot]--;
  Recent& r = recent_[static_cast<int>(features[kFeatureKind]) * kLevelSlots + slot];
  r.log2_lifetimes[r.next] = std::log2(static_cast<double>(lifetime) + 1);
  r.next = (r.next + 1) % kRecent;
  if (r.count < kRecent) r.count++;
}

}  // namespace hintfs
