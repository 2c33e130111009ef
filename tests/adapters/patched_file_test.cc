// PatchedFile: writes anywhere in an append-only filesystem's file, read
// back before and after they are persisted out of place.
#include "adapters/common/patched_file.h"

#include <gtest/gtest.h>

#include "tests/fs/fs_fixture.h"

namespace hintfs {
namespace {

class PatchedFileTest : public test::FsTest {
 protected:
  void SetUp() override {
    test::FsTest::SetUp();
    Format();
    shared_.reset(fs_.release());
  }
  void TearDown() override {
    shared_.reset();
    test::FsTest::TearDown();
  }
  void Put(const std::string& path, const std::string& data) {
    std::unique_ptr<FileWriter> w;
    ASSERT_OK(shared_->OpenWriter(path, WriteMode::kTruncate, &w));
    ASSERT_OK(w->Append(data));
    ASSERT_OK(w->Close());
  }
  std::string Get(const std::string& path) {
    std::unique_ptr<FileReader> r;
    EXPECT_OK(shared_->OpenReader(path, &r));
    if (!r) return "<missing>";
    std::string out(r->Size(), '\0');
    size_t got = 0;
    EXPECT_OK(r->Read(0, out.size(), out.data(), &got));
    out.resize(got);
    return out;
  }
  static std::string ReadAll(const PatchedFile& f) {
    std::string out(f.Size(), '\0');
    size_t got = 0;
    EXPECT_OK(f.Read(0, out.size(), out.data(), &got));
    out.resize(got);
    return out;
  }
  std::shared_ptr<Filesystem> shared_;
};

TEST_F(PatchedFileTest, ReadsSeeWritesBeforeAndAfterPersist) {
  std::mt19937_64 rng(3);
  std::string expected = Random(&rng, 3 << 20);  // crosses the copy's 1 MiB chunks
  Put("/t.sst", expected);
  std::unique_ptr<PatchedFile> f;
  ASSERT_OK(PatchedFile::Open(shared_, "/t.sst", &f));
  f->Write(100, "first");
  f->Write(102, "OVER");  // overlaps the first: the later write wins
  f->Write((1 << 20) - 2, "across a chunk edge");
  expected.replace(100, 5, "first");
  expected.replace(102, 4, "OVER");
  expected.replace((1 << 20) - 2, 19, "across a chunk edge");
  EXPECT_EQ(ReadAll(*f), expected);
  EXPECT_NE(Get("/t.sst"), expected) << "nothing reaches the file before Persist";
  ASSERT_OK(f->Persist(/*sync=*/true));
  EXPECT_EQ(Get("/t.sst"), expected);
  EXPECT_EQ(ReadAll(*f), expected);
  // Past the end: a gap of zeros, then the write.
  f->Write(expected.size() + 10, "tail");
  expected += std::string(10, '\0') + "tail";
  ASSERT_OK(f->Close());
  EXPECT_EQ(Get("/t.sst"), expected);
  // The staging copy is gone, and the result survives a remount.
  std::vector<DirEntry> entries;
  ASSERT_OK(shared_->ReadDir("/", &entries));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].name, "t.sst");
  ASSERT_OK(shared_->Unmount());
  shared_.reset();
  Mount();
  shared_.reset(fs_.release());
  EXPECT_EQ(Get("/t.sst"), expected);
}

TEST_F(PatchedFileTest, CreatesAMissingFile) {
  std::unique_ptr<PatchedFile> f;
  ASSERT_OK(PatchedFile::Open(shared_, "/new", &f));
  EXPECT_EQ(f->Size(), 0u);
  f->Write(4, "data");
  ASSERT_OK(f->Close());
  EXPECT_EQ(Get("/new"), std::string(4, '\0') + "data");
}

TEST_F(PatchedFileTest, AFileBeingWrittenIsRefused) {
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(shared_->OpenWriter("/log", WriteMode::kTruncate, &w));
  ASSERT_OK(w->Append("record"));
  std::unique_ptr<PatchedFile> f;
  Status s = PatchedFile::Open(shared_, "/log", &f);
  EXPECT_TRUE(s.IsBusy()) << s.ToString();
  ASSERT_OK(w->Close());
  EXPECT_EQ(Get("/log"), "record");
  std::unique_ptr<PatchedFile> d;
  ASSERT_OK(shared_->Mkdir("/dir"));
  EXPECT_TRUE(PatchedFile::Open(shared_, "/dir", &d).IsInvalidArgument());
  EXPECT_TRUE(PatchedFile::Open(shared_, "/no/such", &d).IsNotFound());
}

}  // namespace
}  // namespace hintfs
