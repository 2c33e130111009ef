// Walking the tree: every entry once, depth first in name order, a
// directory before what it holds, and only the top level without recursion.
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

}  // namespace
}  // namespace hintfs
