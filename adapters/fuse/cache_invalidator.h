// What the FUSE mount does when a write-back fails (no space, a device
// error): the program's write() returned long ago, so the daemon logs it and
// drops the kernel's cached pages of the file, so reads show what the file
// holds. Not from the failed request's thread: the kernel waits for that
// request's pages before it drops them, so a thread of its own does it.
#ifndef HINTFS_ADAPTERS_FUSE_CACHE_INVALIDATOR_H_
#define HINTFS_ADAPTERS_FUSE_CACHE_INVALIDATOR_H_

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "fs/status.h"

struct fuse;

namespace hintfs {

// Logs a failed write-back on stderr, one line a second at most: a program
// that keeps writing to a full filesystem must not fill the daemon's log;
// the count of the lines left out goes with the next one.
void LogFailedWriteBack(const Status& s);

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
