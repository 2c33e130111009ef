// ReadCounter: an I/O observer that counts the reads of the files a test
// cares about, to show that some work reads nothing (or exactly what it must).
#ifndef HINTFS_TESTS_FS_READ_COUNTER_H_
#define HINTFS_TESTS_FS_READ_COUNTER_H_

#include <atomic>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "fs/filesystem.h"

namespace hintfs {
namespace test {

class ReadCounter : public IoObserver {
 public:
  // counted(path): whether a read of path counts.
  explicit ReadCounter(std::function<bool(const std::string&)> counted) : counted_(std::move(counted)) {}

  void OnCreate(const std::string&, ZoneRole) override {}
  void OnLifetimeHint(const std::string&, int) override {}
  void OnAppend(const std::string&, std::string_view) override {}
  void OnClose(const std::string&, uint64_t) override {}
  void OnDelete(const std::string&) override {}
  void OnRead(const std::string& path, uint64_t, uint64_t, uint64_t) override {
    if (counted_(path)) reads++;
  }

  std::atomic<int> reads{0};

 private:
  std::function<bool(const std::string&)> counted_;
};

}  // namespace test
}  // namespace hintfs

#endif  // HINTFS_TESTS_FS_READ_COUNTER_H_
