// Writes enough to LevelDB and RocksDB for background flushes and
// compactions to run, reopens them and checks every key.
//   store_check DIR               both stores, default Env/FileSystem, on a
//                                 directory (a hintfs FUSE mount)
//   store_check --hintfs SPEC DB [N]  RocksDB only, on hintfs through the
//                                 plugin (SPEC as in hintfs://SPEC), N keys
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <leveldb/db.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>

#include "adapters/rocksdb/hintfs_rocksdb.h"

namespace {

std::string Key(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "k%08d", i);
  return buf;
}
std::string Value(int i, int round) { return std::to_string(i) + "/" + std::to_string(round) + std::string(180, 'v'); }

int Fail(const char* store, const std::string& what) {
  std::fprintf(stderr, "store_check: %s: %s\n", store, what.c_str());
  return 1;
}

// Writes rounds over n keys and returns the round each key was last written in.
template <typename Put>
bool Load(Put put, int n, int rounds, std::vector<int>* last) {
  std::mt19937 rng(5);
  last->assign(n, -1);
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < n; i++) {
      int k = static_cast<int>(rng() % n);
      if (!put(Key(k), Value(k, r))) return false;
      (*last)[k] = r;
    }
  }
  return true;
}

template <typename Get>
int Verify(const char* store, Get get, const std::vector<int>& last) {
  for (size_t k = 0; k < last.size(); k++) {
    std::string v;
    bool found = get(Key(static_cast<int>(k)), &v);
    if (last[k] < 0 ? found : (!found || v != Value(static_cast<int>(k), last[k]))) {
      return Fail(store, "wrong value for " + Key(static_cast<int>(k)));
    }
  }
  return 0;
}

// RocksDB with small files; env null means the default Env.
int CheckRocksDb(rocksdb::Env* env, const std::string& path, int n) {
  std::vector<int> last;
  for (int pass = 0; pass < 2; pass++) {
    rocksdb::Options o;
    o.env = env ? env : rocksdb::Env::Default();
    o.create_if_missing = true;
    o.write_buffer_size = 256 << 10;
    o.target_file_size_base = 256 << 10;
    o.max_bytes_for_level_base = 1 << 20;
    rocksdb::DB* raw = nullptr;
    rocksdb::Status s = rocksdb::DB::Open(o, path, &raw);
    if (!s.ok()) return Fail("rocksdb", s.ToString());
    std::unique_ptr<rocksdb::DB> db(raw);
    if (pass == 0) {
      if (!Load([&](const std::string& k, const std::string& v) { return db->Put(rocksdb::WriteOptions(), k, v).ok(); },
                n, 3, &last)) {
        return Fail("rocksdb", "put");
      }
    }
    int rc = Verify("rocksdb", [&](const std::string& k, std::string* v) { return db->Get(rocksdb::ReadOptions(), k, v).ok(); },
                    last);
    if (rc != 0) return rc;
    if (!db->Close().ok()) return Fail("rocksdb", "close");
  }
  return 0;
}

int CheckOnHintfs(const std::string& spec, const std::string& path, int n) {
  hintfs::RegisterHintfsWithRocksDb();
  std::shared_ptr<rocksdb::FileSystem> fs;
  rocksdb::ConfigOptions cfg;
  rocksdb::Status s = rocksdb::FileSystem::CreateFromString(cfg, "hintfs://" + spec, &fs);
  if (!s.ok()) return Fail("rocksdb", s.ToString());
  std::unique_ptr<rocksdb::Env> env = rocksdb::NewCompositeEnv(fs);
  int rc = CheckRocksDb(env.get(), path, n);
  if (rc == 0) std::printf("store_check: rocksdb on hintfs ok (%d keys)\n", n);
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 4 && argc <= 5 && std::strcmp(argv[1], "--hintfs") == 0) {
    int n = argc == 5 ? std::atoi(argv[4]) : 40000;
    if (n <= 0) {
      std::fprintf(stderr, "store_check: bad key count '%s'\n", argv[4]);
      return 2;
    }
    return CheckOnHintfs(argv[2], argv[3], n);
  }
  if (argc != 2) {
    std::fprintf(stderr, "usage: store_check DIR | store_check --hintfs SPEC DB [N]\n");
    return 2;
  }
  std::string dir = argv[1];
  const int n = 40000;
  std::vector<int> last;
  // LevelDB, default Env, small files so compactions run; the second pass
  // reopens and checks.
  for (int pass = 0; pass < 2; pass++) {
    leveldb::Options o;
    o.create_if_missing = true;
    o.write_buffer_size = 256 << 10;
    o.max_file_size = 256 << 10;
    leveldb::DB* raw = nullptr;
    leveldb::Status s = leveldb::DB::Open(o, dir + "/leveldb", &raw);
    if (!s.ok()) return Fail("leveldb", s.ToString());
    std::unique_ptr<leveldb::DB> db(raw);
    if (pass == 0) {
      if (!Load([&](const std::string& k, const std::string& v) { return db->Put(leveldb::WriteOptions(), k, v).ok(); },
                n, 3, &last)) {
        return Fail("leveldb", "put");
      }
    }
    int rc = Verify("leveldb", [&](const std::string& k, std::string* v) { return db->Get(leveldb::ReadOptions(), k, v).ok(); },
                    last);
    if (rc != 0) return rc;
  }
  // RocksDB, default FileSystem.
  int rc = CheckRocksDb(nullptr, dir + "/rocksdb", n);
  if (rc != 0) return rc;
  std::printf("store_check: leveldb and rocksdb ok\n");
  return 0;
}
