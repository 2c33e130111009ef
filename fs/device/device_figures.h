// What a device says about its speed when nothing models it.
//
// A few decisions depend on whether reaching a block costs a device more
// than transferring it: readahead's first window at a file's first read
// (fs/readahead.h), the order empty zones are taken in (fs/fs_space.cc),
// and popularity migration, which starts when the slow tier's reads near
// its random-read rate (placement/migration_planner.h). Emulated devices
// have the figures of their timing profiles; a device reached through the
// kernel reports none, so on a real disk none of these happened. A kernel
// block device whose queue says its drive rotates (sysfs
// queue/rotational) reports the nominal figures of a 7,200 rpm capacity
// disk, the st14000 profile's (timing_profile.h); nothing waits on them,
// and a URI that names a profile uses that profile's figures instead.
#ifndef HINTFS_FS_DEVICE_DEVICE_FIGURES_H_
#define HINTFS_FS_DEVICE_DEVICE_FIGURES_H_

#include <memory>
#include <string>

#include "fs/device/timing_profile.h"
#include "fs/device/zoned_device.h"

namespace hintfs {

// Whether the sysfs directory of a block device (/sys/dev/block/MAJ:MIN)
// says its drive rotates: its queue/rotational, or for a partition, which
// has no queue of its own, its disk's. false when neither can be read.
bool SysfsBlockDirRotates(const std::string& dir);

// Whether path is a block device whose drive rotates; false for anything
// else (a regular file, a character device, a path that does not exist).
bool BlockDeviceRotates(const std::string& path);

// The figures reported for a drive known only to rotate: the st14000's.
const TimingProfile& NominalDiskProfile();

// Wraps device so that it reports profile's random_read_iops,
// random_read_latency_us and read_mib_per_s; every I/O goes on as before.
std::unique_ptr<ZonedDevice> WithFigures(std::unique_ptr<ZonedDevice> device, const TimingProfile& profile);

}  // namespace hintfs

#endif  // HINTFS_FS_DEVICE_DEVICE_FIGURES_H_
