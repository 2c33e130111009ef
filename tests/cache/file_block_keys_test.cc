// The cache keys of file blocks across mounts: a saved key comes back at the
// next mount only for the same file with the same bytes, never for a file
// rewritten, replaced, truncated or moved in between.
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "cache/file_block_keys.h"
#include "tests/fs/fs_fixture.h"

namespace hintfs {
namespace {

using test::FsTest;

class FileBlockKeysTest : public FsTest {
 protected:
  void SetUp() override {
    FsTest::SetUp();
    Format();
    std::mt19937_64 rng(7);
    bytes_ = Random(&rng, 64 << 10);
    WriteFile("/t.sst", bytes_);
  }

  // The live key of a read of n bytes at offset of path, as the caching
  // layer makes it.
  std::string LiveKey(FileBlockKeys* keys, const std::string& path, uint64_t offset, uint64_t n) {
    std::unique_ptr<FileReader> r;
    EXPECT_OK(fs_->OpenReader(path, &r));
    return keys->Key(path, r->Locate(offset, n), offset, n);
  }

  // Saves key at this mount and asks a new mount (after change) for it.
  std::string AcrossARemount(const std::function<void()>& change) {
    KeptKey kept;
    {
      FileBlockKeys keys(fs_.get());
      kept = keys.ToKept({LiveKey(&keys, "/t.sst", 4096, 4101)})[0];
      EXPECT_FALSE(kept.group.empty());
      EXPECT_EQ(kept.item, "4096+4101");
    }
    Remount();
    change();
    FileBlockKeys keys(fs_.get());
    std::string live = keys.FromKept({kept})[0];
    if (!live.empty()) {
      EXPECT_EQ(live, LiveKey(&keys, "/t.sst", 4096, 4101));
    }
    return live;
  }

  std::string bytes_;
};

TEST_F(FileBlockKeysTest, AnUnchangedFileKeepsItsBlocks) {
  EXPECT_FALSE(AcrossARemount([] {}).empty());
}

TEST_F(FileBlockKeysTest, AChangedFileLosesThem) {
  EXPECT_TRUE(AcrossARemount([&] {
    std::string other = bytes_;
    other[5000] ^= 1;
    WriteFile("/t.sst", other);  // same path and size, new bytes
  }).empty());
  EXPECT_TRUE(AcrossARemount([&] {
    ASSERT_OK(fs_->Unlink("/t.sst"));
    WriteFile("/t.sst", bytes_);  // the same bytes in another file
  }).empty());
  EXPECT_TRUE(AcrossARemount([&] {
    MigrateResult r;
    ASSERT_OK(fs_->MigrateFile("/t.sst", Tier::kSlow, nullptr, &r));  // same bytes, other extents
  }).empty());
  EXPECT_TRUE(AcrossARemount([&] { ASSERT_OK(fs_->Unlink("/t.sst")); }).empty());
}

TEST_F(FileBlockKeysTest, KeysOfChangedOrUnknownFilesAreNotKept) {
  FileBlockKeys keys(fs_.get());
  const std::string live = LiveKey(&keys, "/t.sst", 0, 100);
  // Rewritten in this mount: its data version moved on.
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/t.sst", WriteMode::kAppend, &w));
  ASSERT_OK(w->WriteAt(10, "x"));
  ASSERT_OK(w->Close());
  EXPECT_EQ(keys.ToKept({live})[0], KeptKey{});
  // A key the layer never made, or not a file block's at all.
  EXPECT_EQ(keys.ToKept({"f999.0@0+100", "rocksdb-own-key", ""}), std::vector<KeptKey>(3));
  // Saved keys that name no file as it is, or no block.
  const std::string group = keys.ToKept({LiveKey(&keys, "/t.sst", 0, 100)})[0].group;
  ASSERT_FALSE(group.empty());
  EXPECT_EQ(keys.FromKept({{}, {"no newline", "0+1"}, {"/t.sst\nbad", "0+1"}, {group, "x+1"}, {group, "0+1 "}}),
            std::vector<std::string>(5, ""));
  EXPECT_NE(keys.FromKept({{group, "0+1"}})[0], "");
}

}  // namespace
}  // namespace hintfs
