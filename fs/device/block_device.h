// Conventional storage carved into logical zones: a raw block device or
// partition that is not zoned (an NVMe or SATA SSD, an HDD) or a preallocated
// regular file.
//
//   blk:PATH[?zone_size=64MiB][&zones=N][&zone_capacity=..][&conv_zones=N]
//           [&block_size=4096][&max_open=N][&max_active=N][&snapshot=1]
//
// The first open with create (hintfs mkfs) lays the zones out: the same
// checksummed header and zone table as a file: image (docs/formats.md,
// "Emulated device image") at the front of PATH, zones after it. zones
// defaults to as many as fit; max_open and max_active default to 0 (no
// limit: the device has none). Later opens read the layout back; geometry
// keys in the URI must then agree with it.
//
// Data moves with O_DIRECT (unaligned requests through an aligned bounce
// buffer), so neither the page cache nor its write-back sits between the
// filesystem and the drive; the zone table is written through the page cache
// at every zone state change, so a write that returned is known after a
// process kill, and Flush() is fdatasync (the drive's cache flush). A zone
// reset discards the zone's blocks (BLKDISCARD, a punched hole in a file), so
// an SSD's FTL knows they are free. The device is held with O_EXCL (a block
// device) and an exclusive flock; snapshot=1 opens it read-only without
// either, as file:PATH?snapshot=1 does.
//
// The backend enforces the rules of a zoned drive on top (write pointers,
// capacity, limits): the filesystem writes every zone sequentially, as it
// would on a ZNS SSD or SMR disk. In-place writes are offered only where the
// URI asks for conventional zones (conv_zones=N).
#ifndef HINTFS_FS_DEVICE_BLOCK_DEVICE_H_
#define HINTFS_FS_DEVICE_BLOCK_DEVICE_H_

#include <memory>

#include "fs/device/emulated_device.h"
#include "fs/uri.h"

namespace hintfs {

// Opens the blk: device uri names, laying out its zones when create is set
// and PATH holds no layout yet. NotFound for a missing PATH, or one without a
// layout when not create; InvalidArgument for a PATH that is neither a block
// device nor a regular file, a geometry that does not fit (or a layout whose
// block size is not a multiple of the device's), or a PATH that holds
// other data (its first MiB is not zero: a filesystem or partition table,
// which ForgetBlockDeviceLayout clears); Busy if another process holds it
// (mounted, or opened exclusively); Corruption for a damaged header or zone
// table or a PATH smaller than its layout; IOError from the drive.
Status OpenBlockDevice(const DeviceUri& uri, bool create, std::unique_ptr<ZonedDevice>* device,
                       StoredProfile* profile);

// Zeros PATH's first MiB (the layout's header, or another filesystem's
// signatures), so that the next OpenBlockDevice with create lays it out anew.
// NotFound for a missing PATH, Busy if another process holds it, IOError.
Status ForgetBlockDeviceLayout(const DeviceUri& uri);

}  // namespace hintfs

#endif  // HINTFS_FS_DEVICE_BLOCK_DEVICE_H_
