// LevelDB and RocksDB, unmodified and with their default Env/FileSystem, on
// a directory (a hintfs FUSE mount): write enough for background
// compactions to run, reopen, verify.
//   fuse_stores DIR
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <leveldb/db.h>
#include <rocksdb/db.h>

namespace {

std::string Key(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "k%08d", i);
  return buf;
}
std::string Value(int i, int round) { return std::to_string(i) + "/" + std::to_string(round) + std::string(180, 'v'); }

int Fail(const char* store, const std::string& what) {
  std::fprintf(stderr, "fuse_stores: %s: %s\n", store, what.c_str());
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

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuse_stores DIR\n");
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
  for (int pass = 0; pass < 2; pass++) {
    rocksdb::Options o;
    o.create_if_missing = true;
    o.write_buffer_size = 256 << 10;
    o.target_file_size_base = 256 << 10;
    o.max_bytes_for_level_base = 1 << 20;
    rocksdb::DB* raw = nullptr;
    rocksdb::Status s = rocksdb::DB::Open(o, dir + "/rocksdb", &raw);
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
  std::printf("fuse_stores: leveldb and rocksdb ok\n");
  return 0;
}
