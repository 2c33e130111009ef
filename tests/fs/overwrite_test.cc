// FileWriter::WriteAt: overwrites written out of place, checked against a
// model of the file's bytes through readers, remounts and fsck.
#include <gtest/gtest.h>

#include <random>

#include "fs/metadata.h"
#include "tests/fs/fs_fixture.h"

namespace hintfs {
namespace {

using test::FsTest;

class OverwriteTest : public FsTest {
 protected:
  // Applies a WriteAt to the model as POSIX pwrite would.
  static void ModelWrite(std::string* model, uint64_t offset, const std::string& data) {
    if (model->size() < offset + data.size()) model->resize(offset + data.size(), '\0');
    model->replace(offset, data.size(), data);
  }

  std::unique_ptr<FileWriter> OpenAppending(const std::string& path) {
    std::unique_ptr<FileWriter> w;
    EXPECT_OK(fs_->OpenWriter(path, WriteMode::kAppend, &w));
    return w;
  }
};

TEST_F(OverwriteTest, RewritesBytesOnDevicesAcrossBlocksAndExtents) {
  Format();
  std::mt19937_64 rng(7);
  std::string model = Random(&rng, 40000);  // ~10 blocks, last one partial
  WriteFile("/f", model);
  auto w = OpenAppending("/f");
  // Inside one block, across a block boundary, the partial last block, and
  // a write that runs past the end.
  const std::pair<uint64_t, size_t> writes[] = {{10, 20}, {4090, 12}, {8192, 4096}, {39990, 10}, {39000, 3000}};
  for (auto [offset, n] : writes) {
    std::string data = Random(&rng, n);
    ASSERT_OK(w->WriteAt(offset, data));
    ModelWrite(&model, offset, data);
    EXPECT_EQ(w->Size(), model.size());
    EXPECT_EQ(ReadFile("/f"), model) << "after a write of " << n << " bytes at " << offset;
  }
  ASSERT_OK(w->Sync());
  ASSERT_OK(w->Close());
  EXPECT_GE(fs_->Stats().overwritten_bytes, 4096u + 20 + 12 + 10 + 1000);
  Remount();
  EXPECT_EQ(ReadFile("/f"), model);
  ExpectClean();
}

TEST_F(OverwriteTest, RewritesBufferedAndSyncedTailBytes) {
  Format();
  std::string model(5000, 'a');
  auto w = OpenAppending("/t");
  ASSERT_OK(w->Append(model));
  ASSERT_OK(w->Sync());  // 904 bytes of tail now in the journal
  ASSERT_OK(w->WriteAt(4500, "SYNCED-TAIL"));
  ModelWrite(&model, 4500, "SYNCED-TAIL");
  ASSERT_OK(w->Append("bbbb"));
  model += "bbbb";
  ASSERT_OK(w->WriteAt(5001, "XY"));  // buffered, not yet journaled
  ModelWrite(&model, 5001, "XY");
  EXPECT_EQ(ReadFile("/t"), model);
  ASSERT_OK(w->Sync());
  w.reset();
  // A kill now (no unmount) must find the rewritten tail in the journal.
  fs_.reset();
  Mount();
  EXPECT_EQ(ReadFile("/t"), model);
  ExpectClean();
}

TEST_F(OverwriteTest, WritePastTheEndLeavesZeros) {
  Format();
  auto w = OpenAppending("/sparse");
  ASSERT_OK(w->Append("head"));
  ASSERT_OK(w->WriteAt(3 << 20, "far"));
  ASSERT_OK(w->Close());
  std::string want = "head" + std::string((3 << 20) - 4, '\0') + "far";
  EXPECT_EQ(ReadFile("/sparse"), want);
}

TEST_F(OverwriteTest, OpenReadersSeeNewBytesAndANewDataVersion) {
  Format();
  WriteFile("/r", std::string(16384, 'o'));
  std::unique_ptr<FileReader> r;
  ASSERT_OK(fs_->OpenReader("/r", &r));
  char buf[8];
  size_t got = 0;
  ASSERT_OK(r->Read(8000, 8, buf, &got));
  uint64_t version = r->Locate(8000, 8).data_version;
  auto w = OpenAppending("/r");
  ASSERT_OK(w->WriteAt(8000, "NEWBYTES"));
  ASSERT_OK(r->Read(8000, 8, buf, &got));
  EXPECT_EQ(std::string(buf, got), "NEWBYTES");
  EXPECT_NE(r->Locate(8000, 8).data_version, version);
}

TEST_F(OverwriteTest, OldBlocksBecomeGarbageThatGcReclaims) {
  Format();
  std::mt19937_64 rng(11);
  std::string model = Random(&rng, 200 << 10);
  WriteFile("/g", model);
  auto garbage = [&] {
    std::vector<DeviceUsage> usage;
    EXPECT_OK(fs_->Usage(&usage));
    uint64_t g = 0;
    for (const auto& u : usage) g += u.garbage_bytes;
    return g;
  };
  uint64_t before = garbage();
  auto w = OpenAppending("/g");
  for (int i = 0; i < 50; i++) {
    std::string data = Random(&rng, 4096);
    uint64_t offset = rng() % (model.size() - data.size());
    ASSERT_OK(w->WriteAt(offset, data));
    ModelWrite(&model, offset, data);
  }
  ASSERT_OK(w->Sync());
  ASSERT_OK(w->Close());
  EXPECT_GE(garbage(), before + 50 * 4096);
  uint32_t freed = 0;
  ASSERT_OK(fs_->CollectGarbage(8, &freed));
  EXPECT_EQ(ReadFile("/g"), model);
  Remount();
  EXPECT_EQ(ReadFile("/g"), model);
  ExpectClean();
}

// Random writes anywhere, appends, truncates, flushes, syncs and remounts
// against the model: nothing but the model's bytes ever reads back.
TEST_F(OverwriteTest, RandomWritesMatchTheModel) {
  test::FsGeometry g;
  g.fast = "zone_size=256KiB&zones=12";
  g.slow = "zone_size=256KiB&zones=12";
  Format(g);
  std::mt19937_64 rng(2026);
  std::string model;
  uint64_t resets = 0;  // zones reset over all mounts: old blocks were reclaimed
  auto w = OpenAppending("/m");
  for (int step = 0; step < 1500; step++) {
    int kind = static_cast<int>(rng() % 20);
    if (kind < 14) {
      std::string data = Random(&rng, 1 + rng() % (rng() % 4 == 0 ? 20000 : 600));
      uint64_t offset = model.empty() ? 0 : rng() % (model.size() + 100);
      Status s = w->WriteAt(offset, data);
      ASSERT_TRUE(s.ok()) << "step " << step << ": " << s.ToString();
      ModelWrite(&model, offset, data);
    } else if (kind < 15 && model.size() > (300 << 10)) {
      ASSERT_OK(w->Close());
      uint64_t size = rng() % model.size();
      ASSERT_OK(fs_->Truncate("/m", size));
      model.resize(size);
      w = OpenAppending("/m");
    } else if (kind < 17) {
      ASSERT_OK(w->Flush());
    } else if (kind < 19) {
      ASSERT_OK(w->Sync());
    } else {
      ASSERT_OK(w->Close());
      resets += fs_->Stats().zone_resets;
      Remount();
      w = OpenAppending("/m");
    }
    if (step % 50 == 0 || kind >= 19) {
      ASSERT_EQ(ReadFile("/m"), model) << "step " << step;
    }
  }
  ASSERT_OK(w->Close());
  resets += fs_->Stats().zone_resets;
  Remount();
  EXPECT_EQ(ReadFile("/m"), model);
  EXPECT_GT(resets, 10u);
  ExpectClean();
}

// The op an overwrite journals names only the extents it replaces.
TEST(ReplaceExtentsOpTest, SplicesTheRunItNamesAndRejectsWhatDoesNotFit) {
  MetadataImage image;
  MetadataOp create;
  create.type = MetadataOp::Type::kCreateInode;
  create.inode.id = 9;
  create.inode.role = ZoneRole::kData;
  ASSERT_OK(image.Apply(create));
  MetadataOp set;
  set.type = MetadataOp::Type::kSetExtents;
  set.inode.id = 9;
  set.inode.extents = {{0, 1, 0, 4096}, {0, 1, 4096, 8192}, {0, 2, 0, 4096}};
  set.inode.size = 16384 + 3;
  set.inode.tail = "abc";
  ASSERT_OK(image.Apply(set));
  MetadataOp op;
  op.type = MetadataOp::Type::kReplaceExtents;
  op.inode.id = 9;
  op.from_index = 1;
  op.replaced = 1;
  op.inode.extents = {{1, 5, 0, 4096}, {0, 3, 0, 4096}};  // the middle extent rewritten in two pieces
  op.inode.size = 16384 + 3;
  op.inode.mtime_ns = 77;
  std::string bytes;
  EncodeOp(op, &bytes);
  std::string_view in(bytes);
  MetadataOp back;
  ASSERT_OK(DecodeOp(&in, &back));
  EXPECT_TRUE(in.empty());
  ASSERT_OK(image.Apply(back));
  const InodeRecord& rec = image.inodes().at(9);
  std::vector<Extent> want = {{0, 1, 0, 4096}, {1, 5, 0, 4096}, {0, 3, 0, 4096}, {0, 2, 0, 4096}};
  EXPECT_EQ(rec.extents, want);
  EXPECT_EQ(rec.tail, "abc");
  EXPECT_EQ(rec.mtime_ns, 77);
  // A run past the list, or pieces that change the size, are refused.
  MetadataOp bad = op;
  bad.from_index = 3;
  bad.replaced = 2;
  EXPECT_TRUE(image.Apply(bad).IsCorruption());
  bad = op;
  bad.inode.extents.pop_back();  // 4096 bytes in place of 8192
  bad.replaced = 2;
  EXPECT_TRUE(image.Apply(bad).IsCorruption());
  EXPECT_EQ(image.inodes().at(9).extents, want);
  bytes.resize(bytes.size() - 5);
  in = bytes;
  EXPECT_FALSE(DecodeOp(&in, &back).ok());
}

}  // namespace
}  // namespace hintfs
