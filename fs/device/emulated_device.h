// Emulated zoned devices: the embedded default and what every test runs on.
//
//   file:PATH?zone_size=64MiB&zones=32[&zone_capacity=..][&conv_zones=N]
//            [&block_size=4096][&max_open=N][&max_active=N][&sync=0|1][&snapshot=1]
//   mem:NAME?...same keys...
//
// A file device keeps its geometry and every zone's write pointer and
// condition in a checksummed header at the front of a sparse image file
// (docs/formats.md, "Emulated device image"), so it survives a restart exactly
// like a drive; opening an existing image needs no query. A mem device lives
// in a process-wide table under NAME, so a test can "restart" the filesystem
// on the same memory.
//
// file:PATH?snapshot=1 opens an image another process holds, read-only and
// without its lock: the device as the holder has written it so far (zone
// states are stored at every write), for looking at a filesystem in use
// (hintfs info, df, ls); its writes, resets and flushes fail with
// NotSupported.
//
// A file device reads through a shared read-only mapping of its image (no
// system call per read); the image must keep its size while it is open (one
// cut underneath a running process faults the process, as a truncated
// mapped file does).
//
// Both enforce the rules of a real drive (write pointer, capacity, full
// zones, alignment, open and active limits, read only below the write
// pointer) and emulate a volatile write cache: writes become durable at
// Flush(), and SimulatePowerLoss() drops an arbitrary suffix of each zone's
// unflushed writes.
#ifndef HINTFS_FS_DEVICE_EMULATED_DEVICE_H_
#define HINTFS_FS_DEVICE_EMULATED_DEVICE_H_

#include <memory>
#include <string>

#include "fs/uri.h"
#include "fs/device/zoned_device.h"

namespace hintfs {

// The device's stored profile, so "file:PATH" alone reopens a device that was
// created with profile=zn540 as a zn540.
struct StoredProfile {
  std::string name;  // empty: no timing
  double scale = 1.0;
};

// Opens or creates the emulated device uri names (scheme "file" or "mem").
// NotFound for a missing device when not create, a missing directory when
// create, or a file that is not an image (no hintfs header); InvalidArgument
// for a bad geometry or option; Corruption for an image whose header fails
// its checksum or that is shorter than its geometry; Busy if another process
// or handle holds the image.
Status OpenEmulatedDevice(const DeviceUri& uri, bool create, std::unique_ptr<ZonedDevice>* device,
                          StoredProfile* profile);

// Forgets a mem device (frees its memory). Later opens create a new one.
void DestroyMemDevice(const std::string& name);

}  // namespace hintfs

#endif  // HINTFS_FS_DEVICE_EMULATED_DEVICE_H_
