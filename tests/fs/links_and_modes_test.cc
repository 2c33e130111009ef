// Symbolic links, special nodes (FIFOs, sockets, device nodes) and the modes
// and owners inodes keep: created, read,
// renamed, removed, and kept across remounts, a kill and journal rolls
// (snapshots); bad input refused; the op that stores them decoded strictly.
#include <gtest/gtest.h>

#include "fs/coding.h"
#include "fs/metadata.h"
#include "tests/fs/fs_fixture.h"

namespace hintfs {
namespace {

using test::FsTest;

class LinksAndModesTest : public FsTest {
 protected:
  void SetUp() override {
    FsTest::SetUp();
    Format();
  }
};

TEST_F(LinksAndModesTest, SymlinksStoreTheirTargetAndAreNoFiles) {
  ASSERT_OK(fs_->Mkdir("/d"));
  ASSERT_OK(fs_->Symlink("../some/where else", "/d/link"));
  std::string target;
  ASSERT_OK(fs_->ReadLink("/d/link", &target));
  EXPECT_EQ(target, "../some/where else");
  FileStat st;
  ASSERT_OK(fs_->Stat("/d/link", &st));
  EXPECT_EQ(st.type, FileType::kSymlink);
  EXPECT_EQ(st.size, target.size());
  std::vector<DirEntry> entries;
  ASSERT_OK(fs_->ReadDir("/d", &entries));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].type, FileType::kSymlink);
  // Not a file to read or write, and not followed by the filesystem.
  std::unique_ptr<FileReader> r;
  std::unique_ptr<FileWriter> w;
  EXPECT_TRUE(fs_->OpenReader("/d/link", &r).IsInvalidArgument());
  EXPECT_TRUE(fs_->OpenWriter("/d/link", WriteMode::kAppend, &w).IsInvalidArgument());
  EXPECT_TRUE(fs_->Truncate("/d/link", 0).IsInvalidArgument());
  WriteFile("/file", "x");
  EXPECT_TRUE(fs_->ReadLink("/file", &target).IsInvalidArgument());
  EXPECT_TRUE(fs_->Symlink("t", "/file").IsAlreadyExists());
  EXPECT_TRUE(fs_->Symlink("", "/empty").IsInvalidArgument());
  EXPECT_TRUE(fs_->Symlink(std::string(kMaxSymlinkTarget + 1, 'a'), "/long").IsInvalidArgument());
  ASSERT_OK(fs_->Symlink(std::string(kMaxSymlinkTarget, 'a'), "/longest"));
  EXPECT_EQ(fs_->Stats().files, 1u);
}

TEST_F(LinksAndModesTest, SymlinksSurviveRenamesRemountsAKillAndJournalRolls) {
  ASSERT_OK(fs_->Symlink("target-1", "/a"));
  ASSERT_OK(fs_->Symlink("target-2", "/b"));
  ASSERT_OK(fs_->Rename("/a", "/renamed"));
  ASSERT_OK(fs_->Link("/b", "/b2"));
  ASSERT_OK(fs_->Unlink("/b"));
  auto check = [&](const char* when) {
    std::string t;
    ASSERT_OK(fs_->ReadLink("/renamed", &t));
    EXPECT_EQ(t, "target-1") << when;
    ASSERT_OK(fs_->ReadLink("/b2", &t));
    EXPECT_EQ(t, "target-2") << when;
    FileStat st;
    EXPECT_TRUE(fs_->Stat("/a", &st).IsNotFound()) << when;
    ExpectClean();
  };
  check("live");
  Remount();
  check("after a remount");
  fs_.reset();  // a kill: no unmount
  Mount();
  check("after a kill");
  // Enough changes to roll the journal: the links come back from a snapshot.
  for (int i = 0; fs_->Stats().journal_rolls < 2 && i < 20000; i++) {
    ASSERT_OK(fs_->SetMtime("/renamed", i));
    ASSERT_OK(fs_->SyncMetadata());
  }
  ASSERT_GE(fs_->Stats().journal_rolls, 2u);
  Remount();
  check("after journal rolls");
  ASSERT_OK(fs_->Unlink("/b2"));
  Remount();
  std::string t;
  EXPECT_TRUE(fs_->ReadLink("/b2", &t).IsNotFound());
}

