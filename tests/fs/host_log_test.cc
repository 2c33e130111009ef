// The host log keeps records across the loss of the process that wrote them,
// only for the owner it was started for, and never reads a torn record or
// one left from an earlier generation.
#include "fs/host_log.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstring>

#include "fs/op_backlog.h"
#include "tests/fs/test_util.h"

namespace hintfs {
namespace {

HostLogOwner Owner(uint64_t seq) {
  HostLogOwner o;
  o.fs_uuid = NewUuid();
  o.boot_id = "boot";
  o.seq = seq;
  return o;
}

class HostLogTest : public ::testing::TestWithParam<bool> {
 protected:
  // A file in a scratch directory, or process memory.
  std::string Path() {
    return GetParam() ? dir_.File("fs.hostlog") : "mem:" + name_;
  }
  void TearDown() override { HostLog::ForgetMemory("mem:" + name_); }
  std::unique_ptr<HostLog> OpenLog(uint64_t capacity = 1 << 20) {
    std::unique_ptr<HostLog> log;
    EXPECT_TRUE(HostLog::Open(Path(), capacity, /*create=*/true, &log).ok());
    return log;
  }
  test::ScratchDir dir_;
  std::string name_ = test::UniqueName("hostlog");
};

TEST_P(HostLogTest, RecordsOutliveTheWriterForTheirOwnerOnly) {
  HostLogOwner owner = Owner(7);
  {
    auto log = OpenLog();
    log->Start(owner);
    ASSERT_TRUE(log->Append("first"));
    ASSERT_TRUE(log->Append(std::string(5000, 'x')));
  }  // the writer is gone without removing the log
  auto log = OpenLog();
  std::vector<std::string> got = log->Records(owner);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], "first");
  EXPECT_EQ(got[1], std::string(5000, 'x'));
  HostLogOwner later = owner;
  later.seq = 8;  // the journal moved on: the records are in it
  EXPECT_TRUE(log->Records(later).empty());
  HostLogOwner rebooted = owner;
  rebooted.boot_id = "other boot";
  EXPECT_TRUE(log->Records(rebooted).empty());
  HostLogOwner power_lost = owner;
  power_lost.power_cycles = 1;
  EXPECT_TRUE(log->Records(power_lost).empty());
}

TEST_P(HostLogTest, StartForgetsEarlierGenerationsEvenWhereTheirBytesRemain) {
  HostLogOwner owner = Owner(1);
  auto log = OpenLog();
  log->Start(owner);
  for (int i = 0; i < 10; i++) ASSERT_TRUE(log->Append("old record " + std::to_string(i)));
  log->Start(owner);
  ASSERT_TRUE(log->Append("old record 0"));  // same size and place as before
  std::vector<std::string> got = log->Records(owner);
  ASSERT_EQ(got.size(), 1u);
}

TEST_P(HostLogTest, ATornRecordEndsTheLog) {
  if (!GetParam()) GTEST_SKIP() << "damage is injected into the file";
  HostLogOwner owner = Owner(3);
  auto log = OpenLog();
  log->Start(owner);
  ASSERT_TRUE(log->Append("kept"));
  ASSERT_TRUE(log->Append("torn by a kill"));
  ASSERT_TRUE(log->Append("after the tear"));
  log.reset();
  // Damage the second record's payload, as a kill in mid-copy leaves it.
  FILE* f = std::fopen(Path().c_str(), "r+b");
  ASSERT_NE(f, nullptr);
  std::fseek(f, HostLog::kHeaderSize + 24 + 20 + 3, SEEK_SET);
  std::fputc('!', f);
  std::fclose(f);
  log = OpenLog();
  std::vector<std::string> got = log->Records(owner);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], "kept");
}

TEST_P(HostLogTest, AFullLogRefusesAndStartsOver) {
  HostLogOwner owner = Owner(4);
  auto log = OpenLog(2 * HostLog::kHeaderSize);  // room for 4 KiB of records
  log->Start(owner);
  EXPECT_TRUE(log->Append(std::string(2000, 'a')));
  EXPECT_TRUE(log->Append(std::string(2000, 'a')));
  EXPECT_FALSE(log->Append(std::string(2000, 'b')));
  EXPECT_EQ(log->Records(owner).size(), 2u);
  log->Start(owner);
  EXPECT_TRUE(log->Append(std::string(2000, 'b')));
}

TEST_P(HostLogTest, RemoveLeavesNothing) {
  HostLogOwner owner = Owner(5);
  auto log = OpenLog();
  log->Start(owner);
  ASSERT_TRUE(log->Append("x"));
  log->Remove();
  log.reset();
  std::unique_ptr<HostLog> reopened;
  if (GetParam()) {
    struct stat st;
    EXPECT_NE(stat(Path().c_str(), &st), 0);
    EXPECT_TRUE(HostLog::Open(Path(), 1 << 20, /*create=*/false, &reopened).IsNotFound());
  } else {
    ASSERT_TRUE(HostLog::Open(Path(), 1 << 20, /*create=*/false, &reopened).ok());
    EXPECT_TRUE(reopened->Records(owner).empty());
  }
}

INSTANTIATE_TEST_SUITE_P(Backings, HostLogTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "File" : "Memory"; });

