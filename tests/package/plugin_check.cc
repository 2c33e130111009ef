// A program linked with a RocksDB built with hintfs inside (ROCKSDB_PLUGINS=
// hintfs): no LD_PRELOAD, no hintfs library of its own. Opens a store on
// hintfs://mem:..., writes keys, reopens it and reads them back, with the
// listener named in options as an OPTIONS file would name it.
#include <cstdio>
#include <memory>
#include <string>

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/utilities/object_registry.h>

namespace {

int Fail(const std::string& what, const rocksdb::Status& s) {
  std::fprintf(stderr, "FAIL: %s: %s\n", what.c_str(), s.ToString().c_str());
  return 1;
}

}  // namespace

int main() {
  rocksdb::ConfigOptions config;
  rocksdb::Env* env = nullptr;
  std::shared_ptr<rocksdb::Env> env_guard;
  rocksdb::Status s = rocksdb::Env::CreateFromUri(config, "", "hintfs://mem:plugin-check", &env, &env_guard);
  if (!s.ok()) return Fail("hintfs:// is not registered", s);
  rocksdb::Options options;
  options.env = env;
  options.create_if_missing = true;
  options.write_buffer_size = 64 << 10;
  s = rocksdb::GetDBOptionsFromString(config, options, "listeners={HintfsEventListener}", &options);
  if (!s.ok()) return Fail("the listener is not registered", s);
  const int kKeys = 5000;
  for (int round = 0; round < 2; round++) {
    rocksdb::DB* raw = nullptr;
    s = rocksdb::DB::Open(options, "/db", &raw);
    if (!s.ok()) return Fail("open", s);
    std::unique_ptr<rocksdb::DB> db(raw);
    for (int i = 0; i < kKeys && round == 0; i++) {
      s = db->Put(rocksdb::WriteOptions(), "key" + std::to_string(i), std::string(200, 'a' + i % 26));
      if (!s.ok()) return Fail("put", s);
    }
    for (int i = 0; i < kKeys && round == 1; i++) {
      std::string value;
      s = db->Get(rocksdb::ReadOptions(), "key" + std::to_string(i), &value);
      if (!s.ok() || value != std::string(200, 'a' + i % 26)) return Fail("get key" + std::to_string(i), s);
    }
    s = db->Close();
    if (!s.ok()) return Fail("close", s);
  }
  std::printf("rocksdb plugin: ok (%d keys through hintfs://mem:plugin-check)\n", kKeys);
  return 0;
}
