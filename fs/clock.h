// The two clocks: a monotonic one that background work, inference and
// traces pace themselves by, and the wall clock of file times.
#ifndef HINTFS_FS_CLOCK_H_
#define HINTFS_FS_CLOCK_H_

#include <cstdint>

namespace hintfs {

// Nanoseconds of a monotonic clock (std::chrono::steady_clock).
uint64_t MonotonicNs();

// Nanoseconds since the Unix epoch (std::chrono::system_clock): mtimes and
// creation times, which outlive the process.
int64_t WallClockNs();

}  // namespace hintfs

#endif  // HINTFS_FS_CLOCK_H_
