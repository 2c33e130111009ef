#include "hints/hint.h"

namespace hintfs {

const char* HintKindName(Hint::Kind kind) {
  switch (kind) {
    case Hint::Kind::kFlushBegin: return "flush-begin";
    case Hint::Kind::kTableFileCreation: return "table-file-creation";
    case Hint::Kind::kCompactionBegin: return "compaction-begin";
    case Hint::Kind::kCompactionOutput: return "compaction-output";
    case Hint::Kind::kCompactionEnd: return "compaction-end";
    case Hint::Kind::kFileDeleted: return "file-deleted";
    case Hint::Kind::kFileTemperature: return "file-temperature";
  }
  return "unknown";
}

const char* TemperatureName(Temperature t) {
  switch (t) {
    case Temperature::kUnknown: return "unknown";
    case Temperature::kHot: return "hot";
    case Temperature::kWarm: return "warm";
    case Temperature::kCold: return "cold";
  }
  return "unknown";
}

}  // namespace hintfs
