// Damaged metadata: a corrupt superblock or journal is reported with a clear
// error and nothing is written to the devices; decoders of on-disk structures
// reject garbage without crashing.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "fs/coding.h"
#include "fs/filesystem.h"
#include "fs/metadata.h"
#include "fs/superblock.h"
#include "tests/fs/test_util.h"

namespace hintfs {
namespace {

using test::ScratchDir;

constexpr uint64_t kDataOffset = 1 << 20;  // where zone 0 starts in a small image
constexpr uint64_t kZone = 256 << 10;

class RecoveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fast_ = dir_.File("fast.img");
    slow_ = dir_.File("slow.img");
    MkfsOptions opts;
    opts.devices = {{Tier::kFast, "file:" + fast_ + "?zone_size=256KiB&zones=16"},
                    {Tier::kSlow, "file:" + slow_ + "?zone_size=256KiB&zones=16"}};
    ASSERT_OK(Filesystem::Mkfs(opts));
    std::unique_ptr<Filesystem> fs;
    ASSERT_OK(Filesystem::Mount("file:" + fast_, MountOptions(), &fs));
    for (int i = 0; i < 6; i++) {
      std::unique_ptr<FileWriter> w;
      ASSERT_OK(fs->OpenWriter("/f" + std::to_string(i), WriteMode::kTruncate, &w));
      ASSERT_OK(w->Append(std::string(5000, static_cast<char>('a' + i))));
      ASSERT_OK(w->Sync());  // one journal batch each
    }
    ASSERT_OK(fs->Unmount());
  }

  static std::string Slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  static void FlipByte(const std::string& path, uint64_t offset) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(offset));
    char c = 0;
    f.read(&c, 1);
    c = static_cast<char>(c ^ 0x5a);
    f.seekp(static_cast<std::streamoff>(offset));
    f.write(&c, 1);
  }

  // Mounting must fail with Corruption and leave both images untouched.
  void ExpectMountRefused(const std::string& uri, const std::string& words) {
    std::string before_fast = Slurp(fast_), before_slow = Slurp(slow_);
    std::unique_ptr<Filesystem> fs;
    Status s = Filesystem::Mount(uri, MountOptions(), &fs);
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(s.message().find(words), std::string::npos) << s.ToString();
    fs.reset();
    EXPECT_TRUE(Slurp(fast_) == before_fast) << "fast image changed";
    EXPECT_TRUE(Slurp(slow_) == before_slow) << "slow image changed";
  }

  ScratchDir dir_;
  std::string fast_, slow_;
};

TEST_F(RecoveryTest, CorruptSuperblockIsRefused) {
  FlipByte(fast_, kDataOffset + 40);
  ExpectMountRefused("file:" + fast_, "superblock");
  // The other member still has an intact copy, but names the broken one.
  std::unique_ptr<Filesystem> fs;
  Status s = Filesystem::Mount("file:" + slow_, MountOptions(), &fs);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
}

TEST_F(RecoveryTest, DamagedJournalBatchIsNotSkipped) {
  // Zone 1 holds the journal: block 0 the snapshot, then one batch per sync.
  FlipByte(fast_, kDataOffset + kZone + 2 * 4096 + 40);
  ExpectMountRefused("file:" + fast_, "journal");
}

TEST_F(RecoveryTest, WipedJournalIsRefused) {
  for (uint64_t b = 0; b < 8; b++) FlipByte(fast_, kDataOffset + kZone + b * 4096);
  ExpectMountRefused("file:" + fast_, "journal");
}

TEST_F(RecoveryTest, IntactImageMountsAndReads) {
  std::unique_ptr<Filesystem> fs;
  ASSERT_OK(Filesystem::Mount("file:" + slow_, MountOptions(), &fs));
  std::unique_ptr<FileReader> r;
  ASSERT_OK(fs->OpenReader("/f5", &r));
  std::string buf(5000, '\0');
  size_t got = 0;
  ASSERT_OK(r->Read(0, 5000, &buf[0], &got));
  EXPECT_EQ(buf, std::string(5000, 'f'));
  r.reset();
  FsckReport report;
  ASSERT_OK(fs->Check(true, &report, nullptr));
  EXPECT_TRUE(report.ok());
  EXPECT_EQ(report.files, 6u);
}

