// FilesystemWrapper forwards every call it is not told to change.
#include "fs/filesystem_wrapper.h"

#include <gtest/gtest.h>

#include "tests/fs/fs_fixture.h"

namespace hintfs {
namespace {

// Changes one call: refuses to unlink, and counts the refusals.
class NoUnlink : public FilesystemWrapper {
 public:
  using FilesystemWrapper::FilesystemWrapper;
  Status Unlink(const std::string& path) override {
    refused++;
    return Status::NotSupported("no unlink of " + path);
  }
  int refused = 0;
};

class FilesystemWrapperTest : public test::FsTest {};

TEST_F(FilesystemWrapperTest, ForwardsWhatItDoesNotChange) {
  Format();
  std::shared_ptr<Filesystem> base(fs_.release());
  NoUnlink wrapped(base);
  EXPECT_EQ(wrapped.target(), base.get());
  ASSERT_OK(wrapped.Mkdir("/d"));
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(wrapped.OpenWriter("/d/f", WriteMode::kTruncate, &w));
  ASSERT_OK(w->Append("through the wrapper"));
  ASSERT_OK(w->Close());
  ASSERT_OK(wrapped.Rename("/d/f", "/d/g"));
  FileStat st;
  ASSERT_OK(base->Stat("/d/g", &st));  // the target holds what the wrapper wrote
  EXPECT_EQ(st.size, 19u);
  EXPECT_TRUE(wrapped.Stat("/d/f", &st).IsNotFound());  // errors are the target's
  EXPECT_TRUE(wrapped.Unlink("/d/g").IsNotSupported());
  EXPECT_EQ(wrapped.refused, 1);
  ASSERT_OK(base->Stat("/d/g", &st));
  std::vector<DirEntry> entries;
  ASSERT_OK(wrapped.ReadDir("/d", &entries));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(wrapped.superblock().fs_uuid, base->superblock().fs_uuid);
  FsckReport report;
  ASSERT_OK(wrapped.Check(/*deep=*/true, &report, nullptr));
  EXPECT_TRUE(report.ok());
  ASSERT_OK(wrapped.Unmount());
}

}  // namespace
}  // namespace hintfs
