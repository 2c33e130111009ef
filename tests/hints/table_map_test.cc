// The table map on tables written by RocksDB (several format versions, with
// and without Snappy) and LevelDB, checked against what the stores say, and
// on damaged tables, which must give an error or a sane map, never a crash.
#include <gtest/gtest.h>

#include <random>

#include <rocksdb/sst_file_reader.h>
#include <rocksdb/table_properties.h>

#include "hints/block_index.h"
#include "hints/table_map.h"
#include "tests/fs/test_util.h"
#include "tests/hints/test_tables.h"

namespace hintfs {
namespace {

using test::WriteLevelDbTable;
std::string Key(int i) { return test::TableKey(i); }

Status ParseBytes(const std::string& file, TableMap* map) { return ParseTable(file.size(), ReadTableBytes(file), map); }

// Invariants every map must keep, whatever the input.
void ExpectSane(const TableMap& m) {
  ASSERT_EQ(m.data_blocks.size(), m.separators.size());
  uint64_t end = 0;
  for (const TableBlockHandle& h : m.data_blocks) {
    EXPECT_GE(h.offset, end);
    EXPECT_LE(h.offset + h.size + TableMap::kBlockTrailer, m.file_size);
    end = h.offset + h.size + TableMap::kBlockTrailer;
  }
}

struct RocksCase {
  int format_version;
  bool snappy;
};

class RocksTableMap : public ::testing::TestWithParam<RocksCase> {};

TEST_P(RocksTableMap, MatchesWhatRocksDbWrote) {
  test::ScratchDir dir;
  std::string path = dir.File("t.sst");
  const int n = 3000;
  std::string file = test::WriteRocksDbTable(path, GetParam().format_version, GetParam().snappy, n);
  rocksdb::Options o;
  rocksdb::SstFileReader r(o);
  ASSERT_TRUE(r.Open(path).ok());
  auto props = r.GetTableProperties();

  TableMap m;
  Status s = ParseBytes(file, &m);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectSane(m);
  EXPECT_TRUE(m.rocksdb);
  EXPECT_EQ(m.format_version, static_cast<uint32_t>(GetParam().format_version));
  EXPECT_EQ(m.data_blocks.size(), props->num_data_blocks);
  EXPECT_EQ(m.entries, static_cast<uint64_t>(n));
  EXPECT_EQ(m.first_key, Key(0));
  EXPECT_EQ(m.last_key, Key(n - 1));
  EXPECT_EQ(m.compressed, GetParam().snappy);
  // Data blocks follow one another from the start of the file.
  EXPECT_EQ(m.data_blocks[0].offset, 0u);
  for (size_t i = 1; i < m.data_blocks.size(); i++) {
    EXPECT_EQ(m.data_blocks[i].offset, m.data_blocks[i - 1].offset + m.data_blocks[i - 1].size + 5);
    EXPECT_EQ(m.FindBlock(m.data_blocks[i].offset), static_cast<int64_t>(i));
    EXPECT_EQ(m.FindBlock(m.data_blocks[i].offset + 1), -1);
  }
  // Each block as a store reads it: exactly, or rounded out to 4 KiB pages
  // by direct I/O; a read of two blocks' pages or of a block's middle is none.
  constexpr uint64_t kPage = 4096;
  for (size_t i = 0; i < m.data_blocks.size(); i++) {
    const TableBlockHandle& b = m.data_blocks[i];
    const uint64_t end = b.offset + b.size + 5;
    EXPECT_EQ(m.BlockReadBy(b.offset, b.size + 5, kPage), static_cast<int64_t>(i));
    const uint64_t first = b.offset / kPage * kPage, last = (end + kPage - 1) / kPage * kPage;
    // Small blocks share pages: the read may be named by an earlier block
    // that it also reads whole.
    const int64_t r = m.BlockReadBy(first, last - first, kPage);
    ASSERT_GE(r, 0) << "block " << i;
    EXPECT_LE(r, static_cast<int64_t>(i));
    EXPECT_LT(m.data_blocks[r].offset, first + kPage);
    EXPECT_GT(m.data_blocks[r].offset + m.data_blocks[r].size + 5, last - kPage);
    EXPECT_EQ(m.BlockReadBy(first, last - first, 0), b.offset == first && end == last ? static_cast<int64_t>(i) : -1);
    EXPECT_NE(m.BlockReadBy(first, last - first + kPage, kPage), static_cast<int64_t>(i));
    if (b.size > 2 * kPage) {
      EXPECT_EQ(m.BlockReadBy(first + kPage, kPage, kPage), -1);
    }
  }
  EXPECT_EQ(props->data_size, m.data_blocks.back().offset + m.data_blocks.back().size + 5);
}

// Every key comes back once, in order, with the block whose index entry
// bounds it; a damaged data block is an error, and so is fn's.
TEST_P(RocksTableMap, ForEachTableKeyNamesEachKeysBlock) {
  test::ScratchDir dir;
  const int n = 3000;
  std::string file = test::WriteRocksDbTable(dir.File("t.sst"), GetParam().format_version, GetParam().snappy, n);
  TableMap m;
  ASSERT_TRUE(ParseBytes(file, &m).ok());
  BlockIndex index = BlockIndexFromTableMap(m);
  int seen = 0;
  size_t last_block = 0;
  Status s = ForEachTableKey(m, ReadTableBytes(file), [&](size_t block, std::string_view key) {
    EXPECT_EQ(key, Key(seen));
    EXPECT_GE(block, last_block);
    EXPECT_LE(std::string(key), index.blocks[block].last_key);
    if (block > 0) {
      EXPECT_GT(std::string(key), index.blocks[block - 1].last_key);
    }
    last_block = block;
    seen++;
    return Status::OK();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(seen, n);
  EXPECT_EQ(last_block + 1, m.data_blocks.size());

  // A restart count past the block (RocksDB's default xxHash checksums are
  // the store's to verify, so damage that only a checksum sees is not found).
  std::string bad = file;
  bad[m.data_blocks[1].offset + m.data_blocks[1].size - 1] = 0x7f;
  EXPECT_TRUE(ForEachTableKey(m, ReadTableBytes(bad), [](size_t, std::string_view) { return Status::OK(); })
                  .IsCorruption());
  int calls = 0;
  s = ForEachTableKey(m, ReadTableBytes(file), [&](size_t, std::string_view) {
    calls++;
    return Status::Busy("enough");
  });
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(s.IsBusy());
}

INSTANTIATE_TEST_SUITE_P(Formats, RocksTableMap,
                         ::testing::Values(RocksCase{2, false}, RocksCase{3, false}, RocksCase{4, false},
                                           RocksCase{5, false}, RocksCase{5, true}, RocksCase{2, true}),
                         [](const auto& info) {
                           return "v" + std::to_string(info.param.format_version) +
                                  (info.param.snappy ? "_snappy" : "_plain");
                         });

TEST(LevelDbTableMap, MatchesWhatLevelDbWrote) {
  for (bool snappy : {false, true}) {
    test::ScratchDir dir;
    std::string file = WriteLevelDbTable(dir.File("t.ldb"), snappy, 2000);
    TableMap m;
    Status s = ParseBytes(file, &m);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ExpectSane(m);
    EXPECT_FALSE(m.rocksdb);
    EXPECT_GT(m.data_blocks.size(), 50u);
    EXPECT_EQ(m.first_key, Key(0));
    EXPECT_EQ(m.last_key, Key(1999));
    EXPECT_EQ(m.compressed, snappy);
    for (size_t i = 1; i < m.data_blocks.size(); i++) {
      EXPECT_EQ(m.data_blocks[i].offset, m.data_blocks[i - 1].offset + m.data_blocks[i - 1].size + 5);
    }
    // The index's separators are in order and bound their blocks.
    for (size_t i = 1; i < m.separators.size(); i++) EXPECT_LT(m.separators[i - 1], m.separators[i]);
  }
}

// A table's first entry, from its first bytes only, the first block plain
// or Snappy-compressed: the first key and its sequence number (both test
// writers write 0; the real stores' numbers are checked in
// manifest_test.cc), and nothing from too few bytes; noise never reads
// past its end.
TEST(FirstTableKey, ReadFromATablesFirstBytes) {
  test::ScratchDir dir;
  for (bool snappy : {false, true}) {
    std::string rocks = test::WriteRocksDbTable(dir.File("t.sst"), 5, snappy, 100);
    std::string level = WriteLevelDbTable(dir.File("t.ldb"), snappy, 100);
    FirstTableKey k;
    ASSERT_TRUE(ReadFirstTableKey(std::string_view(rocks).substr(0, 4096), &k));
    EXPECT_EQ(k.user_key, Key(0));
    EXPECT_EQ(k.sequence, 0u);
    k = FirstTableKey();
    ASSERT_TRUE(ReadFirstTableKey(std::string_view(level).substr(0, 4096), &k));
    EXPECT_EQ(k.user_key, Key(0));
    EXPECT_EQ(k.sequence, 0u);
    // Cut anywhere inside the first entry's key: nothing (Snappy may code
    // the key's tag in fewer bytes than it has: cut the plain table).
    if (snappy) continue;
    for (size_t n = 0; n < 3 + Key(0).size() + 8; n++) EXPECT_FALSE(ReadFirstTableKey(rocks.substr(0, n), &k)) << n;
  }
  std::mt19937_64 rng(9);
  for (int i = 0; i < 2000; i++) {
    std::string noise(rng() % 64, '\0');
    for (char& c : noise) c = static_cast<char>(rng());
    FirstTableKey k;
    if (ReadFirstTableKey(noise, &k)) {
      EXPECT_LE(k.user_key.size() + 8, noise.size());
    }
  }
}

// Every kind of damage: flipped bytes anywhere (footer, index, data),
// truncation, zeroed ranges. An error or a sane map, never a crash.
TEST(TableMapDamage, DamagedTablesGiveErrorsNotCrashes) {
  test::ScratchDir dir;
  std::vector<std::string> tables;
  tables.push_back(WriteLevelDbTable(dir.File("a.ldb"), false, 800));
  tables.push_back(WriteLevelDbTable(dir.File("b.ldb"), true, 800));
  for (int v : {2, 5}) {
    tables.push_back(test::WriteRocksDbTable(dir.File("r" + std::to_string(v) + ".sst"), v, false, 800, 512));
  }
  std::mt19937_64 rng(7);
  int errors = 0, parsed = 0;
  for (const std::string& good : tables) {
    for (int trial = 0; trial < 400; trial++) {
      std::string bad = good;
      switch (trial % 4) {
        case 0:  // flip a byte near the end (footer, index, metaindex)
          bad[bad.size() - 1 - rng() % std::min<size_t>(bad.size(), 400)] ^= static_cast<char>(1 + rng() % 255);
          break;
        case 1:  // flip a byte anywhere
          bad[rng() % bad.size()] ^= static_cast<char>(1 + rng() % 255);
          break;
        case 2:  // truncate
          bad.resize(rng() % bad.size());
          break;
        case 3: {  // zero a range
          size_t at = rng() % bad.size();
          size_t len = std::min<size_t>(bad.size() - at, 1 + rng() % 64);
          std::fill(bad.begin() + static_cast<long>(at), bad.begin() + static_cast<long>(at + len), '\0');
          break;
        }
      }
      TableMap m;
      Status s = ParseBytes(bad, &m);
      if (s.ok()) {
        parsed++;
        ExpectSane(m);
      } else {
        errors++;
        EXPECT_TRUE(s.IsCorruption() || s.IsNotSupported()) << s.ToString();
      }
    }
  }
  // Checksums catch nearly all damage to what the parser reads.
  EXPECT_GT(errors, 600);
  std::cout << "damaged tables: " << errors << " rejected, " << parsed << " parsed (damage elsewhere)\n";
}

}  // namespace
}  // namespace hintfs
