// Device figures: a kernel block device that rotates reports a disk's
// figures, so that what depends on a disk's seek happens on real disks too;
// the wrapped device's I/O is unchanged.
#include "fs/device/device_figures.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "fs/device/zoned_device.h"
#include "tests/fs/test_util.h"

namespace hintfs {
namespace {

// A directory laid out as sysfs lays out a disk and its first partition.
class FakeSysfs : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/hintfs-sysfs-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    std::filesystem::create_directories(disk() + "/queue");
    std::filesystem::create_directories(partition());
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  std::string disk() const { return root_ + "/sda"; }
  std::string partition() const { return root_ + "/sda/sda1"; }
  void SetRotational(const std::string& text) { std::ofstream(disk() + "/queue/rotational") << text; }

  std::string root_;
};

TEST_F(FakeSysfs, ADiskAndItsPartitionsRotateWhenItsQueueSaysSo) {
  SetRotational("1\n");
  EXPECT_TRUE(SysfsBlockDirRotates(disk()));
  EXPECT_TRUE(SysfsBlockDirRotates(partition())) << "a partition has its disk's queue";
  SetRotational("0\n");
  EXPECT_FALSE(SysfsBlockDirRotates(disk()));
  EXPECT_FALSE(SysfsBlockDirRotates(partition()));
}

TEST_F(FakeSysfs, AnUnreadableOrOddFlagIsNoDisk) {
  EXPECT_FALSE(SysfsBlockDirRotates(disk())) << "no queue/rotational";
  SetRotational("yes\n");
  EXPECT_FALSE(SysfsBlockDirRotates(disk()));
  SetRotational("2\n");
  EXPECT_FALSE(SysfsBlockDirRotates(disk()));
  EXPECT_FALSE(SysfsBlockDirRotates(root_ + "/missing"));
}

TEST(DeviceFiguresTest, OnlyBlockDevicesAreAskedWhetherTheyRotate) {
  EXPECT_FALSE(BlockDeviceRotates("/nonexistent/device"));
  EXPECT_FALSE(BlockDeviceRotates("/dev/null")) << "a character device";
  char path[] = "/tmp/hintfs-figures-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  EXPECT_FALSE(BlockDeviceRotates(path)) << "a regular file";
  unlink(path);
}

TEST(DeviceFiguresTest, AWrappedDeviceReportsTheFiguresAndKeepsItsData) {
  std::unique_ptr<ZonedDevice> dev;
  ASSERT_OK(OpenZonedDevice("mem:figures?zones=4&zone_size=1MiB", true, &dev));
  EXPECT_EQ(dev->random_read_latency_us(), 0) << "an untimed device knows no figures";
  EXPECT_FALSE(SeekOutweighsTransfer(*dev, 1 << 20));

  const TimingProfile& disk = NominalDiskProfile();
  EXPECT_EQ(disk.name, "st14000");
  dev = WithFigures(std::move(dev), disk);
  EXPECT_DOUBLE_EQ(dev->random_read_latency_us(), disk.read_access_us);
  EXPECT_DOUBLE_EQ(dev->read_mib_per_s(), disk.read_mib_per_s);
  EXPECT_NEAR(dev->random_read_iops(), 115, 5) << "the st14000's 4 KiB random reads per second";
  EXPECT_TRUE(SeekOutweighsTransfer(*dev, 1 << 20)) << "a disk's seek outweighs a MiB's transfer";

  const std::string data(8192, 'x');
  ASSERT_OK(dev->Write(0, data.data(), data.size()));
  std::string back(data.size(), '\0');
  ASSERT_OK(dev->Read(0, back.size(), &back[0]));
  EXPECT_EQ(back, data);
  EXPECT_EQ(dev->uri(), "mem:figures");
  EXPECT_EQ(dev->busy_ns(), 0u) << "nothing waits on the figures";
}

}  // namespace
}  // namespace hintfs
