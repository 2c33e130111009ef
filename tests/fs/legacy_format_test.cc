// An image written by the previous metadata format (format 1: op 10 held the
// tag's fields, written by the hhzs policy under db_bench; see
// tests/fs/data/README) mounts, reads back whole, keeps its file classes and
// tags, and takes new writes.
#include <cstdlib>
#include <string>

#include "fs/coding.h"
#include "fs/filesystem.h"
#include "tests/fs/test_util.h"

namespace hintfs {
namespace test {
namespace {

// The image recorded "hhzs", a policy of placement/; the filesystem needs
// only something of that name to place new writes.
class StandInPolicy : public FastFirstPolicy {
 public:
  std::string name() const override { return "hhzs"; }
};

class LegacyFormatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = scratch_.path();
    const char* data = std::getenv("HINTFS_TEST_DATA");
    ASSERT_NE(data, nullptr) << "HINTFS_TEST_DATA names tests/fs/data";
    std::string cmd = "tar -xJf '" + std::string(data) + "/format1_hhzs.tar.xz' -C '" + dir_ + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  void TearDown() override { fs_.reset(); }

  void Mount() {
    fs_.reset();
    MountOptions opts;
    opts.policy_factory = [](const std::string& name, std::shared_ptr<AllocationPolicy>* policy) {
      if (name != "hhzs") return Status::NotSupported(name);
      *policy = std::make_shared<StandInPolicy>();
      return Status::OK();
    };
    opts.member_uris[1] = "file:" + dir_ + "/slow.img";  // moved here from where it was made
    ASSERT_OK(Filesystem::Mount("file:" + dir_ + "/fast.img", opts, &fs_));
  }

  ScratchDir scratch_;
  std::string dir_;
  std::unique_ptr<Filesystem> fs_;
};

TEST_F(LegacyFormatTest, OpensReadsAndKeepsClassesAndTags) {
  Mount();
  std::vector<DirEntry> entries;
  ASSERT_OK(fs_->ReadDir("/db", &entries));
  int tables = 0, wals = 0;
  for (const DirEntry& e : entries) {
    const std::string path = "/db/" + e.name;
    FileStat st;
    ASSERT_OK(fs_->Stat(path, &st));
    std::unique_ptr<FileReader> r;
    ASSERT_OK(fs_->OpenReader(path, &r));
    std::string buf(st.size, '\0');
    size_t got = 0;
    ASSERT_OK(r->Read(0, buf.size(), &buf[0], &got));  // every block checks
    EXPECT_EQ(got, st.size);
    if (e.name.size() > 4 && e.name.compare(e.name.size() - 4, 4, ".log") == 0) {
      wals++;
      EXPECT_EQ(st.role, FileClass(3)) << path;  // the WAL class id of format 1
    }
    if (e.name.size() > 4 && e.name.compare(e.name.size() - 4, 4, ".sst") == 0) {
      tables++;
      EXPECT_EQ(st.role, ZoneRole::kData);
      // Op 10's bytes behind a version-0 byte: level 2, a job, "compaction".
      ASSERT_EQ(st.tag.size(), 1u + 4 + 8 + 4 + 10) << path;
      EXPECT_EQ(st.tag[0], '\0');
      EXPECT_EQ(DecodeFixed32(&st.tag[1]), 2u);
      EXPECT_EQ(st.tag.substr(13), std::string("\x0a\0\0\0compaction", 14));
    }
  }
  EXPECT_EQ(tables, 4);
  EXPECT_EQ(wals, 1);
  FsckReport report;
  ASSERT_OK(fs_->Check(/*deep=*/true, &report, nullptr));
  for (const auto& e : report.errors) ADD_FAILURE() << "fsck: " << e;
}

TEST_F(LegacyFormatTest, TakesNewTagsAndWritesAndRemounts) {
  Mount();
  ASSERT_OK(fs_->SetTag("/db/000030.sst", "new"));
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/db/new", WriteMode::kTruncate, &w));
  ASSERT_OK(w->Append("written by this format"));
  ASSERT_OK(w->Sync());
  ASSERT_OK(w->Close());
  ASSERT_OK(fs_->Unmount());
  Mount();
  FileStat st;
  ASSERT_OK(fs_->Stat("/db/000030.sst", &st));
  EXPECT_EQ(st.tag, "new");
  ASSERT_OK(fs_->Stat("/db/000031.sst", &st));
  EXPECT_EQ(st.tag[0], '\0');
  ASSERT_OK(fs_->Stat("/db/new", &st));
  EXPECT_EQ(st.size, 22u);
}

}  // namespace
}  // namespace test
}  // namespace hintfs
