#include "fs/status.h"

namespace hintfs {

std::string Status::ToString() const {
  const char* prefix = "";
  switch (code_) {
    case Code::kOk: return "OK";
    case Code::kNotFound: prefix = "Not found: "; break;
    case Code::kCorruption: prefix = "Corruption: "; break;
    case Code::kNotSupported: prefix = "Not supported: "; break;
    case Code::kInvalidArgument: prefix = "Invalid argument: "; break;
    case Code::kIOError: prefix = "IO error: "; break;
    case Code::kNoSpace: prefix = "No space: "; break;
    case Code::kBusy: prefix = "Busy: "; break;
    case Code::kAlreadyExists: prefix = "Already exists: "; break;
  }
  return prefix + message_;
}

}  // namespace hintfs
