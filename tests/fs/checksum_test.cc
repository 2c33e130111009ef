// Block checksums: a damaged block is never served, GC and fsck --deep find
// it, and a full zone's checksums survive in its trailer across snapshots.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <random>

#include "fs/device/fault_injection.h"
#include "fs/filesystem.h"
#include "tests/fs/test_util.h"

namespace hintfs {
namespace {

// file: images, whose bytes a test can damage behind the filesystem's back.
class ChecksumTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fast_ = dir_.File("ssd.img");
    MkfsOptions o;
    o.devices = {{Tier::kFast, "file:" + fast_ + "?zone_size=64KiB&zones=24"},
                 {Tier::kSlow, "file:" + dir_.File("hdd.img") + "?zone_size=64KiB&zones=24"}};
    ASSERT_OK(Filesystem::Mkfs(o));
    Mount();
  }
  void Mount(const std::string& device_params = "") {
    fs_.reset();
    MountOptions o;
    o.host_log_dir = dir_.path();
    o.device_params = device_params;
    ASSERT_OK(Filesystem::Mount("file:" + fast_, o, &fs_));
  }
  void Write(const std::string& path, const std::string& data) {
    std::unique_ptr<FileWriter> w;
    ASSERT_OK(fs_->OpenWriter(path, WriteMode::kTruncate, &w));
    ASSERT_OK(w->Append(data));
    ASSERT_OK(w->Sync());
    ASSERT_OK(w->Close());
  }
  Status Read(const std::string& path, std::string* out) {
    std::unique_ptr<FileReader> r;
    Status s = fs_->OpenReader(path, &r);
    if (!s.ok()) return s;
    out->assign(r->Size(), '\0');
    size_t got = 0;
    s = r->Read(0, out->size(), &(*out)[0], &got);
    out->resize(got);
    return s;
  }
  // Flips one byte at a device offset of the fast image (unmounted).
  void FlipFastByte(uint64_t device_offset) {
    fs_.reset();
    int fd = ::open(fast_.c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    const off_t at = static_cast<off_t>((1 << 20) + device_offset);  // images keep data after 1 MiB
    char c = 0;
    ASSERT_EQ(pread(fd, &c, 1, at), 1);
    c ^= 0x10;
    ASSERT_EQ(pwrite(fd, &c, 1, at), 1);
    ::close(fd);
    Mount();
  }
  static std::string Random(size_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::string s(n, '\0');
    for (char& c : s) c = static_cast<char>(rng());
    return s;
  }

  test::ScratchDir dir_;
  std::string fast_;
  std::unique_ptr<Filesystem> fs_;
};

TEST_F(ChecksumTest, ADamagedBlockIsAnIoErrorNeverBytes) {
  std::string data = Random(30000, 1);
  Write("/f", data);
  FileStat st;
  ASSERT_OK(fs_->Stat("/f", &st));
  ASSERT_EQ(st.extents[0].device, 0u);
  FlipFastByte(st.extents[0].offset + 5000);
  std::string got;
  Status s = Read("/f", &got);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.message().find("checksum mismatch"), std::string::npos) << s.ToString();
  // Bytes of other blocks still read.
  std::unique_ptr<FileReader> r;
  ASSERT_OK(fs_->OpenReader("/f", &r));
  std::string head(4000, '\0');
  size_t n = 0;
  ASSERT_OK(r->Read(0, head.size(), &head[0], &n));
  EXPECT_EQ(head, data.substr(0, 4000));
  r.reset();
  FsckReport report;
  ASSERT_OK(fs_->Check(/*deep=*/true, &report, nullptr));
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.errors[0].find("checksum mismatch"), std::string::npos) << report.errors[0];
  FsckReport shallow;
  ASSERT_OK(fs_->Check(/*deep=*/false, &shallow, nullptr));
  EXPECT_TRUE(shallow.ok());  // only reading the data finds it
}

TEST_F(ChecksumTest, GcRefusesToCopyADamagedBlock) {
  std::string keep = Random(20000, 2);
  Write("/keep", keep);
  for (int i = 0; i < 3; i++) Write("/dead" + std::to_string(i), Random(10000, 10 + i));
  for (int i = 0; i < 3; i++) ASSERT_OK(fs_->Unlink("/dead" + std::to_string(i)));
  ASSERT_OK(fs_->SyncMetadata());
  FileStat st;
  ASSERT_OK(fs_->Stat("/keep", &st));
  FlipFastByte(st.extents[0].offset + 100);
  uint32_t freed = 0;
  Status s = fs_->CollectGarbage(8, &freed);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();  // the zone holding /keep was a victim
  EXPECT_NE(s.message().find("checksum mismatch"), std::string::npos) << s.ToString();
  std::string got;
  EXPECT_TRUE(Read("/keep", &got).IsIOError());  // still damaged: never "repaired" with bad bytes
}

