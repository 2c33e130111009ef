// Drops the kernel's cached pages of a file whose write-back the FUSE mount
// refused, so reads show what the file holds. Not from the refused request's
// thread: the kernel waits for that request's pages before it drops them, so
// a thread of its own does it.
#ifndef HINTFS_ADAPTERS_FUSE_CACHE_INVALIDATOR_H_
#define HINTFS_ADAPTERS_FUSE_CACHE_INVALIDATOR_H_

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

struct fuse;

namespace hintfs {

class CacheInvalidator {
 public:
  // Starts the thread, for the session f.
  void Start(fuse* f);
  // Queues path (a no-op before Start or after Stop).
  void Invalidate(const std::string& path);
  // Before the session goes: no invalidation may outlive it.
  void Stop();

 private:
  void Run();

  std::mutex mu_;
  std::condition_variable cv_;
  fuse* fuse_ = nullptr;
  bool stop_ = false;
  std::deque<std::string> paths_;
  std::thread thread_;
};

}  // namespace hintfs

#endif  // HINTFS_ADAPTERS_FUSE_CACHE_INVALIDATOR_H_
