#include "fs/device/zone.h"

namespace hintfs {

const char* ZoneTypeName(ZoneType type) {
  switch (type) {
    case ZoneType::kConventional: return "conventional";
    case ZoneType::kSequentialWriteRequired: return "seq-write-required";
  }
  return "unknown";
}

const char* ZoneConditionName(ZoneCondition condition) {
  switch (condition) {
    case ZoneCondition::kNotWritePointer: return "not-wp";
    case ZoneCondition::kEmpty: return "empty";
    case ZoneCondition::kImplicitOpen: return "implicit-open";
    case ZoneCondition::kExplicitOpen: return "explicit-open";
    case ZoneCondition::kClosed: return "closed";
    case ZoneCondition::kFull: return "full";
    case ZoneCondition::kReadOnly: return "read-only";
    case ZoneCondition::kOffline: return "offline";
  }
  return "unknown";
}

}  // namespace hintfs