TEST(Decoders, RejectGarbageWithoutCrashing) {
  std::mt19937_64 rng(42);
  MetadataImage image;
  int decoded = 0;
  for (int i = 0; i < 20000; i++) {
    std::string bytes(rng() % 64, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    // A known op type, the compact extent codes included.
    if (!bytes.empty()) bytes[0] = static_cast<char>(i % 3 == 0 ? 19 + rng() % 2 : 1 + rng() % 18);
    std::string_view in(bytes);
    MetadataOp op;
    if (DecodeOp(&in, &op).ok()) {
      decoded++;
      image.Apply(op);  // may fail, must not crash
    }
    Superblock sb;
    std::string block(Superblock::kSize, '\0');
    for (char& c : block) c = static_cast<char>(rng());
    EXPECT_FALSE(Superblock::Decode(block, &sb).ok());
  }
  EXPECT_GT(decoded, 100);
}

TEST(Decoders, OpsRoundTrip) {
  MetadataOp op;
  op.type = MetadataOp::Type::kSetExtents;
  op.inode.id = 77;
  op.from_index = 3;
  op.inode.size = 12345;
  op.inode.mtime_ns = 99;
  op.inode.extents = {{1, 2, 3 * 4096, 100}, {0, 9, 9 * 4096, 12245}};
  std::string enc;
  EncodeOp(op, &enc);
  std::string_view in(enc);
  MetadataOp back;
  ASSERT_OK(DecodeOp(&in, &back));
  EXPECT_TRUE(in.empty());
  EXPECT_EQ(back.inode.id, 77u);
  EXPECT_EQ(back.from_index, 3u);
  EXPECT_EQ(back.inode.extents.size(), 2u);
  EXPECT_TRUE(back.inode.extents[1] == op.inode.extents[1]);
  // Every truncation is an error.
  for (size_t n = 0; n < enc.size(); n++) {
    std::string_view cut(enc.data(), n);
    MetadataOp x;
    EXPECT_TRUE(DecodeOp(&cut, &x).IsCorruption()) << n;
  }
}

// Extents go to the journal as varints (codes 19 and 20), about 10 bytes
// each instead of 24; the fixed-width codes 5 and 18 of older journals still
// read, and a varint that runs on is an error.
TEST(Decoders, ExtentsAreCompactAndTheOldCodesStillRead) {
  MetadataOp op;
  op.type = MetadataOp::Type::kSetExtents;
  op.inode.id = 1ull << 40;
  op.from_index = 300;
  op.inode.mtime_ns = -5;
  op.inode.tail = "tail";
  for (uint32_t i = 0; i < 100; i++) op.inode.extents.push_back({i % 3, 70000 + i, (5ull << 40) + 512 * i, 1040});
  op.inode.extents.push_back({0, 1, 4096, 1ull << 33});
  op.inode.size = 100 * 1040 + (1ull << 33) + 4;
  for (MetadataOp::Type type : {MetadataOp::Type::kSetExtents, MetadataOp::Type::kReplaceExtents}) {
    op.type = type;
    op.replaced = type == MetadataOp::Type::kReplaceExtents ? 7 : 0;
    std::string enc;
    EncodeOp(op, &enc);
    EXPECT_EQ(enc[0], type == MetadataOp::Type::kSetExtents ? 19 : 20);
    EXPECT_LT(enc.size(), 101u * 24 * 6 / 10) << "24 bytes an extent in fixed width; under 14 here, past 4 TiB";
    std::string_view in(enc);
    MetadataOp back;
    ASSERT_OK(DecodeOp(&in, &back));
    EXPECT_TRUE(in.empty());
    EXPECT_EQ(back.type, type);
    EXPECT_EQ(back.inode.id, op.inode.id);
    EXPECT_EQ(back.from_index, op.from_index);
    EXPECT_EQ(back.replaced, op.replaced);
    EXPECT_EQ(back.inode.size, op.inode.size);
    EXPECT_EQ(back.inode.mtime_ns, op.inode.mtime_ns);
    EXPECT_EQ(back.inode.extents, op.inode.extents);
    EXPECT_EQ(back.inode.tail, type == MetadataOp::Type::kSetExtents ? "tail" : "");
  }
  // Code 5 as older journals hold it: inode, from, size, mtime, count and
  // extents in fixed width, then the tail.
  std::string old;
  old.push_back(5);
  PutFixed64(&old, 77);
  PutFixed32(&old, 0);
  PutFixed64(&old, 4099);
  PutFixed64(&old, 9);
  PutFixed32(&old, 1);
  for (uint64_t v : {2ull, 3ull}) PutFixed32(&old, static_cast<uint32_t>(v));
  PutFixed64(&old, 8192);
  PutFixed64(&old, 4096);
  PutLengthPrefixed(&old, "abc");
  std::string_view in(old);
  MetadataOp back;
  ASSERT_OK(DecodeOp(&in, &back));
  EXPECT_EQ(back.type, MetadataOp::Type::kSetExtents);
  EXPECT_EQ(back.inode.id, 77u);
  EXPECT_EQ(back.inode.extents, (std::vector<Extent>{{2, 3, 8192, 4096}}));
  EXPECT_EQ(back.inode.tail, "abc");
  // A varint of eleven bytes, or one past 32 bits where 32 fit, is refused.
  for (std::string bad : {std::string("\x13") + std::string(11, '\xff'),
                          std::string("\x13\x01\xff\xff\xff\xff\x7f")}) {
    in = bad;
    EXPECT_TRUE(DecodeOp(&in, &back).IsCorruption());
  }
}

}  // namespace
}  // namespace hintfs
