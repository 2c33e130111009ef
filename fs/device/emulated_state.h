// The state a logically zoned device keeps (zone write pointers and
// conditions, geometry, stored profile), where it keeps its bytes (memory, an
// image file, a conventional block device) and the image format at the front
// of a file or block device: shared by the device (emulated_device.cc), its
// image file (emulated_image.cc), the blk: backend (block_device.cc) and the
// format (image_format.cc). Internal to fs/device.
#ifndef HINTFS_FS_DEVICE_EMULATED_STATE_H_
#define HINTFS_FS_DEVICE_EMULATED_STATE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "fs/device/emulated_device.h"
#include "fs/uri.h"

namespace hintfs {
namespace emulated {

constexpr uint32_t kMaxZones = 1u << 22;

// Mutable state of one zone. Offsets are relative to the zone start.
struct ZoneState {
  uint64_t wp = 0;
  ZoneCondition condition = ZoneCondition::kEmpty;
  uint64_t durable_wp = 0;  // write pointer as of the last Flush()
  uint64_t resets = 0;      // tells a Flush that the zone was reset while it synced
};

// Where a device keeps its bytes and zone table.
class Backing {
 public:
  virtual ~Backing() = default;
  virtual Status ReadData(uint64_t offset, size_t n, char* buf) = 0;
  // The bytes at offset in place, if they are in memory (ZonedDevice::ReadView).
  virtual const char* View(uint64_t offset, size_t n) {
    static_cast<void>(offset);
    static_cast<void>(n);
    return nullptr;
  }
  virtual Status WriteData(uint64_t offset, const char* data, size_t n) = 0;
  virtual Status DiscardZone(uint32_t zone) = 0;
  virtual Status PersistZone(uint32_t zone, const ZoneState& state) = 0;
  virtual Status PersistPowerCycles(uint64_t power_cycles) = 0;
  virtual Status Sync() = 0;
  // Whether the device may pretend to lose power (SimulatePowerLoss): true
  // for emulated bytes, false for a real device's.
  virtual bool simulates_power_loss() const { return true; }
};

// Zone states shared by all handles of one emulated device.
struct DeviceState {
  std::mutex mu;  // zone states; never held while bytes are copied
  std::unique_ptr<std::mutex[]> zone_write_mu;  // one writer per zone at a time
  DeviceGeometry geometry;
  StoredProfile profile;
  std::vector<ZoneState> zones;
  uint64_t power_cycles = 0;  // simulated power losses so far
};

inline bool IsOpenCondition(ZoneCondition c) {
  return c == ZoneCondition::kImplicitOpen || c == ZoneCondition::kExplicitOpen;
}

// InvalidArgument naming the field of g that no device could have.
Status ValidateGeometry(const DeviceGeometry& g);
// The geometry a URI asks for (zone_size, zone_capacity, zones, conv_zones,
// block_size, max_open, max_active); InvalidArgument if it is not one.
Status GeometryFromUri(const DeviceUri& uri, DeviceGeometry* g);
// Geometry keys in a URI that opens an existing device must agree with it:
// InvalidArgument otherwise.
Status CheckGeometryMatches(const DeviceUri& uri, const DeviceGeometry& actual);

// The image format (docs/formats.md, "Emulated device image"): a 4 KiB
// header, then one 16-byte entry per zone, then the data at a 1 MiB-aligned
// offset.
constexpr uint64_t kHeaderSize = 4096;
constexpr uint64_t kZoneEntrySize = 16;
// Where zone 0's bytes start for a device of zone_count zones.
uint64_t ImageDataOffset(uint32_t zone_count);
std::string EncodeImageHeader(const DeviceGeometry& g, const StoredProfile& p, uint64_t data_offset,
                              uint64_t power_cycles);
std::string EncodeZoneEntry(const ZoneState& z);
// NotFound (no hintfs header: the wrong file, or one never formatted),
// Corruption (checksum, fields out of range), NotSupported (another version).
Status DecodeImageHeader(std::string_view header, DeviceGeometry* g, StoredProfile* p,
                         uint64_t* data_offset, uint64_t* power_cycles, const std::string& path);
// Fills *zones from a zone table; open zones come back closed, as after a
// power cycle. Corruption for an entry that fails its checksum or its rules.
Status DecodeZoneTable(std::string_view table, const DeviceGeometry& g, const std::string& path,
                       std::vector<ZoneState>* zones);
// header (kHeaderSize bytes) with a new power-loss count and checksum.
std::string HeaderWithPowerCycles(std::string header, uint64_t power_cycles);

// Whole-range pread and pwrite, retried on EINTR; a pread past the end of a
// file reads zeros (a sparse image's tail). IOError with the errno.
Status PreadFd(int fd, uint64_t offset, size_t n, char* buf);
Status PwriteFd(int fd, uint64_t offset, const char* data, size_t n);

// The device over a state and its backing, enforcing the zone rules of a
// real drive; uri is what uri() reports.
std::unique_ptr<ZonedDevice> NewLogicalZoneDevice(std::string uri, std::shared_ptr<DeviceState> state,
                                                  std::unique_ptr<Backing> backing);

// Opens, or with create makes, the image file uri names (docs/formats.md,
// "Emulated device image"), holding its flock until the backing is gone.
// NotFound, Busy (another handle holds it), Corruption (bad header or zone
// table, an image shorter than its geometry), NotSupported (another image
// version), InvalidArgument (bad options), IOError.
Status OpenImage(const DeviceUri& uri, bool create, std::shared_ptr<DeviceState>* state,
                 std::unique_ptr<Backing>* backing);

}  // namespace emulated
}  // namespace hintfs

#endif  // HINTFS_FS_DEVICE_EMULATED_STATE_H_
