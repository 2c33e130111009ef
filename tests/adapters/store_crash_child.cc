// Crash-test child: writes keys START, START+1, ... to RocksDB or LevelDB on
// hintfs and prints each index once its Put returned, until killed. After
// NEW keys it keeps rewriting the same keys with the same values (the WAL,
// flushes and compactions go on; the database stops growing).
//   store_crash_child ENGINE SPEC START sync|nosync NEW [DB_OPTIONS]
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "adapters/bench/kv_store.h"
#include "tests/adapters/crash_keys.h"

int main(int argc, char** argv) {
  if (argc < 6 || argc > 7 || (std::strcmp(argv[4], "sync") != 0 && std::strcmp(argv[4], "nosync") != 0)) {
    std::fprintf(stderr, "usage: %s ENGINE SPEC START sync|nosync NEW [DB_OPTIONS]\n", argv[0]);
    return 2;
  }
  hintfs::KvStoreOptions options;
  options.engine = argv[1];
  options.hintfs_spec = argv[2];
  options.sync_writes = std::strcmp(argv[4], "sync") == 0;
  if (argc == 7) options.db_options = argv[6];
  std::unique_ptr<hintfs::KvStore> store;
  std::string error;
  bool usage_error = false;
  if (!hintfs::OpenKvStore(options, &store, &error, &usage_error)) {
    std::fprintf(stderr, "child: %s\n", error.c_str());
    return usage_error ? 2 : 1;
  }
  const long start = std::atol(argv[3]), fresh = std::atol(argv[5]);
  for (long n = 0;; n++) {
    long i = start + (fresh > 0 ? n % fresh : n);
    if (!store->Put(hintfs::test::CrashKey(i), hintfs::test::CrashValue(i))) {
      std::fprintf(stderr, "child: put %ld failed\n", i);
      return 1;
    }
    if (n >= fresh && fresh > 0) continue;  // a rewrite: nothing new to report
    std::string line = std::to_string(i) + "\n";
    if (write(STDOUT_FILENO, line.data(), line.size()) < 0) return 1;
  }
}
