// An allocation policy for tests that records the write-life-time hint
// each file asks its first zone with, and otherwise places as fast-first
// does (every zone of lifetime class 0).
#ifndef HINTFS_TESTS_HINTS_HINT_RECORDER_H_
#define HINTFS_TESTS_HINTS_HINT_RECORDER_H_

#include <map>
#include <mutex>
#include <string>

#include "fs/allocation.h"

namespace hintfs {
namespace test {

class HintRecorder : public FastFirstPolicy {
 public:
  std::string name() const override { return "hint-recorder-test"; }
  uint8_t LifetimeClass(const AllocationRequest& request) override {
    // Writers ask from the store's threads and the filesystem's own.
    std::lock_guard<std::mutex> l(mu_);
    hints_[request.path] = request.lifetime_hint;
    return 0;
  }
  // The hint path's file asked its zone with; -1 if it never asked.
  int HintOf(const std::string& path) {
    std::lock_guard<std::mutex> l(mu_);
    auto it = hints_.find(path);
    return it == hints_.end() ? -1 : it->second;
  }
  // The hint of the first file (by name) whose path starts with prefix; -1
  // if none asked: a file written under another name and renamed.
  int HintOfPathStartingWith(const std::string& prefix) {
    std::lock_guard<std::mutex> l(mu_);
    auto it = hints_.lower_bound(prefix);
    return it == hints_.end() || it->first.compare(0, prefix.size(), prefix) != 0 ? -1 : it->second;
  }

 private:
  std::mutex mu_;
  std::map<std::string, int> hints_;
};

}  // namespace test
}  // namespace hintfs

#endif  // HINTFS_TESTS_HINTS_HINT_RECORDER_H_
