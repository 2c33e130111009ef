// ReadFanout: runs the pieces of one read at once. A read whose bytes lie in
// several places (extents on both tiers, or two runs of the fast tier, as
// block-granular tiering leaves a table block whose device blocks moved up
// with different neighbours, placement/block_tiering.h) is several device
// requests; issued one after another the read waits for their sum, issued
// together for the slowest. In YCSB B over an NVMe and a SATA SSD one read in
// six of those block tiering moved up was split so, each paying an NVMe
// access before its SATA one (docs/benchmarks.md).
//
// A few threads of its own, started at the first Run; the caller runs the
// first task itself and takes back the tasks no thread has started yet, so a
// busy fanout never makes a read wait longer than running its pieces in turn.
// Thread safe.
#ifndef HINTFS_FS_READ_FANOUT_H_
#define HINTFS_FS_READ_FANOUT_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace hintfs {

class ReadFanout {
 public:
  explicit ReadFanout(size_t threads);
  ~ReadFanout();  // waits for the running tasks; none may be queued then

  ReadFanout(const ReadFanout&) = delete;
  ReadFanout& operator=(const ReadFanout&) = delete;

  // Runs every task, at the same time as far as the threads allow, and
  // returns when all have returned. Tasks must not throw.
  void Run(const std::vector<std::function<void()>>& tasks);

 private:
  struct Batch {
    std::mutex mu;
    std::condition_variable done;
    size_t running = 0;  // tasks the threads took and have not finished
  };
  struct Queued {
    const std::function<void()>* task;
    Batch* batch;
  };
  void Work();

  const size_t threads_wanted_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<Queued> queue_;
  std::vector<std::thread> threads_;
  bool stopping_ = false;
};

}  // namespace hintfs

#endif  // HINTFS_FS_READ_FANOUT_H_
