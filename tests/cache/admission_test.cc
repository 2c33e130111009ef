// The admission policies' unit behaviour.
#include <gtest/gtest.h>

#include <random>

#include <nlohmann/json.hpp>

#include "cache/admission.h"

namespace hintfs {
namespace {

std::unique_ptr<AdmissionPolicy> Make(const std::string& name, uint64_t cache_bytes, uint64_t block = 4096) {
  std::unique_ptr<AdmissionPolicy> p;
  EXPECT_TRUE(NewAdmissionPolicy(name, cache_bytes, block, &p).ok());
  return p;
}

TEST(Admission, AllAdmitsEverything) {
  auto p = Make("all", 1 << 20);
  EXPECT_TRUE(p->IsHot("never seen"));
  std::unique_ptr<AdmissionPolicy> q;
  EXPECT_TRUE(NewAdmissionPolicy("lru", 1 << 20, 4096, &q).IsNotFound());
}

// Accesses `keys` distinct fillers so the open filter seals (one window).
void FillWindow(AdmissionPolicy* p, int* next, int keys) {
  for (int i = 0; i < keys; i++) p->RecordAccess("filler" + std::to_string((*next)++), 4096);
}

TEST(Admission, CbfAdmitsOnlyKeysSeenInThreeConsecutiveWindows) {
  // 400 KiB of 4 KiB blocks: a window of 100 keys.
  auto p = Make("cbf", 400 << 10);
  int next = 0;
  p->RecordAccess("hot", 4096);
  p->RecordAccess("twice", 4096);
  EXPECT_FALSE(p->IsHot("hot")) << "one window is not enough";
  FillWindow(p.get(), &next, 100);  // seals window 1
  p->RecordAccess("hot", 4096);
  p->RecordAccess("twice", 4096);
  EXPECT_FALSE(p->IsHot("hot")) << "two windows are not enough";
  FillWindow(p.get(), &next, 100);  // seals window 2
  p->RecordAccess("hot", 4096);
  EXPECT_TRUE(p->IsHot("hot")) << "three consecutive windows";
  EXPECT_FALSE(p->IsHot("twice"));
  // A gap breaks the run: "twice" in windows 1, 2 and 4 is not hot in 4.
  FillWindow(p.get(), &next, 100);  // seals window 3 (no "twice")
  p->RecordAccess("twice", 4096);
  EXPECT_FALSE(p->IsHot("twice"));
  EXPECT_FALSE(p->IsHot("never"));
  auto state = nlohmann::json::parse(p->StateJson());
  EXPECT_EQ(state["window_keys"], 100);
  EXPECT_LE(state["filters"].get<int>(), 4);
  EXPECT_EQ(state["sealed"], 3);
}

TEST(Admission, CbfForgetsAfterFourWindows) {
  auto p = Make("cbf", 400 << 10);
  int next = 0;
  for (int w = 0; w < 3; w++) {
    p->RecordAccess("once-hot", 4096);
    FillWindow(p.get(), &next, 100);
  }
  p->RecordAccess("once-hot", 4096);
  EXPECT_TRUE(p->IsHot("once-hot"));
  for (int w = 0; w < 4; w++) FillWindow(p.get(), &next, 100);
  EXPECT_FALSE(p->IsHot("once-hot")) << "its windows were dropped";
}

TEST(Admission, ExpSmoothKeepsTheSkewedHeadHot) {
  // 4 MiB cache of 4 KiB blocks; a zipf-like stream over 20,000 blocks
  // (80 MiB): the head must end hot, the tail cold.
  auto p = Make("expsmooth", 4 << 20);
  std::mt19937_64 rng(5);
  std::vector<double> cdf;
  double sum = 0;
  for (int i = 1; i <= 20000; i++) {
    sum += 1.0 / std::pow(i, 1.1);
    cdf.push_back(sum);
  }
  for (int i = 0; i < 200000; i++) {
    double u = std::uniform_real_distribution<double>(0, sum)(rng);
    int k = static_cast<int>(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
    p->RecordAccess("b" + std::to_string(k), 4096);
  }
  int hot_head = 0, hot_tail = 0;
  for (int k = 0; k < 50; k++) hot_head += p->IsHot("b" + std::to_string(k));
  for (int k = 19000; k < 20000; k++) hot_tail += p->IsHot("b" + std::to_string(k));
  auto state = nlohmann::json::parse(p->StateJson());
  EXPECT_GE(hot_head, 48) << state.dump();
  EXPECT_LE(hot_tail, 100) << state.dump();
  EXPECT_GT(state["evictions"].get<int>(), 0);
  // The tuned limit stays within [5%, 70%] of the cache.
  EXPECT_GE(state["hot_set_limit"].get<double>(), 0.05 * (4 << 20));
  EXPECT_LE(state["hot_set_limit"].get<double>(), 0.7 * (4 << 20));
  EXPECT_FALSE(p->IsHot("never accessed"));
}

}  // namespace
}  // namespace hintfs
