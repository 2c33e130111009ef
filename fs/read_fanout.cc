#include "fs/read_fanout.h"

namespace hintfs {

ReadFanout::ReadFanout(size_t threads) : threads_wanted_(threads) {}

ReadFanout::~ReadFanout() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void ReadFanout::Run(const std::vector<std::function<void()>>& tasks) {
  if (tasks.empty()) return;
  if (tasks.size() == 1 || threads_wanted_ == 0) {
    for (const auto& task : tasks) task();
    return;
  }
  Batch batch;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (threads_.empty()) {
      for (size_t i = 0; i < threads_wanted_; i++) threads_.emplace_back([this] { Work(); });
    }
    for (size_t i = 1; i < tasks.size(); i++) queue_.push_back(Queued{&tasks[i], &batch});
  }
  wake_.notify_all();
  tasks[0]();
  // What no thread has started yet runs here: it would wait as long for one.
  std::vector<const std::function<void()>*> left;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (auto it = queue_.begin(); it != queue_.end();) {
      if (it->batch == &batch) {
        left.push_back(it->task);
        it = queue_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const auto* task : left) (*task)();
  std::unique_lock<std::mutex> l(batch.mu);
  batch.done.wait(l, [&] { return batch.running == 0; });
}

void ReadFanout::Work() {
  for (;;) {
    Queued q;
    {
      std::unique_lock<std::mutex> l(mu_);
      wake_.wait(l, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping
      q = queue_.front();
      queue_.pop_front();
      // Counted before mu_ is let go: the caller, which takes back what is
      // still queued under mu_, then waits for this one too.
      std::lock_guard<std::mutex> b(q.batch->mu);
      q.batch->running++;
    }
    (*q.task)();
    // The caller may return (and its batch go) once running is 0 and it
    // holds the batch's mutex again: nothing here touches the batch after.
    std::lock_guard<std::mutex> b(q.batch->mu);
    if (--q.batch->running == 0) q.batch->done.notify_all();
  }
}

}  // namespace hintfs
