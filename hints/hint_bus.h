// HintBus: a mount's channel for hints. Sources publish from any thread;
// every subscriber sees every hint in publish order, one at a time (so a
// subscriber needs no lock of its own against other hints).
//
// Subscribers are not called under the bus's lock: a subscriber may publish
// (the hint is delivered after the current one, in order), subscribe or
// unsubscribe from inside its callback. Once Unsubscribe returns (called
// from outside a callback), the subscriber is not called again.
#ifndef HINTFS_HINTS_HINT_BUS_H_
#define HINTFS_HINTS_HINT_BUS_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "hints/hint.h"

namespace hintfs {

class HintBus {
 public:
  using Subscriber = std::function<void(const Hint&)>;

  // Returns an id for Unsubscribe.
  uint64_t Subscribe(Subscriber fn);
  void Unsubscribe(uint64_t id);
  // Stamps the time (MonotonicNs) if unset and delivers the hint to every
  // subscriber.
  void Publish(Hint hint);
  uint64_t published() const;

 private:
  using List = std::vector<std::pair<uint64_t, std::shared_ptr<Subscriber>>>;
  bool InCallback() const { return delivering_.load() == std::this_thread::get_id(); }

  mutable std::mutex mu_;  // the list, the queue and the counters
  std::shared_ptr<const List> subscribers_ = std::make_shared<List>();  // replaced, never changed
  std::deque<Hint> queued_;  // published from inside a callback
  uint64_t next_id_ = 1;
  uint64_t published_ = 0;
  std::mutex delivery_mu_;  // one delivery at a time, in order
  std::atomic<std::thread::id> delivering_{};
};

}  // namespace hintfs

#endif  // HINTFS_HINTS_HINT_BUS_H_