// A device that stores a GC copy wrongly: GC reads its copies back before it
// switches a file to them, so the file keeps its intact old extents.
TEST_F(ChecksumTest, GcRefusesABadCopy) {
  const std::string domain = test::UniqueName("gc-copy");
  Mount("power_domain=" + domain);
  std::string keep = Random(20000, 3);
  Write("/keep", keep);
  for (int i = 0; i < 3; i++) Write("/dead" + std::to_string(i), Random(10000, 20 + i));
  for (int i = 0; i < 3; i++) ASSERT_OK(fs_->Unlink("/dead" + std::to_string(i)));
  ASSERT_OK(fs_->SyncMetadata());
  FileStat before;
  ASSERT_OK(fs_->Stat("/keep", &before));
  PowerDomain(domain, FaultPlan())->CorruptWrites(true);
  uint32_t freed = 0;
  Status s = fs_->CollectGarbage(8, &freed);
  PowerDomain(domain, FaultPlan())->CorruptWrites(false);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find("GC copy does not match its source"), std::string::npos) << s.ToString();
  FileStat after;
  ASSERT_OK(fs_->Stat("/keep", &after));
  EXPECT_EQ(after.extents, before.extents) << "switched to a bad copy";
  std::string got;
  ASSERT_OK(Read("/keep", &got));
  EXPECT_EQ(got, keep);
  // With a sound device GC goes on, and the file reads back the same.
  ASSERT_OK(fs_->CollectGarbage(8, &freed));
  ASSERT_OK(Read("/keep", &got));
  EXPECT_EQ(got, keep);
  FsckReport report;
  ASSERT_OK(fs_->Check(/*deep=*/true, &report, nullptr));
  for (const auto& e : report.errors) ADD_FAILURE() << e;
  fs_.reset();
  ResetPowerDomain(domain);
}

TEST_F(ChecksumTest, FullZonesKeepTheirChecksumsInTrailers) {
  // Many files fill many zones and roll the journal, whose snapshots then
  // drop the sealed zones' checksums: reads load them from the trailers.
  std::vector<std::string> data;
  for (int i = 0; i < 25; i++) {
    data.push_back(Random(50000 + i * 997, 100 + i));
    Write("/f" + std::to_string(i), data.back());
  }
  std::vector<ZoneReport> zones;
  ASSERT_OK(fs_->Zones(&zones));
  int full = 0;
  for (const ZoneReport& z : zones) full += z.condition == ZoneCondition::kFull && z.role != ZoneRole::kMetadata;
  ASSERT_GT(full, 5);
  for (int round = 0; round < 2; round++) {
    for (int i = 0; i < 25; i++) {
      std::string got;
      ASSERT_OK(Read("/f" + std::to_string(i), &got));
      ASSERT_EQ(got, data[i]) << i;
    }
    FsckReport report;
    ASSERT_OK(fs_->Check(/*deep=*/true, &report, nullptr));
    for (const auto& e : report.errors) ADD_FAILURE() << e;
    ASSERT_OK(fs_->Unmount());
    Mount();
  }
  EXPECT_GT(fs_->Stats().journal_epoch, 1u) << "the journal must have rolled";
}

TEST_F(ChecksumTest, ADamagedTrailerIsFoundByFsckAndFailsReads) {
  Write("/big", Random(200000, 7));  // fills zones: trailers written
  FileStat st;
  ASSERT_OK(fs_->Stat("/big", &st));
  const Extent& e = st.extents[0];
  const uint64_t zone_start = uint64_t{e.zone} * (64 << 10);
  ASSERT_EQ(e.device, 0u);
  // Roll the journal so that only the trailer holds the zone's checksums.
  uint64_t epoch = fs_->Stats().journal_epoch;
  for (int i = 0; i < 100; i++) {
    ASSERT_OK(fs_->Mkdir("/d" + std::to_string(i)));
    ASSERT_OK(fs_->SyncMetadata());
  }
  ASSERT_GT(fs_->Stats().journal_epoch, epoch);
  ASSERT_OK(fs_->Unmount());
  Mount();
  FlipFastByte(zone_start + (64 << 10) - 4096 + 40);  // inside the trailer's table
  FsckReport report;
  ASSERT_OK(fs_->Check(/*deep=*/true, &report, nullptr));
  ASSERT_FALSE(report.ok());
  std::string got;
  EXPECT_TRUE(Read("/big", &got).IsIOError());
}

}  // namespace
}  // namespace hintfs
