#define FUSE_USE_VERSION 31

#include "adapters/fuse/cache_invalidator.h"

#include <fuse.h>

namespace hintfs {

void CacheInvalidator::Start(fuse* f) {
  std::lock_guard<std::mutex> l(mu_);
  fuse_ = f;
  stop_ = false;
  thread_ = std::thread([this] { Run(); });
}

void CacheInvalidator::Invalidate(const std::string& path) {
  std::lock_guard<std::mutex> l(mu_);
  if (fuse_ == nullptr) return;
  paths_.push_back(path);
  cv_.notify_one();
}

void CacheInvalidator::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (fuse_ == nullptr) return;
    stop_ = true;
    cv_.notify_one();
  }
  thread_.join();
  std::lock_guard<std::mutex> l(mu_);
  fuse_ = nullptr;
  paths_.clear();
}

void CacheInvalidator::Run() {
  std::unique_lock<std::mutex> l(mu_);
  for (;;) {
    cv_.wait(l, [this] { return stop_ || !paths_.empty(); });
    if (stop_) return;
    std::string path = std::move(paths_.front());
    paths_.pop_front();
    l.unlock();
    fuse_invalidate_path(fuse_, path.c_str());
    l.lock();
  }
}

}  // namespace hintfs
