// The token bucket, driven by a fake clock: how long each Acquire waits.
#include <gtest/gtest.h>

#include "fs/rate_limiter.h"

namespace hintfs {
namespace {

struct FakeTime {
  uint64_t now = 1000000000;
  uint64_t slept = 0;
  RateLimiter Make(uint64_t rate, uint64_t burst) {
    return RateLimiter(
        rate, burst, [this] { return now; },
        [this](uint64_t ns) {
          now += ns;
          slept += ns;
        });
  }
};

TEST(RateLimiterTest, PacesBytesToTheRate) {
  FakeTime t;
  RateLimiter limiter = t.Make(1 << 20, 64 << 10);  // 1 MiB/s, 64 KiB burst
  // 4 MiB in 64 KiB requests from an empty bucket take 4 seconds.
  for (int i = 0; i < 64; i++) limiter.Acquire(64 << 10);
  EXPECT_NEAR(static_cast<double>(t.slept) / 1e9, 4.0, 0.01);
  EXPECT_EQ(limiter.waited_ns(), t.slept);
}

TEST(RateLimiterTest, IdleTimeFillsTheBucketOnlyUpToTheBurst) {
  FakeTime t;
  RateLimiter limiter = t.Make(1 << 20, 128 << 10);
  t.now += 10ull * 1000000000;  // ten idle seconds
  limiter.Acquire(128 << 10);    // the burst passes at once
  EXPECT_EQ(t.slept, 0u);
  limiter.Acquire(128 << 10);    // the next waits for a refill
  EXPECT_NEAR(static_cast<double>(t.slept) / 1e9, 0.125, 0.001);
}

TEST(RateLimiterTest, RequestsLargerThanTheBurstAverageOut) {
  FakeTime t;
  RateLimiter limiter = t.Make(1 << 20, 64 << 10);
  for (int i = 0; i < 4; i++) limiter.Acquire(1 << 20);  // 1 MiB each, 16x the burst
  // The first goes out on a full bucket and leaves debt; the total is still
  // paced: about 3 seconds for the 4 MiB after the first.
  EXPECT_NEAR(static_cast<double>(t.slept) / 1e9, 3.0, 0.1);
}

TEST(RateLimiterTest, ZeroMeansUnlimitedAndTheRateCanChange) {
  FakeTime t;
  RateLimiter limiter = t.Make(0, 0);
  for (int i = 0; i < 100; i++) limiter.Acquire(1 << 20);
  EXPECT_EQ(t.slept, 0u);
  limiter.SetRate(2 << 20);
  EXPECT_EQ(limiter.rate(), 2u << 20);
  for (int i = 0; i < 8; i++) limiter.Acquire(256 << 10);
  EXPECT_NEAR(static_cast<double>(t.slept) / 1e9, 1.0, 0.15);
}

}  // namespace
}  // namespace hintfs
