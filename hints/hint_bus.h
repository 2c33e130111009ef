// HintBus: a mount's channel for hints. Sources publish from any thread;
// every subscriber sees every hint in publish order (one at a time, so a
// subscriber needs no lock of its own against other hints).
#ifndef HINTFS_HINTS_HINT_BUS_H_
#define HINTFS_HINTS_HINT_BUS_H_

#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include "hints/hint.h"

namespace hintfs {

class HintBus {
 public:
  using Subscriber = std::function<void(const Hint&)>;

  // Returns an id for Unsubscribe.
  uint64_t Subscribe(Subscriber fn);
  void Unsubscribe(uint64_t id);
  // Stamps the time if unset and delivers the hint to every subscriber.
  void Publish(Hint hint);
  uint64_t published() const;

 private:
  mutable std::mutex mu_;
  std::vector<std::pair<uint64_t, Subscriber>> subscribers_;
  uint64_t next_id_ = 1;
  uint64_t published_ = 0;
};

}  // namespace hintfs

#endif  // HINTFS_HINTS_HINT_BUS_H_
