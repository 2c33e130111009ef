// RateLimiter: a token bucket that holds background work (migration, cache
// fills) to a byte rate so foreground I/O keeps the devices. Acquire blocks
// until the bucket has the bytes; a request larger than the burst is let
// through once the bucket is full and leaves it in debt, so big requests
// still average out to the rate.
//
// Thread safe. Time and sleeping are injectable so tests can drive the
// bucket without waiting.
#ifndef HINTFS_FS_RATE_LIMITER_H_
#define HINTFS_FS_RATE_LIMITER_H_

#include <cstdint>
#include <functional>
#include <mutex>

namespace hintfs {

class RateLimiter {
 public:
  using Clock = std::function<uint64_t()>;          // nanoseconds, monotonic
  using Sleeper = std::function<void(uint64_t ns)>;

  // bytes_per_second 0 means unlimited. burst_bytes 0 means a tenth of a
  // second's worth (at least 64 KiB).
  explicit RateLimiter(uint64_t bytes_per_second, uint64_t burst_bytes = 0);
  RateLimiter(uint64_t bytes_per_second, uint64_t burst_bytes, Clock clock, Sleeper sleeper);

  // Waits until bytes may pass.
  void Acquire(uint64_t bytes);

  void SetRate(uint64_t bytes_per_second);
  uint64_t rate() const;
  // Total time Acquire has spent waiting, for stats.
  uint64_t waited_ns() const;

 private:
  // Nanoseconds until bytes may pass (0: take them now). mu_ held.
  uint64_t WaitNeededLocked(uint64_t bytes);

  Clock clock_;
  Sleeper sleeper_;
  mutable std::mutex mu_;
  uint64_t rate_;
  uint64_t burst_;
  bool explicit_burst_;
  double tokens_;  // may go negative: debt from a request larger than the burst
  uint64_t last_ns_;
  uint64_t waited_ns_ = 0;
};

}  // namespace hintfs

#endif  // HINTFS_FS_RATE_LIMITER_H_
