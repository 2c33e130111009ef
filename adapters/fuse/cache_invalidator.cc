#define FUSE_USE_VERSION 31

#include "adapters/fuse/cache_invalidator.h"

#include <fuse.h>

#include <chrono>
#include <cstdio>

#include <fmt/format.h>

namespace hintfs {

void LogFailedWriteBack(const Status& s) {
  static std::mutex mu;
  static std::chrono::steady_clock::time_point last;
  static uint64_t skipped = 0;
  std::lock_guard<std::mutex> l(mu);
  auto now = std::chrono::steady_clock::now();
  if (last.time_since_epoch().count() != 0 && now - last < std::chrono::seconds(1)) {
    skipped++;
    return;
  }
  std::string more = skipped > 0 ? fmt::format(" ({} more since the last line)", skipped) : "";
  std::fprintf(stderr, "hintfs mount: write-back failed: %s%s\n", s.ToString().c_str(), more.c_str());
  last = now;
  skipped = 0;
}

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
