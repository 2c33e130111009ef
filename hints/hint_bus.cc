#include "hints/hint_bus.h"

#include "fs/clock.h"

namespace hintfs {

uint64_t HintBus::Subscribe(Subscriber fn) {
  std::lock_guard<std::mutex> l(mu_);
  auto list = std::make_shared<List>(*subscribers_);
  list->emplace_back(next_id_, std::make_shared<Subscriber>(std::move(fn)));
  subscribers_ = std::move(list);
  return next_id_++;
}

void HintBus::Unsubscribe(uint64_t id) {
  {
    std::lock_guard<std::mutex> l(mu_);
    auto list = std::make_shared<List>(*subscribers_);
    for (auto it = list->begin(); it != list->end(); ++it) {
      if (it->first == id) {
        list->erase(it);
        break;
      }
    }
    subscribers_ = std::move(list);
  }
  // A delivery under way on another thread may still hold the old list:
  // wait for it, so the subscriber is not called after this returns.
  if (!InCallback()) {
    std::lock_guard<std::mutex> wait(delivery_mu_);
  }
}

void HintBus::Publish(Hint hint) {
  if (hint.time_ns == 0) hint.time_ns = MonotonicNs();
  {
    std::lock_guard<std::mutex> l(mu_);
    published_++;
    if (InCallback()) {  // delivered by the delivery under way, after the current hint
      queued_.push_back(std::move(hint));
      return;
    }
  }
  std::lock_guard<std::mutex> d(delivery_mu_);
  delivering_ = std::this_thread::get_id();
  for (;;) {
    std::shared_ptr<const List> list;
    {
      std::lock_guard<std::mutex> l(mu_);
      list = subscribers_;
    }
    for (const auto& entry : *list) (*entry.second)(hint);
    std::lock_guard<std::mutex> l(mu_);
    if (queued_.empty()) break;
    hint = std::move(queued_.front());
    queued_.pop_front();
  }
  delivering_ = std::thread::id();
}

uint64_t HintBus::published() const {
  std::lock_guard<std::mutex> l(mu_);
  return published_;
}

}  // namespace hintfs
