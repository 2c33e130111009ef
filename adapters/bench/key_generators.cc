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

class Scrambled : public KeyChooser {
 public:
  Scrambled(uint64_t n, double theta) : ranks_(n, theta) {}
  uint64_t Next(std::mt19937_64* rng, uint64_t records) override {
    return Fnv64(ranks_.Next(rng)) % records;
  }

 private:
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

std::unique_ptr<KeyChooser> NewKeyChooser(const std::string& name, uint64_t records_hint, double theta) {
  if (name == "uniform") return std::make_unique<Uniform>();
  if (name == "zipfian") return std::make_unique<Scrambled>(records_hint, theta);
  if (name == "latest") return std::make_unique<Latest>(records_hint, theta);
  return nullptr;
}

std::vector<double> RecordProbabilities(const std::string& name, uint64_t records, double theta) {
  if (records == 0 || (name != "uniform" && name != "zipfian" && name != "latest")) return {};
  std::vector<double> p(records, name == "uniform" ? 1.0 / static_cast<double>(records) : 0.0);
  if (name == "uniform") return p;
  // Rank i has weight 1 / (i + 1)^theta, as ZipfianRanks draws it.
  double sum = 0;
  for (uint64_t i = 0; i < records; i++) sum += 1.0 / std::pow(static_cast<double>(i + 1), theta);
  for (uint64_t i = 0; i < records; i++) {
    double w = 1.0 / std::pow(static_cast<double>(i + 1), theta) / sum;
    p[name == "zipfian" ? Fnv64(i) % records : records - 1 - i] += w;
  }
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
