// The zone model shared by every device backend, after the ZNS and ZBC/ZAC
// specifications: a device is an array of equally sized zones; a zone is
// either conventional (written anywhere) or sequential-write-required (written
// only at its write pointer, up to its capacity, which may be smaller than its
// size). Sequential zones move through the conditions below; "active" zones
// (open or closed) and "open" zones are limited by the device.
#ifndef HINTFS_FS_DEVICE_ZONE_H_
#define HINTFS_FS_DEVICE_ZONE_H_

#include <cstdint>
#include <string>

namespace hintfs {

enum class ZoneType : uint8_t {
  kConventional = 1,
  kSequentialWriteRequired = 2,
};

enum class ZoneCondition : uint8_t {
  kNotWritePointer = 0,  // conventional zones have no write pointer
  kEmpty = 1,
  kImplicitOpen = 2,
  kExplicitOpen = 3,
  kClosed = 4,
  kFull = 5,
  kReadOnly = 6,
  kOffline = 7,
};

struct ZoneInfo {
  uint32_t index = 0;
  uint64_t start = 0;          // device byte offset of the zone's first byte
  uint64_t size = 0;           // distance to the next zone
  uint64_t capacity = 0;       // writable bytes, <= size
  uint64_t write_pointer = 0;  // device byte offset of the next write
  ZoneType type = ZoneType::kSequentialWriteRequired;
  ZoneCondition condition = ZoneCondition::kEmpty;

  bool is_sequential() const { return type == ZoneType::kSequentialWriteRequired; }
};

// Open (implicitly or explicitly) or closed: the zones a device's limit on
// active zones counts.
inline bool IsActiveCondition(ZoneCondition c) {
  return c == ZoneCondition::kImplicitOpen || c == ZoneCondition::kExplicitOpen || c == ZoneCondition::kClosed;
}

const char* ZoneTypeName(ZoneType type);
const char* ZoneConditionName(ZoneCondition condition);

}  // namespace hintfs

#endif  // HINTFS_FS_DEVICE_ZONE_H_
