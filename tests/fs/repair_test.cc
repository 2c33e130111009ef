// Repair (MountOptions::repair, fsck --repair): a filesystem whose extents
// point at data the devices lost mounts again, the damaged files set aside
// in /lost+found, every other file kept.
#include <gtest/gtest.h>

#include "fs/filesystem.h"
#include "fs/device/zoned_device.h"
#include "tests/fs/test_util.h"

namespace hintfs {
namespace {

TEST(RepairTest, ALostZoneIsCutOutAndItsFileSetAside) {
  test::ScratchDir dir;
  const std::string fast = "file:" + dir.File("ssd.img");
  MkfsOptions mk;
  mk.devices = {{Tier::kFast, fast + "?zone_size=64KiB&zones=24"},
                {Tier::kSlow, "file:" + dir.File("hdd.img") + "?zone_size=64KiB&zones=24"}};
  ASSERT_OK(Filesystem::Mkfs(mk));
  MountOptions o;
  o.host_log_dir = dir.path();
  std::unique_ptr<Filesystem> fs;
  ASSERT_OK(Filesystem::Mount(fast, o, &fs));
  auto write = [&](const std::string& path, const std::string& data) {
    std::unique_ptr<FileWriter> w;
    ASSERT_OK(fs->OpenWriter(path, WriteMode::kTruncate, &w));
    ASSERT_OK(w->Append(data));
    ASSERT_OK(w->Sync());
    ASSERT_OK(w->Close());
  };
  write("/keep", std::string(20000, 'k'));
  write("/lost", std::string(150000, 'l'));  // spans zones
  FileStat keep, lost;
  ASSERT_OK(fs->Stat("/keep", &keep));
  ASSERT_OK(fs->Stat("/lost", &lost));
  ASSERT_GE(lost.extents.size(), 2u);
  const Extent gone = lost.extents[1];
  ASSERT_NE(gone.zone, keep.extents[0].zone);
  ASSERT_OK(fs->Unmount());
  fs.reset();
  {  // The zone holding part of /lost is wiped behind the filesystem's back.
    std::unique_ptr<ZonedDevice> dev;
    ASSERT_OK(OpenZonedDevice(gone.device == 0 ? fast : "file:" + dir.File("hdd.img"), false, &dev));
    ASSERT_OK(dev->ResetZone(gone.zone));
  }
  Status s = Filesystem::Mount(fast, o, &fs);
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  o.repair = true;
  ASSERT_OK(Filesystem::Mount(fast, o, &fs));
  std::vector<std::string> repairs = fs->Stats().repairs;
  ASSERT_EQ(repairs.size(), 2u);
  EXPECT_NE(repairs[0].find("cut to"), std::string::npos) << repairs[0];
  EXPECT_NE(repairs[1].find("/lost moved to /lost+found/"), std::string::npos) << repairs[1];
  ASSERT_OK(fs->Unmount());
  o.repair = false;
  ASSERT_OK(Filesystem::Mount(fast, o, &fs));
  std::unique_ptr<FileReader> r;
  ASSERT_OK(fs->OpenReader("/keep", &r));
  std::string got(20000, '\0');
  size_t n = 0;
  ASSERT_OK(r->Read(0, got.size(), &got[0], &n));
  EXPECT_EQ(got, std::string(20000, 'k'));
  r.reset();
  EXPECT_TRUE(fs->Stat("/lost", &lost).IsNotFound());
  std::vector<DirEntry> entries;
  ASSERT_OK(fs->ReadDir(kLostAndFound, &entries));
  ASSERT_EQ(entries.size(), 1u);
  FileStat set_aside;
  ASSERT_OK(fs->Stat(std::string(kLostAndFound) + "/" + entries[0].name, &set_aside));
  EXPECT_EQ(set_aside.size, lost.extents[0].length);  // what lay before the lost zone
  FsckReport report;
  ASSERT_OK(fs->Check(/*deep=*/true, &report, nullptr));
  for (const auto& e : report.errors) ADD_FAILURE() << e;
}

}  // namespace
}  // namespace hintfs
