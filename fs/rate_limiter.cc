#include "fs/rate_limiter.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "fs/clock.h"

namespace hintfs {

namespace {

uint64_t DefaultBurst(uint64_t rate) { return std::max<uint64_t>(rate / 10, 64 << 10); }

}  // namespace

RateLimiter::RateLimiter(uint64_t bytes_per_second, uint64_t burst_bytes)
    : RateLimiter(bytes_per_second, burst_bytes, MonotonicNs,
                  [](uint64_t ns) { std::this_thread::sleep_for(std::chrono::nanoseconds(ns)); }) {}

RateLimiter::RateLimiter(uint64_t bytes_per_second, uint64_t burst_bytes, Clock clock, Sleeper sleeper)
    : clock_(std::move(clock)),
      sleeper_(std::move(sleeper)),
      rate_(bytes_per_second),
      burst_(burst_bytes != 0 ? burst_bytes : DefaultBurst(bytes_per_second)),
      explicit_burst_(burst_bytes != 0),
      tokens_(0),
      last_ns_(clock_()) {}

uint64_t RateLimiter::WaitNeededLocked(uint64_t bytes) {
  uint64_t now = clock_();
  if (now > last_ns_) {
    tokens_ = std::min<double>(static_cast<double>(burst_),
                               tokens_ + static_cast<double>(now - last_ns_) * static_cast<double>(rate_) / 1e9);
    last_ns_ = now;
  }
  // Small requests wait for their own bytes; big ones for a full bucket.
  double need = static_cast<double>(std::min(bytes, burst_));
  if (tokens_ >= need) {
    tokens_ -= static_cast<double>(bytes);
    return 0;
  }
  double ns = (need - tokens_) * 1e9 / static_cast<double>(rate_);
  return std::max<uint64_t>(1, static_cast<uint64_t>(ns));
}

void RateLimiter::Acquire(uint64_t bytes) {
  for (;;) {
    uint64_t wait;
    {
      std::lock_guard<std::mutex> l(mu_);
      if (rate_ == 0) return;
      wait = WaitNeededLocked(bytes);
      if (wait == 0) return;
      waited_ns_ += wait;
    }
    sleeper_(wait);
  }
}

void RateLimiter::SetRate(uint64_t bytes_per_second) {
  std::lock_guard<std::mutex> l(mu_);
  rate_ = bytes_per_second;
  if (!explicit_burst_) burst_ = DefaultBurst(bytes_per_second);
  tokens_ = std::min<double>(tokens_, static_cast<double>(burst_));
}

uint64_t RateLimiter::rate() const {
  std::lock_guard<std::mutex> l(mu_);
  return rate_;
}

uint64_t RateLimiter::waited_ns() const {
  std::lock_guard<std::mutex> l(mu_);
  return waited_ns_;
}

}  // namespace hintfs
