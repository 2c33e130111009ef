#include "adapters/bench/key_generators.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace hintfs {

namespace {

class Uniform : public KeyChooser {
 public:
  uint64_t Next(std::mt19937_64* rng, uint64_t records) override {
    return std::uniform_int_distribution<uint64_t>(0, records - 1)(*rng);
  }
};

// YCSB's scrambled Zipfian: ranks hashed over a key space fixed when the
// chooser is made (the records loaded and those the run is expected to
// insert), and drawn again while they name a record not inserted yet. So a
// rank names the same record all run long: hashed over the records that
// exist now, every insert would move every hot key.
class Scrambled : public KeyChooser {
 public:
  Scrambled(uint64_t space, double theta) : space_(std::max<uint64_t>(space, 1)), ranks_(space_, theta) {}
  uint64_t Next(std::mt19937_64* rng, uint64_t records) override {
    uint64_t key = 0;
    for (int tries = 0; tries < kMaxTries; tries++) {
      key = Fnv64(ranks_.Next(rng)) % space_;
      if (key < records) return key;
    }
    return key % records;  // far fewer records than the space: any will do
  }

 private:
  static constexpr int kMaxTries = 64;
  uint64_t space_;
  ZipfianRanks ranks_;
};

class Latest : public KeyChooser {
 public:
  Latest(uint64_t n, double theta) : ranks_(n, theta) {}
  uint64_t Next(std::mt19937_64* rng, uint64_t records) override {
    uint64_t back = ranks_.Next(rng) % records;
    return records - 1 - back;
  }

 private:
  ZipfianRanks ranks_;
};

// Records [0, hot) take hot_ops of the draws; the others share the rest.
class Hotspot : public KeyChooser {
 public:
  Hotspot(uint64_t hot, double hot_ops) : hot_(hot), hot_ops_(hot_ops) {}
  uint64_t Next(std::mt19937_64* rng, uint64_t records) override {
    const bool to_hot = records <= hot_ || std::uniform_real_distribution<double>(0, 1)(*rng) < hot_ops_;
    const uint64_t first = to_hot ? 0 : hot_;
    const uint64_t last = (to_hot ? std::min(hot_, records) : records) - 1;
    return std::uniform_int_distribution<uint64_t>(first, last)(*rng);
  }

 private:
  uint64_t hot_;
  double hot_ops_;
};

uint64_t HotRecords(const KeyDistribution& d, uint64_t records) {
  const double hot = std::round(d.hot_set * static_cast<double>(records));
  return std::max<uint64_t>(1, static_cast<uint64_t>(std::max(0.0, hot)));
}

}  // namespace

ZipfianRanks::ZipfianRanks(uint64_t n, double theta) {
  cdf_.resize(n < 1 ? 1 : n);
  double sum = 0;
  for (uint64_t i = 0; i < cdf_.size(); i++) {
    sum += 1.0 / std::pow(static_cast<double>(i + 1), theta);
    cdf_[i] = sum;
  }
  for (double& c : cdf_) c /= sum;
}

uint64_t ZipfianRanks::Next(std::mt19937_64* rng) {
  double u = std::uniform_real_distribution<double>(0.0, 1.0)(*rng);
  auto it = std::lower_bound(cdf_.begin(), cdf_.end(), u);
  return it == cdf_.end() ? cdf_.size() - 1 : static_cast<uint64_t>(it - cdf_.begin());
}

bool IsKeyDistribution(const std::string& name) {
  return name == "uniform" || name == "zipfian" || name == "latest" || name == "hotspot";
}

std::unique_ptr<KeyChooser> NewKeyChooser(const KeyDistribution& d, uint64_t records_hint, uint64_t new_keys_hint) {
  if (d.name == "uniform") return std::make_unique<Uniform>();
  if (d.name == "zipfian") return std::make_unique<Scrambled>(records_hint + new_keys_hint, d.theta);
  if (d.name == "latest") return std::make_unique<Latest>(records_hint, d.theta);
  if (d.name == "hotspot") return std::make_unique<Hotspot>(HotRecords(d, records_hint), d.hot_ops);
  return nullptr;
}

std::vector<double> RecordProbabilities(const KeyDistribution& d, uint64_t records, uint64_t new_keys) {
  if (records == 0 || !IsKeyDistribution(d.name)) return {};
  std::vector<double> p(records, d.name == "uniform" ? 1.0 / static_cast<double>(records) : 0.0);
  if (d.name == "uniform") return p;
  if (d.name == "hotspot") {
    const uint64_t hot = HotRecords(d, records);
    if (hot >= records) return std::vector<double>(records, 1.0 / static_cast<double>(records));
    for (uint64_t i = 0; i < records; i++) {
      p[i] = i < hot ? d.hot_ops / static_cast<double>(hot) : (1 - d.hot_ops) / static_cast<double>(records - hot);
    }
    return p;
  }
  // Rank i has weight 1 / (i + 1)^theta, as ZipfianRanks draws it; a
  // scrambled rank that names a record beyond those loaded is drawn again,
  // so the weights of the rest are scaled up to sum to one.
  const uint64_t space = d.name == "zipfian" ? records + new_keys : records;
  double sum = 0;
  for (uint64_t i = 0; i < space; i++) {
    const double w = 1.0 / std::pow(static_cast<double>(i + 1), d.theta);
    const uint64_t record = d.name == "zipfian" ? Fnv64(i) % space : records - 1 - i;
    if (record >= records) continue;
    p[record] += w;
    sum += w;
  }
  for (double& x : p) x /= sum;
  return p;
}

uint64_t Fnv64(uint64_t i) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (int b = 0; b < 8; b++) {
    h ^= (i >> (8 * b)) & 0xff;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string RecordKey(uint64_t i, size_t key_bytes) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%020llu", static_cast<unsigned long long>(Fnv64(i)));
  std::string key = "user" + std::string(buf);
  key.resize(std::max<size_t>(key_bytes, 8), '0');
  return key;
}

}  // namespace hintfs
