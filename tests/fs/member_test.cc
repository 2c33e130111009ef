// Members that belong together: a copied or moved member set is never
// opened through the original's recorded places, and can be pointed at its
// own members.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fs/filesystem.h"
#include "tests/fs/test_util.h"

namespace hintfs {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class MemberTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MkfsOptions o;
    o.devices = {{Tier::kFast, "file:" + dir_.File("ssd.img") + "?zone_size=64KiB&zones=16"},
                 {Tier::kSlow, "file:" + dir_.File("hdd.img") + "?zone_size=64KiB&zones=16"}};
    ASSERT_OK(Filesystem::Mkfs(o));
    std::unique_ptr<Filesystem> fs;
    ASSERT_OK(Filesystem::Mount("file:" + dir_.File("ssd.img"), Options(), &fs));
    Write(fs.get(), "/before", "written before the copy");
    ASSERT_OK(fs->Unmount());
  }
  MountOptions Options() {
    MountOptions o;
    o.host_log_dir = dir_.path();
    return o;
  }
  static void Write(Filesystem* fs, const std::string& path, const std::string& data) {
    std::unique_ptr<FileWriter> w;
    ASSERT_OK(fs->OpenWriter(path, WriteMode::kTruncate, &w));
    ASSERT_OK(w->Append(data));
    ASSERT_OK(w->Sync());
    ASSERT_OK(w->Close());
  }
  test::ScratchDir dir_;
};

TEST_F(MemberTest, ACopyIsRefusedUntilItsOtherMembersAreNamed) {
  std::filesystem::copy_file(dir_.File("ssd.img"), dir_.File("ssd2.img"));
  std::filesystem::copy_file(dir_.File("hdd.img"), dir_.File("hdd2.img"));
  const std::string original_hdd = Slurp(dir_.File("hdd.img"));
  std::unique_ptr<Filesystem> fs;
  Status s = Filesystem::Mount("file:" + dir_.File("ssd2.img"), Options(), &fs);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.message().find("copied or moved"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("--member 1=URI"), std::string::npos) << s.ToString();
  // Named, the copy is a filesystem of its own; the original is untouched.
  MountOptions o = Options();
  o.member_uris[1] = "file:" + dir_.File("hdd2.img");
  ASSERT_OK(Filesystem::Mount("file:" + dir_.File("ssd2.img"), o, &fs));
  std::string big(300000, 'c');  // reaches the slow member
  Write(fs.get(), "/copy-only", big);
  FsckReport report;
  ASSERT_OK(fs->Check(/*deep=*/true, &report, nullptr));
  EXPECT_TRUE(report.ok());
  ASSERT_OK(fs->Unmount());
  EXPECT_EQ(Slurp(dir_.File("hdd.img")), original_hdd) << "the copy wrote into the original";
  ASSERT_OK(Filesystem::Mount("file:" + dir_.File("ssd.img"), Options(), &fs));
  FileStat st;
  EXPECT_TRUE(fs->Stat("/copy-only", &st).IsNotFound());
  ASSERT_OK(fs->Stat("/before", &st));
  ASSERT_OK(fs->Check(/*deep=*/true, &report, nullptr));
  EXPECT_TRUE(report.ok());
}

TEST_F(MemberTest, AMovedSetOpensWithItsMembersNamed) {
  std::filesystem::create_directory(dir_.File("moved"));
  std::filesystem::rename(dir_.File("ssd.img"), dir_.File("moved/ssd.img"));
  std::filesystem::rename(dir_.File("hdd.img"), dir_.File("moved/hdd.img"));
  std::unique_ptr<Filesystem> fs;
  // The slow member, opened first, is also not where mkfs put it.
  Status s = Filesystem::Mount("file:" + dir_.File("moved/hdd.img"), Options(), &fs);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  MountOptions o = Options();
  o.member_uris[0] = "file:" + dir_.File("moved/ssd.img");
  ASSERT_OK(Filesystem::Mount("file:" + dir_.File("moved/hdd.img"), o, &fs));
  FileStat st;
  EXPECT_OK(fs->Stat("/before", &st));
}

TEST_F(MemberTest, ADeviceOfAnotherFilesystemIsRefusedAsAMember) {
  MkfsOptions other;
  other.devices = {{Tier::kFast, "file:" + dir_.File("x.img") + "?zone_size=64KiB&zones=16"},
                   {Tier::kSlow, "file:" + dir_.File("y.img") + "?zone_size=64KiB&zones=16"}};
  ASSERT_OK(Filesystem::Mkfs(other));
  MountOptions o = Options();
  o.member_uris[1] = "file:" + dir_.File("y.img");
  std::unique_ptr<Filesystem> fs;
  Status s = Filesystem::Mount("file:" + dir_.File("ssd.img"), o, &fs);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.message().find("belongs to another filesystem"), std::string::npos) << s.ToString();
}

// Two copies of one set that both went on: naming one copy's slow member for
// the other's journal is refused at mount, naming the member, and even a
// repair mount (which skips that check) never reads one copy's bytes as the
// other's files.
TEST_F(MemberTest, AMemberFromADivergedCopyIsRefused) {
  std::unique_ptr<Filesystem> fs;
  ASSERT_OK(Filesystem::Mount("file:" + dir_.File("ssd.img"), Options(), &fs));
  Write(fs.get(), "/old", std::string(800000, 'a'));  // fills the fast member, seals slow zones
  ASSERT_OK(fs->Unmount());
  fs.reset();
  std::filesystem::copy_file(dir_.File("ssd.img"), dir_.File("ssd2.img"));
  std::filesystem::copy_file(dir_.File("hdd.img"), dir_.File("hdd2.img"));
  MountOptions copy = Options();
  copy.member_uris[1] = "file:" + dir_.File("hdd2.img");
  ASSERT_OK(Filesystem::Mount("file:" + dir_.File("ssd2.img"), copy, &fs));
  ASSERT_OK(fs->Unlink("/old"));  // the copy reuses the zones for other bytes
  ASSERT_OK(fs->SyncMetadata());
  Write(fs.get(), "/new", std::string(800000, 'b'));
  ASSERT_OK(fs->Unmount());
  fs.reset();
  MountOptions mixed = Options();
  mixed.member_uris[1] = "file:" + dir_.File("hdd2.img");
  Status s = Filesystem::Mount("file:" + dir_.File("ssd.img"), mixed, &fs);
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find("member 1 (file:" + dir_.File("hdd2.img") + ")"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("another copy"), std::string::npos) << s.ToString();
  mixed.repair = true;
  ASSERT_OK(Filesystem::Mount("file:" + dir_.File("ssd.img"), mixed, &fs));
  std::unique_ptr<FileReader> r;
  if (fs->OpenReader("/old", &r).ok()) {
    std::string data(r->Size(), '\0');
    size_t got = 0;
    EXPECT_FALSE(r->Read(0, data.size(), data.data(), &got).ok()) << "read /old from the other copy's bytes";
  } else {  // the repair found it does not read back and set it aside
    std::vector<DirEntry> aside;
    ASSERT_OK(fs->ReadDir("/lost+found", &aside));
    EXPECT_FALSE(aside.empty());
  }
}

}  // namespace
}  // namespace hintfs
