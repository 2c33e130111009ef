// A one-line progress bar on stderr, drawn only when stderr is a terminal, so
// scripts and logs stay clean.
#ifndef HINTFS_ADAPTERS_CLI_PROGRESS_H_
#define HINTFS_ADAPTERS_CLI_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <string>

namespace hintfs {

class ProgressBar {
 public:
  // bytes: show done/total as sizes rather than counts.
  ProgressBar(std::string label, bool bytes);
  ~ProgressBar();

  void Update(uint64_t done, uint64_t total);
  void Finish();

 private:
  std::string label_;
  bool bytes_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace hintfs

#endif  // HINTFS_ADAPTERS_CLI_PROGRESS_H_
