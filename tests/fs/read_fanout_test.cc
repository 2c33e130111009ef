// ReadFanout runs every task of a read exactly once, at the same time, and
// serves many readers at once.
#include "fs/read_fanout.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace hintfs {
namespace {

TEST(ReadFanoutTest, EveryTaskRunsOnce) {
  ReadFanout fanout(2);
  for (size_t n = 0; n <= 6; n++) {
    std::vector<std::atomic<int>> runs(n);
    std::vector<std::function<void()>> tasks;
    for (size_t i = 0; i < n; i++) tasks.push_back([&runs, i] { runs[i]++; });
    fanout.Run(tasks);
    for (size_t i = 0; i < n; i++) EXPECT_EQ(runs[i].load(), 1) << n << " tasks, task " << i;
  }
}

TEST(ReadFanoutTest, ThePiecesOfAReadRunTogether) {
  // Each task waits for the other to start: run one after the other, the
  // first would give up waiting.
  ReadFanout fanout(1);
  std::mutex mu;
  std::condition_variable cv;
  int started = 0;
  bool met[2] = {false, false};
  auto meet = [&](int i) {
    std::unique_lock<std::mutex> l(mu);
    started++;
    cv.notify_all();
    met[i] = cv.wait_for(l, std::chrono::seconds(20), [&] { return started == 2; });
  };
  fanout.Run({[&] { meet(0); }, [&] { meet(1); }});
  EXPECT_TRUE(met[0]);
  EXPECT_TRUE(met[1]);
}

TEST(ReadFanoutTest, ManyReadersAtOnce) {
  ReadFanout fanout(2);  // fewer threads than readers: callers run what waits
  constexpr int kReaders = 8, kReads = 300, kPieces = 3;
  std::vector<std::vector<int>> sums(kReaders, std::vector<int>(kReads, 0));
  std::vector<std::thread> readers;
  for (int r = 0; r < kReaders; r++) {
    readers.emplace_back([&, r] {
      for (int k = 0; k < kReads; k++) {
        std::atomic<int> sum{0};
        std::vector<std::function<void()>> tasks;
        for (int p = 0; p < kPieces; p++) tasks.push_back([&sum, p] { sum += 1 << p; });
        fanout.Run(tasks);
        sums[r][k] = sum.load();
      }
    });
  }
  for (std::thread& t : readers) t.join();
  for (int r = 0; r < kReaders; r++) {
    for (int k = 0; k < kReads; k++) ASSERT_EQ(sums[r][k], (1 << kPieces) - 1) << r << "/" << k;
  }
}

}  // namespace
}  // namespace hintfs
