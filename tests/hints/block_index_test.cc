// Block indexes built from tables RocksDB and LevelDB wrote: every block is
// found by its bytes, keys are user keys that bound their blocks, the
// encoding round-trips, and damaged or foreign bytes are refused.
#include <gtest/gtest.h>

#include <random>

#include "fs/coding.h"
#include "fs/crc32c.h"
#include "hints/block_index.h"
#include "tests/fs/test_util.h"
#include "tests/hints/test_tables.h"

namespace hintfs {
namespace {

std::string Key(int i) { return test::TableKey(i); }

BlockIndex IndexOf(const std::string& table) {
  TableMap map;
  Status s = ParseTable(table.size(), [&](uint64_t offset, size_t n, std::string* out) {
    if (offset > table.size() || n > table.size() - offset) return Status::IOError("past the end");
    *out = table.substr(offset, n);
    return Status::OK();
  }, &map);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return BlockIndexFromTableMap(map);
}

// What every index of a table of keys Key(0..n-1) must say.
void ExpectDescribes(const BlockIndex& index, const std::string& table, int n) {
  ASSERT_GT(index.blocks.size(), 10u);
  EXPECT_EQ(index.file_size, table.size());
  EXPECT_EQ(index.first_key, Key(0));
  uint64_t end = 0;
  for (size_t i = 0; i < index.blocks.size(); i++) {
    const IndexedBlock& b = index.blocks[i];
    EXPECT_EQ(b.offset, end) << "data blocks follow one another from the start";
    end = b.offset + b.size;
    EXPECT_EQ(index.BlockAt(b.offset), static_cast<int64_t>(i));
    EXPECT_EQ(index.BlockAt(b.offset + b.size - 1), static_cast<int64_t>(i));
    // A user key: the 8-byte sequence/type tag of internal keys is gone.
    EXPECT_LE(b.last_key.size(), Key(0).size()) << i;
    EXPECT_LT(index.LowerBound(i), b.last_key) << i;
  }
  EXPECT_GE(index.blocks.back().last_key, Key(n - 1));
  EXPECT_EQ(index.BlockAt(end), -1) << "the index and footer are no data block";
  EXPECT_EQ(index.DataBytes(), end);
}

// BlockAt guesses from the offset's place in the file; blocks of very
// different sizes, and gaps between them, must not fool it.
TEST(BlockIndex, BlockAtFindsEveryBlockWhateverItsNeighboursSizes) {
  std::mt19937 rng(5);
  for (int layout = 0; layout < 50; layout++) {
    BlockIndex index;
    uint64_t at = rng() % 3 == 0 ? rng() % 5000 : 0;
    const size_t n = 1 + rng() % 300;
    for (size_t i = 0; i < n; i++) {
      const uint64_t size = rng() % 4 == 0 ? 1 + rng() % 60000 : 1000 + rng() % 100;
      index.blocks.push_back(IndexedBlock{at, size, ""});
      at += size + (rng() % 5 == 0 ? rng() % 3000 : 0);  // now and then a gap no block covers
    }
    for (uint64_t offset = 0; offset < at + 10; offset += 1 + rng() % 700) {
      int64_t want = -1;
      for (size_t i = 0; i < n; i++) {
        const IndexedBlock& b = index.blocks[i];
        if (offset >= b.offset && offset < b.offset + b.size) want = static_cast<int64_t>(i);
      }
      ASSERT_EQ(index.BlockAt(offset), want) << "layout " << layout << " offset " << offset;
    }
  }
  EXPECT_EQ(BlockIndex().BlockAt(0), -1);
}

TEST(BlockIndex, DescribesRocksDbTablesOfEveryFormat) {
  for (int version : {2, 3, 5}) {
    test::ScratchDir dir;
    std::string table = test::WriteRocksDbTable(dir.File("t.sst"), version, false, 3000);
    BlockIndex index = IndexOf(table);
    ExpectDescribes(index, table, 3000);
    EXPECT_TRUE(index.rocksdb);
  }
}

TEST(BlockIndex, DescribesLevelDbTables) {
  test::ScratchDir dir;
  std::string table = test::WriteLevelDbTable(dir.File("t.ldb"), false, 3000);
  BlockIndex index = IndexOf(table);
  ExpectDescribes(index, table, 3000);
  EXPECT_FALSE(index.rocksdb);
}

TEST(BlockIndex, RoundTripsThroughItsEncoding) {
  test::ScratchDir dir;
  BlockIndex index = IndexOf(test::WriteRocksDbTable(dir.File("t.sst"), 5, false, 3000));
  std::string bytes = EncodeBlockIndex(index);
  // Prefix compression keeps it small: a few bytes per block.
  EXPECT_LT(bytes.size(), index.blocks.size() * 12);
  BlockIndex back;
  ASSERT_OK(DecodeBlockIndex(bytes, &back));
  EXPECT_EQ(back.file_size, index.file_size);
  EXPECT_EQ(back.rocksdb, index.rocksdb);
  EXPECT_EQ(back.first_key, index.first_key);
  ASSERT_EQ(back.blocks.size(), index.blocks.size());
  for (size_t i = 0; i < index.blocks.size(); i++) {
    EXPECT_EQ(back.blocks[i].offset, index.blocks[i].offset);
    EXPECT_EQ(back.blocks[i].size, index.blocks[i].size);
    EXPECT_EQ(back.blocks[i].last_key, index.blocks[i].last_key);
  }
  BlockIndex empty;
  ASSERT_OK(DecodeBlockIndex(EncodeBlockIndex(BlockIndex()), &empty));
  EXPECT_TRUE(empty.blocks.empty());
}

TEST(BlockIndex, RefusesDamagedBytes) {
  test::ScratchDir dir;
  std::string good = EncodeBlockIndex(IndexOf(test::WriteLevelDbTable(dir.File("t.ldb"), false, 500)));
  BlockIndex out;
  for (size_t i = 0; i < good.size(); i++) {  // any flipped byte
    std::string bad = good;
    bad[i] ^= 0x20;
    Status s = DecodeBlockIndex(bad, &out);
    EXPECT_TRUE(s.IsCorruption()) << i << ": " << s.ToString();
    EXPECT_TRUE(out.blocks.empty());
  }
  for (size_t n = 0; n < good.size(); n++) {  // any truncation
    EXPECT_TRUE(DecodeBlockIndex(good.substr(0, n), &out).IsCorruption()) << n;
  }
}

// Bytes with a valid checksum but nonsense inside: an error or an index
// whose blocks lie in order inside the file, never a crash.
TEST(BlockIndex, RefusesWellChecksummedNonsense) {
  auto seal = [](std::string body) {
    PutFixed32(&body, crc32c::Value(body.data(), body.size()));
    return body;
  };
  test::ScratchDir dir;
  std::string good = EncodeBlockIndex(IndexOf(test::WriteLevelDbTable(dir.File("t.ldb"), false, 500)));
  std::string body = good.substr(0, good.size() - 4);
  BlockIndex out;
  std::string later = body;
  later[4] = 2;
  EXPECT_TRUE(DecodeBlockIndex(seal(later), &out).IsNotSupported());
  std::mt19937_64 rng(11);
  int refused = 0;
  for (int trial = 0; trial < 3000; trial++) {
    std::string bad = body;
    size_t at = 6 + rng() % (bad.size() - 6);
    bad[at] = static_cast<char>(rng());
    if (trial % 3 == 0) bad.resize(6 + rng() % (bad.size() - 6));
    Status s = DecodeBlockIndex(seal(bad), &out);
    if (!s.ok()) {
      refused++;
      EXPECT_TRUE(s.IsCorruption()) << s.ToString();
      continue;
    }
    uint64_t end = 0;
    for (const IndexedBlock& b : out.blocks) {
      EXPECT_GE(b.offset, end);
      end = b.offset + b.size;
    }
    EXPECT_LE(end, out.file_size);
  }
  EXPECT_GT(refused, 1000);
}

}  // namespace
}  // namespace hintfs
