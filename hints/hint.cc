#include <chrono>

#include "hints/hint.h"
#include "hints/hint_bus.h"

namespace hintfs {

const char* HintKindName(Hint::Kind kind) {
  switch (kind) {
    case Hint::Kind::kFlushBegin: return "flush-begin";
    case Hint::Kind::kTableFileCreation: return "table-file-creation";
    case Hint::Kind::kCompactionBegin: return "compaction-begin";
    case Hint::Kind::kCompactionOutput: return "compaction-output";
    case Hint::Kind::kCompactionEnd: return "compaction-end";
    case Hint::Kind::kFileDeleted: return "file-deleted";
    case Hint::Kind::kBlockEvicted: return "block-evicted";
    case Hint::Kind::kLifetime: return "lifetime";
    case Hint::Kind::kTemperature: return "temperature";
  }
  return "unknown";
}

uint64_t HintBus::Subscribe(Subscriber fn) {
  std::lock_guard<std::mutex> l(mu_);
  subscribers_.emplace_back(next_id_, std::move(fn));
  return next_id_++;
}

void HintBus::Unsubscribe(uint64_t id) {
  std::lock_guard<std::mutex> l(mu_);
  for (auto it = subscribers_.begin(); it != subscribers_.end(); ++it) {
    if (it->first == id) {
      subscribers_.erase(it);
      return;
    }
  }
}

void HintBus::Publish(Hint hint) {
  if (hint.time_ns == 0) {
    hint.time_ns = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                             std::chrono::steady_clock::now().time_since_epoch())
                                             .count());
  }
  std::lock_guard<std::mutex> l(mu_);
  published_++;
  for (auto& [id, fn] : subscribers_) fn(hint);
}

uint64_t HintBus::published() const {
  std::lock_guard<std::mutex> l(mu_);
  return published_;
}

}  // namespace hintfs
