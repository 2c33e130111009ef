// ZonedDevice is the one interface every storage backend implements: the
// emulated file and memory devices, conventional block devices carved into
// logical zones (blk:, block_device.h), the kernel zoned block devices
// (libzbd) and NVMe ZNS namespaces (libnvme). Decorators add timing
// (timing_profile.h), faults (fault_injection.h) and, on a real disk, its
// nominal speed figures (device_figures.h) to any of them.
//
// Offsets are device byte offsets. Writes must be aligned to block_size and
// must start at the zone's write pointer (sequential zones); reads may touch
// only written bytes. Every violation fails the way a drive would, with the
// errno a kernel would report (EINVAL for misaligned or misplaced I/O, EIO for
// media errors, ETOOMANYREFS-like EBUSY when open/active limits are exceeded).
#ifndef HINTFS_FS_DEVICE_ZONED_DEVICE_H_
#define HINTFS_FS_DEVICE_ZONED_DEVICE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fs/status.h"
#include "fs/device/zone.h"

namespace hintfs {

struct DeviceGeometry {
  uint32_t zone_count = 0;
  uint32_t conventional_zones = 0;  // zones [0, conventional_zones) are conventional
  uint64_t zone_size = 0;
  uint64_t zone_capacity = 0;
  uint32_t block_size = 4096;
  uint32_t max_open_zones = 0;    // 0: no limit
  uint32_t max_active_zones = 0;  // 0: no limit

  uint64_t capacity_bytes() const { return zone_size * zone_count; }
  uint64_t zone_start(uint32_t zone) const { return zone_size * zone; }
};

class ZonedDevice {
 public:
  virtual ~ZonedDevice() = default;

  // The URI this device was opened with, without volatile options.
  virtual std::string uri() const = 0;
  virtual const DeviceGeometry& geometry() const = 0;

  // Fills *zones with the state of zones [first, first + count).
  virtual Status ReportZones(uint32_t first, uint32_t count, std::vector<ZoneInfo>* zones) = 0;
  Status ReportZone(uint32_t zone, ZoneInfo* info);

  virtual Status Read(uint64_t offset, size_t n, char* buf) = 0;
  // Where [offset, offset + n) can be read in place, for a device whose
  // bytes live in this process's memory (an emulated device): valid while
  // the device is open and the zone is not reset. nullptr if the device has
  // no such memory or Read would refuse the range (Read then says why).
  virtual const char* ReadView(uint64_t offset, size_t n) {
    static_cast<void>(offset);
    static_cast<void>(n);
    return nullptr;
  }
  // Writes n bytes at offset, which must be the zone's write pointer for a
  // sequential zone. Implicitly opens an empty or closed zone.
  virtual Status Write(uint64_t offset, const char* data, size_t n) = 0;
  // Zone append: the device picks the offset (the write pointer) and reports
  // it, so several writers may append to one zone without ordering.
  virtual Status Append(uint32_t zone, const char* data, size_t n, uint64_t* written_offset) = 0;

  virtual Status OpenZone(uint32_t zone) = 0;
  virtual Status CloseZone(uint32_t zone) = 0;
  virtual Status FinishZone(uint32_t zone) = 0;
  virtual Status ResetZone(uint32_t zone) = 0;

  // Makes every completed write durable (a cache flush). Until then a power
  // cut may drop any suffix of the writes of each zone.
  virtual Status Flush() = 0;

  // Random 4 KiB reads per second the device is known or modelled to serve
  // (a timing profile's figure); 0 when unknown.
  virtual double random_read_iops() const { return 0; }
  // Microseconds a random 4 KiB read takes at queue depth one, known or
  // modelled (a timing profile's access time); 0 when unknown.
  virtual double random_read_latency_us() const { return 0; }
  // Sequential read bandwidth in MiB/s, known or modelled; 0 when unknown.
  virtual double read_mib_per_s() const { return 0; }
  // Nanoseconds the device had at least one request in service since it was
  // opened, as its timing profile models it (iostat's %util over a span is
  // the growth of this over the span's length); 0 when unknown.
  virtual uint64_t busy_ns() const { return 0; }
  // How many times the device lost power, as far as it knows: emulated
  // devices count simulated power losses (SimulatePowerLoss); 0 if unknown.
  // Host memory that outlived the process (a host log, fs/host_log.h) is
  // stale once this changes.
  virtual uint64_t power_cycles() const { return 0; }

  // Emulated devices only: behave as if power was cut now, dropping writes
  // that were not flushed (seed picks how much of each zone's unflushed tail
  // survives). Other devices return NotSupported.
  virtual Status SimulatePowerLoss(uint64_t seed);

  uint32_t ZoneOf(uint64_t offset) const {
    return static_cast<uint32_t>(offset / geometry().zone_size);
  }
};

// Opens (or, when create is set and the device does not exist, creates) the
// device a URI names. Schemes: "file" and "mem" (emulated_device.h), "blk"
// (block_device.h; create lays out the zones of a device that has none),
// "zbd" and "nvme" (real zoned drives, kernel_zoned_device.h; create is
// ignored).
// Options understood by every scheme: profile=NAME, profile_scale=X
// (timing_profile.h) and fail_read=N, fail_write=N, fail_reset=N,
// power_cut_after=N, kill_after=N, power_domain=NAME (fault_injection.h).
Status OpenZonedDevice(const std::string& uri, bool create, std::unique_ptr<ZonedDevice>* device);

// Removes the emulated device (file image or mem device) a URI names, or
// clears the zone layout of a blk: device, so that the next OpenZonedDevice
// with create lays it out anew with the geometry its URI asks for. Nothing to
// do (OK) if it does not exist or the URI names a zoned drive, whose geometry
// is its own; InvalidArgument for a bad URI, Busy for a blk: device another
// process holds, IOError if an image cannot be removed or a layout cleared.
Status ForgetDeviceLayout(const std::string& uri);

// What OpenZonedDevice checks of a URI before it touches a device: syntax,
// scheme, option names and the values of the options above. InvalidArgument
// or NotSupported say what is wrong.
Status CheckDeviceUri(const std::string& uri);

// Whether reaching a block of device takes longer than transferring bytes
// sequentially (a disk's seek against a readahead window or a zone's worth
// of writes); false where the device's figures are unknown.
bool SeekOutweighsTransfer(const ZonedDevice& device, uint64_t bytes);

}  // namespace hintfs

#endif  // HINTFS_FS_DEVICE_ZONED_DEVICE_H_
