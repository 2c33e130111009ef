// The block index keeper on a real (memory-backed) filesystem: a table gets
// its index when its writer closes it, from the bytes written (no read of
// the table); the index survives a remount and goes with its table; mount
// rebuilds what is missing, drops orphans and replaces damaged indexes; fsck
// reports them.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <mutex>

#include <fmt/format.h>

#include "hints/block_index_keeper.h"
#include "tests/fs/fs_fixture.h"
#include "tests/fs/read_counter.h"
#include "tests/hints/hint_recorder.h"
#include "tests/hints/test_tables.h"

namespace hintfs {
namespace {

// A LevelDB table of n keys with 1 KiB blocks, as bytes.
std::string LevelDbTable(int n) {
  test::ScratchDir dir;
  return test::WriteLevelDbTable(dir.File("t.ldb"), false, n);
}

class BlockIndexKeeperTest : public test::FsTest {
 protected:
  void SetUp() override {
    FsTest::SetUp();
    test::FsGeometry g;
    g.fast = "zone_size=1MiB&zones=24";
    g.slow = "zone_size=1MiB&zones=24";
    Format(g);
    StartKeeper();
  }
  void TearDown() override {
    if (keeper_) keeper_->Detach();
    FsTest::TearDown();
  }

  // Remounts with a fresh keeper observing the filesystem (as a mount does),
  // under policy if given.
  void StartKeeper(bool attach = true, std::shared_ptr<AllocationPolicy> policy = nullptr) {
    if (keeper_) keeper_->Detach();
    // Reads of anything but the keeper's own files: the tables.
    reads_ = std::make_shared<test::ReadCounter>([](const std::string& path) { return !IsBlockIndexFile(path); });
    keeper_ = std::make_shared<BlockIndexKeeper>(reads_);
    keeper_->SetBlockReadListener([this](const std::string&, const BlockIndex& index, size_t block, uint64_t bytes, uint64_t) {
      std::lock_guard<std::mutex> l(block_reads_mu_);
      block_reads_.emplace_back(index.blocks[block].last_key, bytes);
    }, [this] { return block_reads_wanted_.load(); });
    MountOptions o;
    o.observer = keeper_;
    o.policy = std::move(policy);
    Mount(o);
    if (attach) ASSERT_OK(keeper_->Attach(fs_.get()));
  }

  // Writes a table in pieces, as a store does, and closes it.
  void WriteTable(const std::string& path, const std::string& bytes, int lifetime_hint = 0) {
    std::unique_ptr<FileWriter> w;
    ASSERT_OK(fs_->OpenWriter(path, WriteMode::kExclusive, &w));
    if (lifetime_hint != 0) w->SetLifetimeHint(lifetime_hint);
    for (size_t at = 0; at < bytes.size(); at += 4099) ASSERT_OK(w->Append(std::string_view(bytes).substr(at, 4099)));
    ASSERT_OK(w->Close());
  }

  std::vector<std::string> IndexFiles() {
    std::vector<DirEntry> entries;
    EXPECT_OK(fs_->ReadDir(kBlockIndexDirectory, &entries));
    std::vector<std::string> names;
    for (const DirEntry& e : entries) names.push_back(e.name);
    return names;
  }

  static void ExpectMatches(const BlockIndex& index, const std::string& table) {
    TableMap map;
    ASSERT_OK(ParseTable(table.size(), [&](uint64_t offset, size_t n, std::string* out) {
      *out = table.substr(offset, n);
      return Status::OK();
    }, &map));
    BlockIndex want = BlockIndexFromTableMap(map);
    EXPECT_EQ(EncodeBlockIndex(index), EncodeBlockIndex(want));
  }

