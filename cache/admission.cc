#include "cache/admission.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <mutex>
#include <unordered_map>

#include <fmt/format.h>

namespace hintfs {

namespace {

uint64_t Hash(std::string_view key, uint64_t seed) {
  // FNV-1a over the key, then a finalizer, per seed.
  uint64_t h = 0xcbf29ce484222325ull ^ (seed * 0x9E3779B97F4A7C15ull);
  for (unsigned char c : key) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

class AllAdmission : public AdmissionPolicy {
 public:
  std::string name() const override { return "all"; }
  void RecordAccess(std::string_view, uint64_t) override {}
  bool IsHot(std::string_view) override { return true; }
  std::string StateJson() const override { return "{\"policy\":\"all\"}"; }
};

// A bloom filter that knows how many keys it newly took.
class Bloom {
 public:
  Bloom(uint64_t keys, int bits_per_key) : bits_(std::max<uint64_t>(64, keys * bits_per_key)), words_((bits_ + 63) / 64) {
    // k = bits per key * ln 2, as the usual optimum.
    probes_ = std::max(1, static_cast<int>(std::lround(bits_per_key * 0.69)));
  }
  // True if the insert set a bit that was clear: the key is new to the filter.
  bool Insert(std::string_view key) {
    bool changed = false;
    uint64_t h1 = Hash(key, 1), h2 = Hash(key, 2) | 1;
    for (int i = 0; i < probes_; i++) {
      uint64_t bit = (h1 + static_cast<uint64_t>(i) * h2) % bits_;
      uint64_t mask = 1ull << (bit % 64);
      if ((words_[bit / 64] & mask) == 0) changed = true;
      words_[bit / 64] |= mask;
    }
    if (changed) keys_++;
    return changed;
  }
  bool Contains(std::string_view key) const {
    uint64_t h1 = Hash(key, 1), h2 = Hash(key, 2) | 1;
    for (int i = 0; i < probes_; i++) {
      uint64_t bit = (h1 + static_cast<uint64_t>(i) * h2) % bits_;
      if ((words_[bit / 64] & (1ull << (bit % 64))) == 0) return false;
    }
    return true;
  }
  uint64_t keys() const { return keys_; }

 private:
  uint64_t bits_;
  std::vector<uint64_t> words_;
  int probes_ = 7;
  uint64_t keys_ = 0;
};

class CbfAdmission : public AdmissionPolicy {
 public:
  static constexpr int kFilters = 4;
  static constexpr int kBitsPerKey = 10;
  static constexpr int kHotFilters = 3;

  explicit CbfAdmission(uint64_t window) : window_(std::max<uint64_t>(16, window)) {
    filters_.emplace_front(window_, kBitsPerKey);
  }
  std::string name() const override { return "cbf"; }

  void RecordAccess(std::string_view key, uint64_t) override {
    std::lock_guard<std::mutex> l(mu_);
    filters_.front().Insert(key);
    if (filters_.front().keys() >= window_) {  // seal it, open a new one
      filters_.emplace_front(window_, kBitsPerKey);
      if (filters_.size() > kFilters) filters_.pop_back();
      sealed_++;
    }
  }

  bool IsHot(std::string_view key) override {
    std::lock_guard<std::mutex> l(mu_);
    int run = 0;
    for (const Bloom& f : filters_) {  // newest first
      if (!f.Contains(key)) break;
      run++;
    }
    return run >= kHotFilters;
  }

  std::string StateJson() const override {
    std::lock_guard<std::mutex> l(mu_);
    return fmt::format("{{\"policy\":\"cbf\",\"window_keys\":{},\"filters\":{},\"sealed\":{},\"open_keys\":{}}}",
                       window_, filters_.size(), sealed_, filters_.front().keys());
  }

 private:
  const uint64_t window_;
  mutable std::mutex mu_;
  std::deque<Bloom> filters_;  // newest (open) first
  uint64_t sealed_ = 0;
};

class ExpSmoothAdmission : public AdmissionPolicy {
 public:
  static constexpr double kAlpha = 0.999;
  static constexpr double kGamma = 0.1;      // a time slice per this share of the cache accessed
  static constexpr double kDeltaC = 2.6;
  static constexpr double kCMax = 5;
  static constexpr double kEvictShare = 0.1;  // beta

  explicit ExpSmoothAdmission(uint64_t cache_bytes)
      : cache_(std::max<uint64_t>(cache_bytes, 1 << 20)),
        lower_(0.05 * static_cast<double>(cache_)),
        upper_(0.7 * static_cast<double>(cache_)),
        unstable_(0.1 * upper_),
        hot_limit_(0.5 * static_cast<double>(cache_)) {}

  std::string name() const override { return "expsmooth"; }

  void RecordAccess(std::string_view key, uint64_t size) override {
    std::lock_guard<std::mutex> l(mu_);
    accessed_ += size;
    if (static_cast<double>(accessed_ - slice_start_) >= kGamma * static_cast<double>(cache_)) {
      tick_++;
      slice_start_ = accessed_;
    }
    if (static_cast<double>(accessed_ - decrement_start_) >= upper_) {  // R = upper bound
      decrements_++;
      decrement_start_ = accessed_;
    }
    auto [it, fresh] = records_.try_emplace(std::string(key));
    Record& r = it->second;
    if (fresh) {
      r.size = size;
      r.counter = kDeltaC;
      r.stable = false;
      r.score = 1;
      tracked_bytes_ += size;
    } else {
      r.score = Score(r) + 1;
      r.counter = std::min(Counter(r) + kDeltaC, kCMax);
      r.stable = true;
    }
    r.tick = tick_;
    r.decrements = decrements_;
    // The tracker keeps twice the hot set's worth of records (the physical
    // limit); beyond that it evicts and re-tunes.
    if (static_cast<double>(tracked_bytes_) > 2 * hot_limit_ + unstable_) EvictLocked();
  }

  bool IsHot(std::string_view key) override {
    std::lock_guard<std::mutex> l(mu_);
    auto it = records_.find(std::string(key));
    return it != records_.end() && Score(it->second) >= threshold_;
  }

  std::string StateJson() const override {
    std::lock_guard<std::mutex> l(mu_);
    return fmt::format(
        "{{\"policy\":\"expsmooth\",\"tracked_keys\":{},\"tracked_bytes\":{},\"hot_set_limit\":{:.0f},"
        "\"score_threshold\":{:.4f},\"tick\":{},\"evictions\":{}}}",
        records_.size(), tracked_bytes_, hot_limit_, threshold_, tick_, evictions_);
  }

 private:
  struct Record {
    uint64_t size = 0;
    double score = 0;
    uint64_t tick = 0;
    double counter = 0;
    uint64_t decrements = 0;  // global decrement count when counter was set
    bool stable = false;
  };

  double Score(const Record& r) const { return r.score * std::pow(kAlpha, static_cast<double>(tick_ - r.tick)); }
  double Counter(const Record& r) const {
    return std::max(0.0, r.counter - static_cast<double>(decrements_ - r.decrements));
  }
  bool Stable(const Record& r) const { return r.stable && Counter(r) > 0; }

  // Algorithm 1 lines 14-21: drop unstable records, then the lowest scores,
  // re-tune the hot set limit, and set the score threshold that keeps the
  // hot set within it.
  void EvictLocked() {
    evictions_++;
    uint64_t stable_bytes = 0;
    for (auto it = records_.begin(); it != records_.end();) {
      if (!Stable(it->second)) {
        tracked_bytes_ -= it->second.size;
        it = records_.erase(it);
      } else {
        stable_bytes += it->second.size;
        ++it;
      }
    }
    hot_limit_ = std::clamp(static_cast<double>(stable_bytes) + unstable_, lower_, upper_);
    std::vector<std::pair<double, const std::string*>> by_score;
    by_score.reserve(records_.size());
    for (const auto& [k, r] : records_) by_score.emplace_back(Score(r), &k);
    std::sort(by_score.begin(), by_score.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    // Still over the physical limit: evict the lowest-scored tenth.
    if (static_cast<double>(tracked_bytes_) > 2 * hot_limit_) {
      size_t keep = by_score.size() - static_cast<size_t>(static_cast<double>(by_score.size()) * kEvictShare);
      for (size_t i = keep; i < by_score.size(); i++) {
        auto it = records_.find(*by_score[i].second);
        tracked_bytes_ -= it->second.size;
        records_.erase(it);
      }
      by_score.resize(keep);
    }
    // The threshold: the score at which the best-scored keys fill the limit.
    double bytes = 0;
    threshold_ = 0;
    for (const auto& [score, key] : by_score) {
      bytes += static_cast<double>(records_.at(*key).size);
      threshold_ = score;
      if (bytes >= hot_limit_) break;
    }
    if (bytes < hot_limit_) threshold_ = 0;  // everything tracked fits
  }

  const uint64_t cache_;
  const double lower_, upper_, unstable_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Record> records_;
  uint64_t tracked_bytes_ = 0;
  uint64_t accessed_ = 0, slice_start_ = 0, decrement_start_ = 0;
  uint64_t tick_ = 0, decrements_ = 0, evictions_ = 0;
  double hot_limit_;
  double threshold_ = 0;  // until the first eviction every tracked key is hot
};

}  // namespace

std::vector<std::string> AdmissionPolicyNames() { return {"all", "cbf", "expsmooth"}; }

Status NewAdmissionPolicy(const std::string& name, uint64_t cache_bytes, uint64_t block_bytes,
                          std::unique_ptr<AdmissionPolicy>* policy) {
  if (name == "all") {
    policy->reset(new AllAdmission());
  } else if (name == "cbf") {
    // A window of as many keys as the cache holds blocks (HyperDB sizes it
    // to what the partition can store).
    policy->reset(new CbfAdmission(cache_bytes / std::max<uint64_t>(block_bytes, 1)));
  } else if (name == "expsmooth") {
    policy->reset(new ExpSmoothAdmission(cache_bytes));
  } else {
    return Status::NotFound("no cache admission policy '" + name + "' (known: all, cbf, expsmooth)");
  }
  return Status::OK();
}

}  // namespace hintfs
