// Key choosers of a YCSB-style workload, as YCSB's core workloads define them:
//   uniform      every record equally likely
//   zipfian      record ranks drawn with P(rank i) ~ 1 / i^theta, ranks
//                scattered over the key space by a hash ("scrambled", as
//                YCSB does), so hot keys are not adjacent
//   latest       zipfian over recency: the newest records are the hottest
//   hotspot      a fixed hot set (a share of the loaded records) drawn
//                uniformly by a share of the operations, the rest drawn
//                uniformly from the other records (YCSB's hotspot, as
//                HotRAP's "hotspot-5%": 5% of the records take 95% of the
//                operations); records are hashed into keys, so the hot
//                keys are scattered over the key space
// Each generator is used by one thread.
#ifndef HINTFS_ADAPTERS_BENCH_KEY_GENERATORS_H_
#define HINTFS_ADAPTERS_BENCH_KEY_GENERATORS_H_

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace hintfs {

// Draws ranks in [0, n) with P(i) proportional to 1 / (i + 1)^theta, for
// any theta > 0 (HHZS sweeps 0.8 to 1.2), by inverting the exact CDF (a
// table of n doubles, searched).
class ZipfianRanks {
 public:
  ZipfianRanks(uint64_t n, double theta);
  uint64_t Next(std::mt19937_64* rng);
  uint64_t n() const { return cdf_.size(); }

 private:
  std::vector<double> cdf_;  // cdf_[i] = P(rank <= i)
};

class KeyChooser {
 public:
  virtual ~KeyChooser() = default;
  // A record number in [0, records) where records is how many exist now.
  virtual uint64_t Next(std::mt19937_64* rng, uint64_t records) = 0;
};

// What a workload's keys follow.
struct KeyDistribution {
  std::string name = "zipfian";  // uniform, zipfian, latest or hotspot
  double theta = 0.9;            // zipfian, latest: the skew
  double hot_set = 0.05;         // hotspot: the share of the records that is hot
  double hot_ops = 0.95;         // hotspot: the share of the draws that go to it
};

// True for the names NewKeyChooser knows.
bool IsKeyDistribution(const std::string& name);

// records_hint is the number of records loaded: it sizes the zipfian
// tables and the hotspot's hot set (records [0, hot_set * records_hint),
// at least one). new_keys_hint is how many the run may insert (YCSB counts
// twice the inserts it expects): zipfian ranks are hashed over both, so that
// the hot records stay the same while records are inserted. Null for an
// unknown name.
std::unique_ptr<KeyChooser> NewKeyChooser(const KeyDistribution& d, uint64_t records_hint,
                                          uint64_t new_keys_hint = 0);

// The probability that one draw of NewKeyChooser(d, records, new_keys) over
// `records` records returns each record (index i: record i): what a
// placement oracle weighs records by. Empty for an unknown name or no records.
std::vector<double> RecordProbabilities(const KeyDistribution& d, uint64_t records, uint64_t new_keys = 0);

// The key of record i: "user" and a hash of i, zero-padded to key_bytes.
std::string RecordKey(uint64_t i, size_t key_bytes);

// 64-bit FNV-1a of i's bytes (YCSB scrambles ranks with it).
uint64_t Fnv64(uint64_t i);

}  // namespace hintfs

#endif  // HINTFS_ADAPTERS_BENCH_KEY_GENERATORS_H_
