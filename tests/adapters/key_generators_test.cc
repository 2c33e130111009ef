// The YCSB driver's key distributions, checked statistically.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "adapters/bench/key_generators.h"

namespace hintfs {
namespace {

TEST(KeyGenerators, ZipfianRanksFollowThePowerLaw) {
  for (double theta : {0.9, 1.2}) {
    const uint64_t n = 1000;
    ZipfianRanks z(n, theta);
    std::mt19937_64 rng(1);
    std::vector<uint64_t> counts(n);
    const int draws = 400000;
    for (int i = 0; i < draws; i++) counts[z.Next(&rng)]++;
    double zeta = 0;
    for (uint64_t i = 1; i <= n; i++) zeta += 1.0 / std::pow(static_cast<double>(i), theta);
    for (uint64_t rank : {0, 1, 9, 99}) {
      double expected = draws / std::pow(static_cast<double>(rank + 1), theta) / zeta;
      EXPECT_NEAR(counts[rank], expected, 5 * std::sqrt(expected) + 0.02 * expected)
          << "theta " << theta << " rank " << rank;
    }
  }
}

TEST(KeyGenerators, ScrambledZipfianSpreadsHotKeys) {
  auto c = NewKeyChooser({"zipfian", 0.9}, 10000);
  std::mt19937_64 rng(2);
  std::map<uint64_t, int> counts;
  for (int i = 0; i < 100000; i++) counts[c->Next(&rng, 10000)]++;
  // The hottest records are not the first ones.
  std::vector<std::pair<int, uint64_t>> by_count;
  for (const auto& [k, n] : counts) by_count.emplace_back(n, k);
  std::sort(by_count.rbegin(), by_count.rend());
  std::set<uint64_t> top;
  for (int i = 0; i < 10; i++) top.insert(by_count[i].second);
  int adjacent = 0;
  for (uint64_t k = 0; k < 10; k++) adjacent += top.count(k);
  EXPECT_LT(adjacent, 3);
  EXPECT_GT(by_count[0].first, 100000 / 100) << "skewed";
}

// As YCSB's: inserts do not move the hot records. Ranks hash over the key
// space fixed at the start (records and expected new keys), and a rank that
// names a record not inserted yet is drawn again.
TEST(KeyGenerators, ScrambledZipfianKeepsItsHotRecordsWhileRecordsAreInserted) {
  auto c = NewKeyChooser({"zipfian", 0.99}, 10000, 10000);
  auto top = [&](uint64_t records) {
    std::mt19937_64 rng(3);
    std::map<uint64_t, int> counts;
    for (int i = 0; i < 200000; i++) {
      uint64_t k = c->Next(&rng, records);
      EXPECT_LT(k, records);
      counts[k]++;
    }
    std::vector<std::pair<int, uint64_t>> by_count;
    for (const auto& [k, n] : counts) by_count.emplace_back(n, k);
    std::sort(by_count.rbegin(), by_count.rend());
    std::set<uint64_t> hottest;
    for (int i = 0; i < 5; i++) hottest.insert(by_count[i].second);
    return hottest;
  };
  const std::set<uint64_t> before = top(10000);
  EXPECT_EQ(top(10001), before) << "one insert moved the hot records";
  EXPECT_EQ(top(10100), before);
}

TEST(KeyGenerators, UniformAndLatest) {
  auto u = NewKeyChooser({"uniform"}, 100);
  std::mt19937_64 rng(3);
  std::vector<int> counts(100);
  for (int i = 0; i < 100000; i++) counts[u->Next(&rng, 100)]++;
  for (int c : counts) EXPECT_NEAR(c, 1000, 150);
  auto l = NewKeyChooser({"latest", 0.9}, 1000);
  std::vector<int> recent(1000);
  for (int i = 0; i < 100000; i++) recent[l->Next(&rng, 1000)]++;
  EXPECT_GT(recent[999], recent[500] * 20) << "the newest record is the hottest";
  // Records added since the chooser was made are reachable.
  std::set<uint64_t> seen;
  for (int i = 0; i < 1000; i++) seen.insert(l->Next(&rng, 2000));
  EXPECT_TRUE(seen.count(1999));
  EXPECT_EQ(NewKeyChooser({"gaussian"}, 10), nullptr);
}

// The oracle's probabilities are those of the choosers' draws.
TEST(KeyGenerators, RecordProbabilitiesMatchTheDraws) {
  const uint64_t records = 2000;
  std::mt19937_64 rng(4);
  // Zipfian with new keys too: ranks over a larger space, drawn again for
  // records not inserted yet.
  const std::vector<std::pair<const char*, uint64_t>> cases = {
      {"zipfian", 0}, {"zipfian", 1500}, {"latest", 0}, {"uniform", 0}, {"hotspot", 0}};
  for (const auto& [name, new_keys] : cases) {
    const KeyDistribution d{name, 0.9, 0.05, 0.95};
    std::vector<double> p = RecordProbabilities(d, records, new_keys);
    ASSERT_EQ(p.size(), records);
    double sum = 0;
    for (double x : p) sum += x;
    EXPECT_NEAR(sum, 1.0, 1e-9) << name;
    auto c = NewKeyChooser(d, records, new_keys);
    std::vector<int> counts(records);
    const int draws = 400000;
    for (int i = 0; i < draws; i++) counts[c->Next(&rng, records)]++;
    // The ten most probable records drew what their probability says.
    std::vector<uint64_t> order(records);
    for (uint64_t i = 0; i < records; i++) order[i] = i;
    std::sort(order.begin(), order.end(), [&](uint64_t a, uint64_t b) { return p[a] > p[b]; });
    for (int k = 0; k < 10; k++) {
      double expected = draws * p[order[k]];
      EXPECT_NEAR(counts[order[k]], expected, 5 * std::sqrt(expected) + 1)
          << name << " +" << new_keys << " record " << order[k];
    }
  }
  EXPECT_TRUE(RecordProbabilities({"gaussian"}, records).empty());
  EXPECT_TRUE(RecordProbabilities({"zipfian"}, 0).empty());
}

// HotRAP's hotspot-5%: 5% of the loaded records take 95% of the draws,
// uniformly; the others, inserted ones included, share the rest.
TEST(KeyGenerators, HotspotSendsItsShareToAFixedHotSet) {
  const uint64_t records = 10000;
  auto c = NewKeyChooser({"hotspot", 0.9, 0.05, 0.95}, records);
  std::mt19937_64 rng(5);
  const int draws = 200000;
  int hot = 0;
  std::vector<int> counts(records);
  for (int i = 0; i < draws; i++) {
    uint64_t r = c->Next(&rng, records);
    ASSERT_LT(r, records);
    counts[r]++;
    hot += r < 500;
  }
  EXPECT_NEAR(hot, 0.95 * draws, 5 * std::sqrt(0.05 * 0.95 * draws));
  // Uniform inside the hot set: each hot record draws 0.95 / 500 of them.
  EXPECT_NEAR(counts[7], 0.95 / 500 * draws, 5 * std::sqrt(0.95 / 500 * draws));
  int cold_sum = 0;
  for (uint64_t r = 500; r < records; r++) cold_sum += counts[r];
  EXPECT_EQ(cold_sum, draws - hot);
  // The hot set stays where it was while records are inserted, and the new
  // records are drawn among the cold ones.
  std::set<uint64_t> seen_new;
  int hot_after = 0;
  for (int i = 0; i < 20000; i++) {
    uint64_t r = c->Next(&rng, 2 * records);
    hot_after += r < 500;
    if (r >= records) seen_new.insert(r);
  }
  EXPECT_NEAR(hot_after, 0.95 * 20000, 200);
  EXPECT_GT(seen_new.size(), 100u);
  // With fewer records than the hot set, every draw is among them.
  auto tiny = NewKeyChooser({"hotspot", 0.9, 0.5, 0.1}, 10);
  for (int i = 0; i < 1000; i++) ASSERT_LT(tiny->Next(&rng, 3), 3u);
}

TEST(KeyGenerators, RecordKeysAreDistinctAndSized) {
  std::set<std::string> keys;
  for (uint64_t i = 0; i < 100000; i++) {
    std::string k = RecordKey(i, 24);
    EXPECT_EQ(k.size(), 24u);
    keys.insert(k);
  }
  EXPECT_EQ(keys.size(), 100000u);
}

}  // namespace
}  // namespace hintfs
