// The state an emulated device keeps (zone write pointers and conditions,
// geometry, stored profile) and where it keeps its bytes (memory or an image
// file): shared by the device (emulated_device.cc) and its image file
// (emulated_image.cc). Internal to fs/device.
#ifndef HINTFS_FS_DEVICE_EMULATED_STATE_H_
#define HINTFS_FS_DEVICE_EMULATED_STATE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
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
