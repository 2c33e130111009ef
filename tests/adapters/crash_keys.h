// The keys and values the crash tests write, so the child that writes them
// and the test that checks them agree.
#ifndef HINTFS_TESTS_ADAPTERS_CRASH_KEYS_H_
#define HINTFS_TESTS_ADAPTERS_CRASH_KEYS_H_

#include <cstdio>
#include <string>

namespace hintfs {
namespace test {

inline std::string CrashKey(long i) {
  char key[32];
  std::snprintf(key, sizeof(key), "key%010ld", i);
  return key;
}

inline std::string CrashValue(long i) { return "value-" + CrashKey(i) + std::string(100, 'x'); }

}  // namespace test
}  // namespace hintfs

#endif  // HINTFS_TESTS_ADAPTERS_CRASH_KEYS_H_
