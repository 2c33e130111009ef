// What a lifetime prediction costs (issue 22's target: at most 2 us per
// allocation): trains a LifetimeModel on 4,096 synthetic files whose
// lifetimes their level decides, then times LifetimeModel::Predict, and the
// whole LifetimePolicy::LifetimeClass (features included) of a trained
// policy, over many calls. Prints ns per call and the training time.
//   lifetime_inference [CALLS]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "placement/lifetime_policy.h"

using namespace hintfs;

namespace {

double NsPerCall(const std::chrono::steady_clock::time_point& start, long calls) {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / calls;
}

}  // namespace

int main(int argc, char** argv) {
  const long calls = argc > 1 ? std::atol(argv[1]) : 1000000;
  if (calls <= 0) {
    std::fprintf(stderr, "usage: lifetime_inference [CALLS > 0]\n");
    return 2;
  }
  std::mt19937_64 rng(1);
  std::vector<LifetimeSample> samples(4096);
  for (LifetimeSample& s : samples) {
    for (float& f : s.features) f = static_cast<float>(rng() % 100);
    const int level = static_cast<int>(rng() % 4);
    s.features[kFeatureLevel] = static_cast<float>(level);
    s.lifetime = static_cast<uint64_t>(std::pow(8.0, level) * (1 << 20) * (0.7 + (rng() % 70) / 100.0));
  }
  LifetimeModel model;
  auto start = std::chrono::steady_clock::now();
  Status s = LifetimeModel::Train(samples, &model);
  if (!s.ok()) {
    std::fprintf(stderr, "training failed: %s\n", s.ToString().c_str());
    return 1;
  }
  std::printf("training on %zu files: %.1f ms (%zu trees)\n", samples.size(), NsPerCall(start, 1) / 1e6,
              model.trees());
  long sum = 0;
  start = std::chrono::steady_clock::now();
  for (long i = 0; i < calls; i++) sum += model.Predict(samples[static_cast<size_t>(i) & 4095].features);
  std::printf("LifetimeModel::Predict: %.0f ns per call (checksum %ld)\n", NsPerCall(start, calls), sum);

  // The whole allocation-time call of a policy with a model.
  auto bus = std::make_shared<HintBus>();
  LifetimePolicy policy("fast-first:lifetime=learned", std::make_shared<FastFirstPolicy>(), bus,
                        LifetimeMode::kLearned);
  for (int i = 0; i < 400; i++) {
    AllocationRequest r;
    r.path = "/db/" + std::to_string(100000 + i) + ".sst";
    r.lifetime_hint = 3 + i % 2;
    r.write_clock = static_cast<uint64_t>(i) << 20;
    policy.LifetimeClass(r);
    policy.OnFileDeleted(r.path, 1 << 20, r.write_clock + ((i % 2 ? 512u : 8u) << 20));
  }
  s = policy.TrainNow();
  if (!s.ok()) {
    std::fprintf(stderr, "policy training failed: %s\n", s.ToString().c_str());
    return 1;
  }
  const long policy_calls = std::min(calls, 200000L);
  std::vector<std::string> paths(4096);
  for (size_t i = 0; i < paths.size(); i++) paths[i] = "/db/" + std::to_string(500000 + i) + ".sst";
  start = std::chrono::steady_clock::now();
  for (long i = 0; i < policy_calls; i++) {
    AllocationRequest r;
    r.path = paths[static_cast<size_t>(i) & 4095];
    r.lifetime_hint = 3;
    r.write_clock = static_cast<uint64_t>(i) << 20;
    sum += policy.LifetimeClass(r);
  }
  std::printf("LifetimePolicy::LifetimeClass (features and prediction): %.0f ns per call (checksum %ld)\n",
              NsPerCall(start, policy_calls), sum);
  return 0;
}