// A file's "set extents" and "append tail" ops join into one that replays to the same image.
TEST(OpBacklogTest, MergedOpsReplayToTheSameImage) {
  MetadataImage image, replay;
  std::vector<MetadataOp> all;
  auto apply = [&](const MetadataOp& op) {
    ASSERT_TRUE(image.Apply(op).ok());
    all.push_back(op);
  };
  MetadataOp root;
  root.type = MetadataOp::Type::kCreateInode;
  root.inode.id = kRootInode;
  root.inode.type = FileType::kDirectory;
  ASSERT_TRUE(image.Apply(root).ok());
  ASSERT_TRUE(replay.Apply(root).ok());
  OpBacklog backlog;
  MetadataOp create;
  create.type = MetadataOp::Type::kCreateInode;
  create.inode.id = 2;
  apply(create);
  backlog.Add({create}, image);
  uint64_t offset = 1 << 20;
  std::vector<Extent> extents;
  std::string tail;
  for (int i = 0; i < 20; i++) {
    MetadataOp op;
    op.inode.id = 2;
    if (i % 3 == 0) {  // whole blocks reached a zone: a new extent, a new tail
      op.type = MetadataOp::Type::kSetExtents;
      op.from_index = static_cast<uint32_t>(extents.size());
      extents.push_back({0, 4, offset, 4096});
      offset += 4096;
      op.inode.extents = {extents.back()};
      tail = std::string(static_cast<size_t>(i), 't');
      op.inode.tail = tail;
    } else {  // a flush that only grew the tail
      op.type = MetadataOp::Type::kAppendTail;
      op.inode.tail = std::string(10, static_cast<char>('a' + i));
      tail += op.inode.tail;
    }
    op.inode.size = extents.size() * 4096 + tail.size();
    apply(op);
    backlog.Add({op}, image);
  }
  std::vector<MetadataOp> merged = backlog.Take(image);
  EXPECT_EQ(merged.size(), 2u);  // the create and one "set extents"
  for (const MetadataOp& op : merged) ASSERT_TRUE(replay.Apply(op).ok());
  const InodeRecord& want = image.inodes().at(2);
  const InodeRecord& got = replay.inodes().at(2);
  EXPECT_EQ(got.extents, want.extents);
  EXPECT_EQ(got.size, want.size);
  EXPECT_EQ(got.tail, want.tail);
  EXPECT_TRUE(backlog.empty());
}

// Overwrites' replacements stay as they are until a "set extents" or
// "append tail" starts a joined op; after it they join it. Either way the
// ops replay to the same image.
TEST(OpBacklogTest, ReplacementsStayVerbatimUntilAJoinedOp) {
  MetadataImage image, replay;
  auto both = [&](const MetadataOp& op) {
    ASSERT_TRUE(image.Apply(op).ok());
    ASSERT_TRUE(replay.Apply(op).ok());
  };
  MetadataOp root;
  root.type = MetadataOp::Type::kCreateInode;
  root.inode.id = kRootInode;
  root.inode.type = FileType::kDirectory;
  both(root);
  MetadataOp create;
  create.type = MetadataOp::Type::kCreateInode;
  create.inode.id = 2;
  both(create);
  MetadataOp set;  // the file as an earlier batch left it: 8 blocks
  set.type = MetadataOp::Type::kSetExtents;
  set.inode.id = 2;
  for (uint64_t b = 0; b < 8; b++) set.inode.extents.push_back({0, 4, b * 4096, 4096});
  set.inode.size = 8 * 4096;
  both(set);
  OpBacklog backlog;
  auto add = [&](const MetadataOp& op) {
    ASSERT_TRUE(image.Apply(op).ok());
    backlog.Add({op}, image);
  };
  auto replace = [&](uint32_t index, uint64_t new_offset) {
    MetadataOp op;
    op.type = MetadataOp::Type::kReplaceExtents;
    op.inode.id = 2;
    op.from_index = index;
    op.replaced = 1;
    op.inode.extents = {{0, 5, new_offset, 4096}};
    op.inode.size = image.inodes().at(2).size;
    add(op);
  };
  replace(3, 0);
  replace(6, 4096);
  MetadataOp tail;
  tail.type = MetadataOp::Type::kAppendTail;
  tail.inode.id = 2;
  tail.inode.tail = "abc";
  tail.inode.size = 8 * 4096 + 3;
  add(tail);
  replace(1, 8192);
  std::vector<MetadataOp> ops = backlog.Take(image);
  ASSERT_EQ(ops.size(), 3u);  // two replacements as they were, then one joined op
  EXPECT_EQ(ops[0].type, MetadataOp::Type::kReplaceExtents);
  EXPECT_EQ(ops[0].inode.extents.size(), 1u);
  EXPECT_EQ(ops[2].type, MetadataOp::Type::kSetExtents);
  EXPECT_EQ(ops[2].from_index, 1u);
  for (const MetadataOp& op : ops) ASSERT_TRUE(replay.Apply(op).ok());
  EXPECT_EQ(replay.inodes().at(2).extents, image.inodes().at(2).extents);
  EXPECT_EQ(replay.inodes().at(2).tail, "abc");
}

}  // namespace
}  // namespace hintfs