TEST_F(LinksAndModesTest, ModesAndOwnersAreKept) {
  WriteFile("/f", "data");
  ASSERT_OK(fs_->Mkdir("/d"));
  FileStat st;
  ASSERT_OK(fs_->Stat("/f", &st));
  EXPECT_EQ(st.mode, 0u) << "never set";
  ASSERT_OK(fs_->SetOwnership("/f", 04750, 1000, 100));
  ASSERT_OK(fs_->SetOwnership("/d", 0, 7, 8));  // mode 0 is a mode too
  ASSERT_OK(fs_->SetOwnership("/f", 0177777, 1001, 101));  // bits past kModeBits are dropped
  auto check = [&](const char* when) {
    FileStat f, d;
    ASSERT_OK(fs_->Stat("/f", &f));
    ASSERT_OK(fs_->Stat("/d", &d));
    EXPECT_EQ(f.mode, kModeSet | 07777) << when;
    EXPECT_EQ(f.uid, 1001u) << when;
    EXPECT_EQ(f.gid, 101u) << when;
    EXPECT_EQ(d.mode, kModeSet) << when;
    EXPECT_EQ(d.uid, 7u) << when;
    EXPECT_EQ(d.gid, 8u) << when;
  };
  check("live");
  Remount();
  check("after a remount");
  for (int i = 0; fs_->Stats().journal_rolls < 2 && i < 20000; i++) {
    ASSERT_OK(fs_->SetMtime("/f", i));
    ASSERT_OK(fs_->SyncMetadata());
  }
  ASSERT_GE(fs_->Stats().journal_rolls, 2u);
  Remount();
  check("after journal rolls");
  ExpectClean();
  EXPECT_EQ(ReadFile("/f"), "data");
}

TEST_F(LinksAndModesTest, SpecialNodesRecordTheirFormatAndDevice) {
  const uint32_t kFifo = 0010000, kCharDevice = 0020000, kRegular = 0100000;
  ASSERT_OK(fs_->MakeSpecial("/fifo", kFifo, 0));
  ASSERT_OK(fs_->MakeSpecial("/null", kCharDevice, (1 << 8) | 3));
  EXPECT_TRUE(fs_->MakeSpecial("/file", kRegular, 0).IsInvalidArgument());
  EXPECT_TRUE(fs_->MakeSpecial("/fifo", kFifo, 0).IsAlreadyExists());
  std::unique_ptr<FileReader> r;
  EXPECT_TRUE(fs_->OpenReader("/fifo", &r).IsInvalidArgument());
  std::string target;
  EXPECT_TRUE(fs_->ReadLink("/fifo", &target).IsInvalidArgument());
  ASSERT_OK(fs_->Symlink("x", "/link"));
  uint32_t format = 0;
  uint64_t rdev = 0;
  EXPECT_TRUE(fs_->ReadSpecial("/link", &format, &rdev).IsInvalidArgument());
  auto check = [&](const char* when) {
    FileStat st;
    ASSERT_OK(fs_->Stat("/null", &st));
    EXPECT_EQ(st.type, FileType::kSpecial) << when;
    ASSERT_OK(fs_->ReadSpecial("/null", &format, &rdev));
    EXPECT_EQ(format, kCharDevice) << when;
    EXPECT_EQ(rdev, (1u << 8) | 3) << when;
    ASSERT_OK(fs_->ReadSpecial("/fifo", &format, &rdev));
    EXPECT_EQ(format, kFifo) << when;
    ExpectClean();
  };
  check("live");
  Remount();
  check("after a remount");
  fs_.reset();
  Mount();
  check("after a kill");
  ASSERT_OK(fs_->Unlink("/fifo"));
  Remount();
  EXPECT_TRUE(fs_->ReadSpecial("/fifo", &format, &rdev).IsNotFound());
  EXPECT_EQ(fs_->Stats().files, 0u);
}

TEST(OwnershipOpTest, RoundTripsAndRejectsBadModes) {
  MetadataOp op;
  op.type = MetadataOp::Type::kSetOwnership;
  op.inode.id = 42;
  op.inode.mode = kModeSet | 0640;
  op.inode.uid = 1000;
  op.inode.gid = 50;
  std::string bytes;
  EncodeOp(op, &bytes);
  std::string_view in(bytes);
  MetadataOp back;
  ASSERT_OK(DecodeOp(&in, &back));
  EXPECT_TRUE(in.empty());
  EXPECT_EQ(back.inode.id, 42u);
  EXPECT_EQ(back.inode.mode, kModeSet | 0640);
  EXPECT_EQ(back.inode.uid, 1000u);
  EXPECT_EQ(back.inode.gid, 50u);
  op.inode.mode = 0100644;  // a file type in the mode: no writer produces it
  bytes.clear();
  EncodeOp(op, &bytes);
  in = bytes;
  EXPECT_TRUE(DecodeOp(&in, &back).IsCorruption());
  bytes.resize(bytes.size() - 1);  // cut short
  in = bytes;
  EXPECT_FALSE(DecodeOp(&in, &back).ok());
  // An image refuses it for an inode it does not have.
  MetadataImage image;
  op.inode.mode = kModeSet;
  EXPECT_TRUE(image.Apply(op).IsCorruption());
}

}  // namespace
}  // namespace hintfs
