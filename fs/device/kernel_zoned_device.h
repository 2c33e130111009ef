// Real zoned devices reached through the kernel: host-managed SMR disks and
// ZNS namespaces as zoned block devices (libzbd, "zbd:/dev/sdX" or
// "zbd:/dev/nvme0n2") and ZNS namespaces through the NVMe generic character
// device (libnvme, "nvme:/dev/ng0n2").
//
// A drive enforces the zone rules itself, but it reports violations as bare
// EIO or NVMe status codes, and some (reads above the write pointer) it does
// not report at all. So both backends keep a shadow of every zone's write
// pointer, taken from a zone report at open and kept by this process's own
// writes, and check each request against it first: misplaced writes and
// reads of unwritten bytes fail with the same InvalidArgument as on the
// emulated device, before any I/O. Open/active limits are left to the drive;
// its "too many open/active zones" errors come back as Busy.
//
// The shadow is correct only while this process is the device's one writer;
// hintfs takes an exclusive open (O_EXCL) of a block device for that.
//
// Writes to one zone are serialized here (one writer per zone, each write in
// pieces no larger than the device's maximum transfer, issued in order), so
// the kernel's I/O scheduler may be mq-deadline or none. Buffers of any
// alignment are accepted: unaligned ones go through an aligned bounce buffer.
#ifndef HINTFS_FS_DEVICE_KERNEL_ZONED_DEVICE_H_
#define HINTFS_FS_DEVICE_KERNEL_ZONED_DEVICE_H_

#include <memory>
#include <shared_mutex>
#include <mutex>
#include <string>
#include <vector>

#include "fs/uri.h"
#include "fs/device/zoned_device.h"

namespace hintfs {

enum class ZoneAction { kOpen, kClose, kFinish, kReset };

// What a backend does with the drive. Offsets and lengths given to it are
// multiples of the drive's logical block size and buffers are aligned to
// io_alignment(); it need not check zone rules.
class ZoneCommands {
 public:
  virtual ~ZoneCommands() = default;

  // Geometry as the drive reports it (block_size: its logical block size).
  virtual const DeviceGeometry& geometry() const = 0;
  virtual uint32_t io_alignment() const = 0;
  // Largest single transfer; larger requests are split by the caller.
  virtual size_t max_transfer() const = 0;

  virtual Status Report(uint32_t first, uint32_t count, std::vector<ZoneInfo>* zones) = 0;
  virtual Status Read(uint64_t offset, size_t n, char* buf) = 0;
  virtual Status Write(uint64_t offset, const char* data, size_t n) = 0;
  // A native zone append of at most max_append() bytes, or NotSupported.
  virtual Status Append(uint32_t zone, const char* data, size_t n, uint64_t* written_offset) = 0;
  virtual size_t max_append() const { return 0; }
  virtual Status Manage(ZoneAction action, uint32_t zone) = 0;
  virtual Status Flush() = 0;
};

// Wraps a backend's commands into a ZonedDevice with the checks above.
// Fails with NotSupported for layouts the filesystem cannot use: zones of
// different sizes or capacities, or conventional zones after sequential ones.
Status NewKernelZonedDevice(std::string uri, std::unique_ptr<ZoneCommands> commands,
                            std::unique_ptr<ZonedDevice>* device);

// zbd:/dev/BLOCKDEV (zbd_device.cc). The device must be a host-managed zoned
// block device.
Status OpenZbdCommands(const std::string& path, std::unique_ptr<ZoneCommands>* commands);

// nvme:/dev/ngXnY (nvme_device.cc). The namespace must be a ZNS namespace.
Status OpenNvmeCommands(const std::string& path, std::unique_ptr<ZoneCommands>* commands);

// The largest transfer that reaches a drive as one request, from its block
// queue in sysfs (QUEUE is ".../queue/"): max_sectors_kb, and max_segments
// pages, since a user buffer is mapped page by page. 128 KiB if unreadable.
size_t QueueTransferLimit(const std::string& queue, const char* max_sectors_file);

// Turns an errno from a zoned I/O or zone-management request into a Status:
// the kernel's "too many open/active zones" (ETOOMANYREFS, EOVERFLOW) become
// Busy, EINVAL InvalidArgument, everything else IOError with the errno.
Status ZonedErrno(const std::string& what, int err);

}  // namespace hintfs

#endif  // HINTFS_FS_DEVICE_KERNEL_ZONED_DEVICE_H_
