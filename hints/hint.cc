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
  }
  return "unknown";
}

}  // namespace hintfs
