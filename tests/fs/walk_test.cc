// Walking the tree: every entry once, depth first in name order, a
// directory before what it holds, and only the top level without recursion;
// making a directory with its parents.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fs/walk.h"
#include "tests/fs/fs_fixture.h"

namespace hintfs {
namespace {

class WalkTest : public test::FsTest {};

TEST_F(WalkTest, VisitsEveryEntryDepthFirstInNameOrder) {
  Format();
  ASSERT_OK(fs_->Mkdir("/b"));
  ASSERT_OK(fs_->Mkdir("/b/d"));
  WriteFile("/a", "1");
  WriteFile("/b/c", "2");
  WriteFile("/b/d/e", "3");
  WriteFile("/f", "4");
  std::vector<std::string> seen;
  auto record = [&](const std::string& path, const DirEntry& e) {
    seen.push_back(path + (e.type == FileType::kDirectory ? "/" : ""));
  };
  ASSERT_OK(Walk(fs_.get(), "/", /*recursive=*/true, record));
  EXPECT_EQ(seen, (std::vector<std::string>{"/a", "/b/", "/b/c", "/b/d/", "/b/d/e", "/f"}));
  seen.clear();
  ASSERT_OK(Walk(fs_.get(), "/b", /*recursive=*/false, record));
  EXPECT_EQ(seen, (std::vector<std::string>{"/b/c", "/b/d/"}));
  EXPECT_TRUE(Walk(fs_.get(), "/missing", true, record).IsNotFound());
  EXPECT_EQ(JoinPath("/", "x"), "/x");
  EXPECT_EQ(JoinPath("/b", "x"), "/b/x");
}

// mkdir -p: every missing directory made, existing ones passed over, and a
// failure names where it failed.
TEST_F(WalkTest, MakeDirectoriesMakesEveryMissingParent) {
  Format();
  ASSERT_OK(fs_->Mkdir("/a"));
  ASSERT_OK(MakeDirectories(fs_.get(), "/a/b/c"));
  ASSERT_OK(MakeDirectories(fs_.get(), "/a/b/c"));  // all there already
  FileStat st;
  ASSERT_OK(fs_->Stat("/a/b/c", &st));
  EXPECT_EQ(st.type, FileType::kDirectory);
  ASSERT_OK(MakeDirectories(fs_.get(), "/"));
  WriteFile("/f", "1");
  std::string failed;
  Status s = MakeDirectories(fs_.get(), "/f/g/h", &failed);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(failed, "/f/g");
}

}  // namespace
}  // namespace hintfs
