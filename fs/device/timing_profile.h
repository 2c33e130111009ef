// Timing profiles make any ZonedDevice behave like a particular drive by
// really waiting: each I/O occupies one of the drive's parallel units for its
// access latency and the shared data channel for its transfer time, and
// returns when both are done. Queueing follows from the busy-until clocks, so
// throughput and latency under concurrency come out of the same model.
//
// A sequential access (one that starts where the previous access of the same
// kind ended) skips the access latency; that is what separates a 210 MiB/s
// sequential HDD stream from its 115 random IOPS. On a disk (rotates), one
// that starts a little past there pays the time the skipped bytes take to
// pass under the head, up to the access latency (a drive rotates past a
// short gap rather than seek; the break-even on the st14000 is a gap of
// 1.8 MiB).
//
// scale divides every modelled time, so a scale of 10 runs ten times faster
// while keeping the ratios between devices (used by scaled reproductions).
//
// Where a device's time went: with HINTFS_DEVICE_TRACE set in the environment,
// a timed device prints to stderr when it closes, per request class (reads and
// writes of up to 16 KiB, up to 256 KiB, larger), the requests, how many paid
// the access latency, their bytes and the modelled service time (in the
// profile's time, divided by scale) and response time (arrival to completion:
// service plus the wait for a unit and the shared channel) and how late
// sleepers woke (counted only when the variable was set at open). A
// diagnostic for benchmarks: small random reads are a store's point lookups,
// large ones compaction and migration.
#ifndef HINTFS_FS_DEVICE_TIMING_PROFILE_H_
#define HINTFS_FS_DEVICE_TIMING_PROFILE_H_

#include <memory>
#include <string>
#include <vector>

#include "fs/device/zoned_device.h"

namespace hintfs {

struct TimingProfile {
  std::string name;
  std::string description;
  std::string source;             // where the figures come from
  double read_mib_per_s = 0;      // sequential read bandwidth
  double write_mib_per_s = 0;     // sequential write bandwidth
  double read_access_us = 0;      // random read access latency, excluding transfer
  double write_access_us = 0;     // write latency when not sequential, excluding transfer
  int parallel_units = 1;         // requests served at once (flash channels, actuators)
  bool rotates = false;           // a disk: a short skip forward costs the gap's transfer
  uint64_t zone_capacity_hint = 0;  // the drive's zone capacity, informational

  // Random 4 KiB reads per second the drive serves with every unit busy,
  // every time divided by scale; 0 without an access latency.
  double RandomReadIops(double scale) const {
    return read_access_us > 0 ? parallel_units * 1e6 / read_access_us * scale : 0;
  }
};

// The built-in profiles: zn540, st14000, hotrap-nvme, hotrap-hdd, hotrap-nitro,
// hotrap-gp3, pm9a3, s4610.
const std::vector<TimingProfile>& BuiltinTimingProfiles();

// Finds a built-in profile by name; NotFound lists the known ones.
Status FindTimingProfile(const std::string& name, TimingProfile* profile);

// Wraps device so that every I/O takes the time profile prescribes, divided by scale.
std::unique_ptr<ZonedDevice> NewTimedDevice(std::unique_ptr<ZonedDevice> device,
                                            const TimingProfile& profile, double scale);

}  // namespace hintfs

#endif  // HINTFS_FS_DEVICE_TIMING_PROFILE_H_
