#include "hints/file_tag.h"

#include <gtest/gtest.h>

#include "fs/coding.h"

namespace hintfs {
namespace {

TEST(FileTagTest, RoundTrips) {
  FileTag t;
  t.level = 3;
  t.job = 77;
  t.reason = "compaction";
  std::string bytes = EncodeFileTag(t);
  EXPECT_EQ(bytes[0], 1);
  FileTag back;
  ASSERT_TRUE(DecodeFileTag(bytes, &back).ok());
  EXPECT_TRUE(back == t);
}

TEST(FileTagTest, EmptyIsNoTag) {
  FileTag back;
  back.level = 5;
  ASSERT_TRUE(DecodeFileTag("", &back).ok());
  EXPECT_TRUE(back == FileTag());
}

TEST(FileTagTest, ReadsFormatOneTags) {
  // What the filesystem returns for an op 10 of a format 1 image.
  std::string bytes(1, '\0');
  PutFixed32(&bytes, 2);
  PutFixed64(&bytes, 9);
  PutLengthPrefixed(&bytes, "flush");
  FileTag back;
  ASSERT_TRUE(DecodeFileTag(bytes, &back).ok());
  EXPECT_EQ(back.level, 2);
  EXPECT_EQ(back.job, 9u);
  EXPECT_EQ(back.reason, "flush");
}

TEST(FileTagTest, RefusesBadBytes) {
  FileTag t;
  t.level = 1;
  t.reason = "flush";
  std::string good = EncodeFileTag(t);
  FileTag back;
  EXPECT_TRUE(DecodeFileTag(std::string(1, '\x02') + good.substr(1), &back).IsCorruption());  // version
  EXPECT_TRUE(DecodeFileTag(good.substr(0, good.size() - 1), &back).IsCorruption());           // short
  EXPECT_TRUE(DecodeFileTag(good + "x", &back).IsCorruption());                                // long
  EXPECT_TRUE(FileTagOf(good + "x") == FileTag());
}

TEST(FileTagTest, NamesTheClassesItDefines) {
  EXPECT_EQ(FileClassName(kWalClass), "wal");
  EXPECT_EQ(FileClassName(kCacheClass), "cache");
  EXPECT_EQ(FileClassName(ZoneRole::kData), "data");
  EXPECT_EQ(FileClassName(FileClass(9)), "class-9");
}

}  // namespace
}  // namespace hintfs
