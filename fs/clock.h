// The monotonic clock background work and inference pace themselves by.
#ifndef HINTFS_FS_CLOCK_H_
#define HINTFS_FS_CLOCK_H_

#include <cstdint>

namespace hintfs {

// Nanoseconds of a monotonic clock (std::chrono::steady_clock).
uint64_t MonotonicNs();

}  // namespace hintfs

#endif  // HINTFS_FS_CLOCK_H_
