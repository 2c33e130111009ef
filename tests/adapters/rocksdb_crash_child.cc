// Crash-test child: writes keys start, start+1, ... to a RocksDB on hintfs
// with sync=true and prints each index once the Put returned, until killed.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <rocksdb/db.h>
#include <rocksdb/convenience.h>
#include <rocksdb/env.h>

#include "adapters/rocksdb/hintfs_rocksdb.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s SPEC DBPATH START\n", argv[0]);
    return 2;
  }
  // Linking is not loading: a program that links the plugin registers it.
  hintfs::RegisterHintfsWithRocksDb();
  std::shared_ptr<rocksdb::FileSystem> fs;
  rocksdb::ConfigOptions cfg;
  rocksdb::Status s = rocksdb::FileSystem::CreateFromString(cfg, std::string("hintfs://") + argv[1], &fs);
  if (!s.ok()) {
    std::fprintf(stderr, "child: %s\n", s.ToString().c_str());
    return 1;
  }
  auto env = rocksdb::NewCompositeEnv(fs);
  rocksdb::Options options;
  options.env = env.get();
  options.create_if_missing = true;
  options.write_buffer_size = 128 << 10;
  options.target_file_size_base = 128 << 10;
  rocksdb::DB* db = nullptr;
  s = rocksdb::DB::Open(options, argv[2], &db);
  if (!s.ok()) {
    std::fprintf(stderr, "child: open: %s\n", s.ToString().c_str());
    return 1;
  }
  rocksdb::WriteOptions wo;
  wo.sync = true;
  for (long i = std::atol(argv[3]);; i++) {
    char key[32];
    std::snprintf(key, sizeof(key), "key%010ld", i);
    s = db->Put(wo, key, std::string("value-") + key + std::string(100, 'x'));
    if (!s.ok()) {
      std::fprintf(stderr, "child: put: %s\n", s.ToString().c_str());
      return 1;
    }
    std::string line = std::to_string(i) + "\n";
    if (write(STDOUT_FILENO, line.data(), line.size()) < 0) return 1;
  }
}