  std::shared_ptr<test::ReadCounter> reads_;  // reads of tables
  std::shared_ptr<BlockIndexKeeper> keeper_;
  std::mutex block_reads_mu_;
  std::vector<std::pair<std::string, uint64_t>> block_reads_;  // (the block's last key, bytes read)
  std::atomic<bool> block_reads_wanted_{true};  // what the listener answers when asked
};

TEST_F(BlockIndexKeeperTest, IndexesATableWhenItsWriterClosesItWithoutReadingIt) {
  std::string table = LevelDbTable(5000);  // about 600 KiB: more than the head the keeper keeps
  ASSERT_GT(table.size(), BlockIndexKeeper::kHeadBytes * 4);
  ASSERT_OK(fs_->Mkdir("/db"));
  WriteTable("/db/000007.ldb", table);
  WriteTable("/db/000008.log", "not a table");
  keeper_->WaitIdle();
  std::shared_ptr<const BlockIndex> index;
  ASSERT_OK(keeper_->Get("/db/000007.ldb", &index));
  ExpectMatches(*index, table);
  EXPECT_EQ(reads_->reads, 0);
  EXPECT_EQ(keeper_->stats().indexed, 1u);
  EXPECT_EQ(keeper_->stats().read_back, 0u);
  EXPECT_TRUE(keeper_->Get("/db/000008.log", &index).IsNotFound());
  FileStat st;
  ASSERT_OK(fs_->Stat("/db/000007.ldb", &st));
  EXPECT_EQ(IndexFiles(), std::vector<std::string>{fmt::format("{:016x}", st.inode)});
}

// An index lives exactly as long as its table: it asks for its zone with the
// table's hint, so that lifetime classes put it where the table is.
TEST_F(BlockIndexKeeperTest, AnIndexFileCarriesItsTablesLifetimeHint) {
  auto recorder = std::make_shared<test::HintRecorder>();
  StartKeeper(true, recorder);
  WriteTable("/000005.ldb", LevelDbTable(1000), /*lifetime_hint=*/4);
  WriteTable("/000006.ldb", LevelDbTable(1000));
  keeper_->WaitIdle();
  FileStat hinted, plain;
  ASSERT_OK(fs_->Stat("/000005.ldb", &hinted));
  ASSERT_OK(fs_->Stat("/000006.ldb", &plain));
  EXPECT_EQ(recorder->HintOf("/000005.ldb"), 4);
  // (written aside, then renamed to the name of its table's inode)
  EXPECT_EQ(recorder->HintOfPathStartingWith(fmt::format("{}/{:016x}", kBlockIndexDirectory, hinted.inode)), 4);
  EXPECT_EQ(recorder->HintOfPathStartingWith(fmt::format("{}/{:016x}", kBlockIndexDirectory, plain.inode)), 0);
}

TEST_F(BlockIndexKeeperTest, SurvivesARemountAndGoesWithItsTable) {
  std::string table = LevelDbTable(2000);
  WriteTable("/000005.ldb", table);
  keeper_->WaitIdle();
  StartKeeper();
  std::shared_ptr<const BlockIndex> index;
  ASSERT_OK(keeper_->Get("/000005.ldb", &index));
  ExpectMatches(*index, table);
  EXPECT_EQ(keeper_->stats().rebuilt, 0u) << "read from its file, not rebuilt";
  EXPECT_EQ(reads_->reads, 0);
  ASSERT_OK(fs_->Rename("/000005.ldb", "/renamed.ldb"));
  ASSERT_OK(keeper_->Get("/renamed.ldb", &index));  // named by inode, so a rename keeps it
  ASSERT_OK(fs_->Unlink("/renamed.ldb"));
  keeper_->WaitIdle();
  EXPECT_TRUE(IndexFiles().empty());
}

// Reads of a table are reported with the block they hit, also after a
// remount (the keeper loads every index at mount).
TEST_F(BlockIndexKeeperTest, ReadsAreReportedWithTheirBlocks) {
  std::string table = LevelDbTable(2000);
  WriteTable("/000021.ldb", table);
  keeper_->WaitIdle();
  std::shared_ptr<const BlockIndex> index;
  ASSERT_OK(keeper_->Get("/000021.ldb", &index));
  ASSERT_GT(index->blocks.size(), 10u);
  for (int round = 0; round < 2; round++) {
    block_reads_.clear();
    const IndexedBlock& b = index->blocks[7];
    {
      std::unique_ptr<FileReader> r;
      ASSERT_OK(fs_->OpenReader("/000021.ldb", &r));
      std::string buf(b.size, '\0');
      size_t got = 0;
      ASSERT_OK(r->Read(b.offset, b.size, buf.data(), &got));
      ASSERT_OK(r->Read(table.size() - 48, 48, buf.data(), &got));  // the footer: no data block
    }
    {
      std::lock_guard<std::mutex> l(block_reads_mu_);
      ASSERT_EQ(block_reads_.size(), 1u) << "round " << round;
      EXPECT_EQ(block_reads_[0].first, b.last_key);
      EXPECT_EQ(block_reads_[0].second, b.size);
    }
    StartKeeper();
    keeper_->WaitIdle();
  }
  // A listener that is off is not called.
  block_reads_.clear();
  block_reads_wanted_ = false;
  std::unique_ptr<FileReader> r;
  ASSERT_OK(fs_->OpenReader("/000021.ldb", &r));
  std::string buf(index->blocks[3].size, '\0');
  size_t got = 0;
  ASSERT_OK(r->Read(index->blocks[3].offset, buf.size(), buf.data(), &got));
  std::lock_guard<std::mutex> l(block_reads_mu_);
  EXPECT_TRUE(block_reads_.empty());
}

TEST_F(BlockIndexKeeperTest, DeletingATableDeletesItsIndex) {
  WriteTable("/000009.ldb", LevelDbTable(1000));
  keeper_->WaitIdle();
  ASSERT_EQ(IndexFiles().size(), 1u);
  ASSERT_OK(fs_->Unlink("/000009.ldb"));
  keeper_->WaitIdle();
  EXPECT_TRUE(IndexFiles().empty());
  EXPECT_EQ(keeper_->stats().removed, 1u);
}

TEST_F(BlockIndexKeeperTest, MountRebuildsMissingIndexesAndDropsOrphans) {
  std::string table = LevelDbTable(1500);
  keeper_->Detach();
  keeper_.reset();
  Mount();  // no keeper: the table gets no index
  WriteTable("/000011.ldb", table);
  WriteFile(std::string(kBlockIndexDirectory) + "/00000000000000ff", "an orphan");
  StartKeeper();
  keeper_->WaitIdle();
  std::shared_ptr<const BlockIndex> index;
  ASSERT_OK(keeper_->Get("/000011.ldb", &index));
  ExpectMatches(*index, table);
  EXPECT_EQ(keeper_->stats().rebuilt, 1u);
  EXPECT_EQ(keeper_->stats().removed, 1u);
  EXPECT_EQ(IndexFiles().size(), 1u);
}

TEST_F(BlockIndexKeeperTest, ADamagedIndexIsReportedAndRebuilt) {
  std::string table = LevelDbTable(1500);
  WriteTable("/000013.ldb", table);
  keeper_->WaitIdle();
  std::string name = std::string(kBlockIndexDirectory) + "/" + IndexFiles().at(0);
  std::string bytes = ReadFile(name);
  bytes[bytes.size() / 2] ^= 1;
  WriteFile(name, bytes);
  FsckReport report;
  CheckBlockIndexes(fs_.get(), &report);
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_NE(report.errors[0].find("checksum"), std::string::npos) << report.errors[0];

  StartKeeper();  // loads every index at mount: this one fails its checksum
  keeper_->WaitIdle();
  EXPECT_EQ(keeper_->stats().bad_files, 1u);
  EXPECT_EQ(keeper_->stats().rebuilt, 1u);
  std::shared_ptr<const BlockIndex> index;
  ASSERT_OK(keeper_->Get("/000013.ldb", &index));
  ExpectMatches(*index, table);
  report = FsckReport();
  CheckBlockIndexes(fs_.get(), &report);
  EXPECT_TRUE(report.errors.empty());
  EXPECT_TRUE(report.warnings.empty());
}

// Calls a function at each append, before the filesystem takes the bytes.
class AppendProbe : public test::ReadCounter {
 public:
  AppendProbe() : ReadCounter([](const std::string&) { return false; }) {}
  void OnAppend(const std::string& path, std::string_view) override {
    if (on_append) on_append(path);
  }
  std::function<void(const std::string&)> on_append;
};

// A table read while its index is being written: Get finds no index or the
// whole one, never a half-written file it would count as damaged (a load of
// the HHZS reproduction counted 28-38 while indexes were written in place:
// RocksDB reads each table it writes at once).
TEST_F(BlockIndexKeeperTest, AnIndexBeingWrittenIsNeverReadHalfWritten) {
  keeper_->Detach();
  auto probe = std::make_shared<AppendProbe>();
  keeper_ = std::make_shared<BlockIndexKeeper>(probe);
  std::vector<Status> seen;  // Get's answers while the index's bytes are on their way
  probe->on_append = [&](const std::string& path) {
    std::shared_ptr<const BlockIndex> index;
    if (IsBlockIndexFile(path)) seen.push_back(keeper_->Get("/000023.ldb", &index));
  };
  MountOptions o;
  o.observer = keeper_;
  Mount(o);
  ASSERT_OK(keeper_->Attach(fs_.get()));
  WriteTable("/000023.ldb", LevelDbTable(1000));
  keeper_->WaitIdle();
  ASSERT_FALSE(seen.empty());
  for (const Status& s : seen) EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_EQ(keeper_->stats().bad_files, 0u);
  std::shared_ptr<const BlockIndex> index;
  EXPECT_OK(keeper_->Get("/000023.ldb", &index));
  EXPECT_EQ(IndexFiles().size(), 1u) << "no aside file left";
}

// An index cut short by a crash before its rename: fsck names it, the next
// mount removes it, and the table is indexed again.
TEST_F(BlockIndexKeeperTest, AnIndexLeftAsideByACrashIsRemovedAtMount) {
  WriteTable("/000019.ldb", LevelDbTable(800));
  keeper_->WaitIdle();
  keeper_->Detach();
  keeper_.reset();
  Mount();
  const std::string index = std::string(kBlockIndexDirectory) + "/" + IndexFiles().at(0);
  WriteFile(index + ".new", "half an index");
  ASSERT_OK(fs_->Unlink(index));  // as if the crash came before the rename
  FsckReport report;
  CheckBlockIndexes(fs_.get(), &report);
  EXPECT_TRUE(report.errors.empty());
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_NE(report.warnings[0].find("cut short by a crash"), std::string::npos) << report.warnings[0];
  StartKeeper();
  keeper_->WaitIdle();
  EXPECT_EQ(keeper_->stats().rebuilt, 1u);
  EXPECT_EQ(IndexFiles(), std::vector<std::string>{index.substr(index.rfind('/') + 1)});
}

TEST_F(BlockIndexKeeperTest, FilesThatAreNoTablesGetNoIndex) {
  WriteTable("/000015.sst", "a file named like a table that is none");
  keeper_->WaitIdle();
  std::shared_ptr<const BlockIndex> index;
  EXPECT_TRUE(keeper_->Get("/000015.sst", &index).IsNotFound());
  EXPECT_EQ(keeper_->stats().unparsable, 1u);
  EXPECT_TRUE(IndexFiles().empty());
}

TEST_F(BlockIndexKeeperTest, FsckWarnsOfAnIndexWhoseTableIsGone) {
  WriteTable("/000017.ldb", LevelDbTable(800));
  keeper_->WaitIdle();
  keeper_->Detach();
  keeper_.reset();
  Mount();  // without the keeper, the deletion leaves the index behind
  ASSERT_OK(fs_->Unlink("/000017.ldb"));
  FsckReport report;
  CheckBlockIndexes(fs_.get(), &report);
  EXPECT_TRUE(report.errors.empty());
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_NE(report.warnings[0].find("gone"), std::string::npos);
}

}  // namespace
}  // namespace hintfs
