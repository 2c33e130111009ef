// The benchmark's store wrapper: both engines, with and without a Bloom
// filter, keep every record across a reopen; a key never written is no error.
#include "adapters/bench/kv_store.h"

#include <gtest/gtest.h>

#include "tests/fs/test_util.h"

namespace hintfs {
namespace {

void RoundTrip(const std::string& engine, int bloom_bits) {
  test::ScratchDir dir;
  KvStoreOptions o;
  o.engine = engine;
  o.host_dir = dir.File("db");
  o.bloom_bits = bloom_bits;
  o.block_cache_bytes = 64 << 10;
  for (int pass = 0; pass < 2; pass++) {  // write, then reopen and read
    std::unique_ptr<KvStore> store;
    std::string error;
    bool usage = false;
    ASSERT_TRUE(OpenKvStore(o, &store, &error, &usage)) << error;
    for (int i = 0; i < 3000; i++) {
      std::string key = "key" + std::to_string(i), value;
      if (pass == 0) {
        ASSERT_TRUE(store->Put(key, std::string(100, static_cast<char>('a' + i % 26))));
      } else {
        ASSERT_TRUE(store->Get(key, &value)) << key;
        EXPECT_EQ(value, std::string(100, static_cast<char>('a' + i % 26))) << key;
      }
    }
    std::string value;
    ASSERT_TRUE(store->Get("absent", &value));  // not found is no error
    ASSERT_TRUE(store->Close());
  }
}

TEST(KvStore, RocksDbWithoutAndWithABloomFilter) {
  RoundTrip("rocksdb", 0);
  RoundTrip("rocksdb", 10);
}

TEST(KvStore, LevelDbWithoutAndWithABloomFilter) {
  RoundTrip("leveldb", 0);
  RoundTrip("leveldb", 10);
}

}  // namespace
}  // namespace hintfs
