// Helpers shared by the fs tests: unique mem device names and scratch dirs.
#ifndef HINTFS_TESTS_FS_TEST_UTIL_H_
#define HINTFS_TESTS_FS_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "fs/status.h"

namespace hintfs {
namespace test {

#define ASSERT_OK(expr)                               \
  do {                                                \
    ::hintfs::Status _s = (expr);                     \
    ASSERT_TRUE(_s.ok()) << #expr << ": " << _s.ToString(); \
  } while (0)
#define EXPECT_OK(expr)                               \
  do {                                                \
    ::hintfs::Status _s = (expr);                     \
    EXPECT_TRUE(_s.ok()) << #expr << ": " << _s.ToString(); \
  } while (0)

// A name no other test in this process uses.
inline std::string UniqueName(const std::string& prefix) {
  static std::atomic<int> counter{0};
  return prefix + std::to_string(::getpid()) + "_" + std::to_string(counter++);
}

// A fresh directory under TMPDIR, removed when the object dies.
class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "hintfs-test-XXXXXX").string();
    path_ = ::mkdtemp(&tmpl[0]);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Makes (or remakes) a zero-filled file of size bytes, as a blk: device's
// preallocated file; false if it cannot.
inline bool MakeFileOfSize(const std::string& path, uint64_t size) {
  std::error_code ec;
  { std::ofstream create(path, std::ios::binary | std::ios::trunc); }
  std::filesystem::resize_file(path, size, ec);
  return !ec;
}

}  // namespace test
}  // namespace hintfs

#endif  // HINTFS_TESTS_FS_TEST_UTIL_H_
