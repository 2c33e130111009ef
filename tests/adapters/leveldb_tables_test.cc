// Opening every LevelDB table up front: the property's lines parse into one
// probe key per table, and opening by them reads every table's metadata
// once, so that reads after it open no table.
#include "adapters/bench/leveldb_tables.h"

#include <memory>
#include <mutex>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <leveldb/db.h>
#include <leveldb/env.h>

#include "tests/fs/test_util.h"

namespace hintfs {
namespace {

TEST(LevelDbTables, ParsesOneProbeKeyPerTable) {
  std::string sstables =
      "--- level 0 ---\n"
      " 7:1024['user1' @ 5 : 1 .. 'user9' @ 3 : 1]\n"
      "--- level 1 ---\n"
      " 8:2048['a\\x00b' @ 9 : 1 .. 'z\\xffq' @ 10 : 0]\n"
      " 9:10['same' @ 11 : 1 .. 'same' @ 4 : 1]\n"  // one user key: left to its first read
      " garbage line\n"
      " 10:20['it's' @ 1 : 1 .. 'o'k' @ 2 : 1]\n"  // quotes are not escaped
      "--- level 2 ---\n";
  std::vector<std::string> keys = LevelDbTableProbeKeys(sstables);
  ASSERT_EQ(keys.size(), 3u);
  EXPECT_EQ(keys[0], "user9");
  EXPECT_EQ(keys[1], std::string("z\xffq", 3));
  EXPECT_EQ(keys[2], "o'k");
  EXPECT_TRUE(LevelDbTableProbeKeys("").empty());
  EXPECT_TRUE(LevelDbTableProbeKeys(" 1:2['a' @ 1 : 1 .. 'b'").empty());  // cut short
  std::string long_key(3000, 'k');  // a line of 6 KB still parses
  keys = LevelDbTableProbeKeys(" 1:2['" + long_key + "' @ 1 : 1 .. '" + long_key + "z' @ 2 : 1]\n");
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(keys[0], long_key + "z");
  std::string huge(1 << 20, 'k');  // left to its first read, without a crash
  EXPECT_TRUE(LevelDbTableProbeKeys(" 1:2['" + huge + "' @ 1 : 1 .. '" + huge + "z' @ 2 : 1]\n").empty());
}

// The default Env, recording which table files are opened for reads.
class OpenCountingEnv : public leveldb::EnvWrapper {
 public:
  OpenCountingEnv() : leveldb::EnvWrapper(leveldb::Env::Default()) {}
  leveldb::Status NewRandomAccessFile(const std::string& name, leveldb::RandomAccessFile** file) override {
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".ldb") == 0) {
      std::lock_guard<std::mutex> lock(mu_);
      opened_.insert(name);
      opens_++;
    }
    return target()->NewRandomAccessFile(name, file);
  }
  int opens() {
    std::lock_guard<std::mutex> lock(mu_);
    return opens_;
  }
  size_t distinct() {
    std::lock_guard<std::mutex> lock(mu_);
    return opened_.size();
  }

 private:
  std::mutex mu_;
  std::set<std::string> opened_;
  int opens_ = 0;
};

// LevelDB clamps max_file_size to at least 1 MiB: 8 MB of records make
// about eight tables.
constexpr int kRecords = 40000;
std::string Key(int i) { return "key" + std::to_string(i * 7919 % kRecords); }

TEST(LevelDbTables, EveryTableIsOpenedOnceAndReadsOpenNoMore) {
  test::ScratchDir dir;
  leveldb::Options o;
  o.create_if_missing = true;
  o.max_file_size = 1 << 20;
  o.compression = leveldb::kNoCompression;
  std::string path = dir.File("db");
  {
    leveldb::DB* raw = nullptr;
    ASSERT_TRUE(leveldb::DB::Open(o, path, &raw).ok());
    std::unique_ptr<leveldb::DB> db(raw);
    for (int i = 0; i < kRecords; i++) ASSERT_TRUE(db->Put(leveldb::WriteOptions(), Key(i), std::string(200, 'v')).ok());
    db->CompactRange(nullptr, nullptr);  // every table written; nothing to flush or compact at the reopen
  }
  OpenCountingEnv env;  // counts the reopened store's opens only
  o.env = &env;
  leveldb::DB* raw = nullptr;
  ASSERT_TRUE(leveldb::DB::Open(o, path, &raw).ok());
  std::unique_ptr<leveldb::DB> db(raw);
  ASSERT_EQ(env.opens(), 0);  // LevelDB opens a table at its first read
  std::string sstables;
  ASSERT_TRUE(db->GetProperty("leveldb.sstables", &sstables));
  size_t tables = LevelDbTableProbeKeys(sstables).size();
  ASSERT_GE(tables, 5u) << sstables;
  EXPECT_EQ(OpenEveryLevelDbTable(db.get()), static_cast<int>(tables));
  EXPECT_EQ(env.distinct(), tables);                    // every table
  EXPECT_EQ(env.opens(), static_cast<int>(tables));     // and each once
  std::string value;
  for (int i = 0; i < kRecords; i += 13) ASSERT_TRUE(db->Get(leveldb::ReadOptions(), Key(i), &value).ok()) << i;
  EXPECT_EQ(env.opens(), static_cast<int>(tables));  // reads found every table open
}

}  // namespace
}  // namespace hintfs
