// The blk: backend on preallocated files (the conformance suite covers the
// zone rules; these cover the layout, its guards and the I/O paths). The QEMU
// guest job runs the suite on real NVMe and SATA block devices.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "fs/device/zoned_device.h"
#include "tests/fs/test_util.h"

namespace hintfs {
namespace {

using test::MakeFileOfSize;
using test::ScratchDir;

std::string Pattern(size_t n, char seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; i++) s[i] = static_cast<char>(seed + i * 13);
  return s;
}

uint64_t AllocatedBytes(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_blocks) * 512 : 0;
}

class BlockDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(MakeFileOfSize(path_, 33 << 20)); }
  std::string Uri(const std::string& query = "") const { return "blk:" + path_ + query; }

  ScratchDir dir_;
  std::string path_ = dir_.File("ssd.img");
  std::unique_ptr<ZonedDevice> dev_;
};

TEST_F(BlockDeviceTest, LaysOutAsManyZonesAsFitWithoutLimits) {
  ASSERT_OK(OpenZonedDevice(Uri("?zone_size=4MiB"), true, &dev_));
  const DeviceGeometry& g = dev_->geometry();
  EXPECT_EQ(g.zone_count, 8u);  // 33 MiB less the 1 MiB layout region
  EXPECT_EQ(g.zone_capacity, 4u << 20);
  EXPECT_EQ(g.max_open_zones, 0u);
  EXPECT_EQ(g.max_active_zones, 0u);
  EXPECT_EQ(dev_->uri(), "blk:" + path_);
  dev_.reset();
  // Reopened without create, without keys: the stored layout.
  ASSERT_OK(OpenZonedDevice(Uri(), false, &dev_));
  EXPECT_EQ(dev_->geometry().zone_count, 8u);
  dev_.reset();
  Status s = OpenZonedDevice(Uri("?zone_size=8MiB"), false, &dev_);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
}

TEST_F(BlockDeviceTest, RefusesWhatItCannotUse) {
  Status s = OpenZonedDevice("blk:" + dir_.File("missing"), true, &dev_);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_NE(s.ToString().find("fallocate"), std::string::npos) << s.ToString();
  s = OpenZonedDevice("blk:" + dir_.path(), true, &dev_);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  s = OpenZonedDevice(Uri(), false, &dev_);  // blank, never laid out
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  s = OpenZonedDevice(Uri("?zone_size=32MiB"), true, &dev_);  // no room for two zones
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  s = OpenZonedDevice(Uri("?zone_size=4MiB&zones=9"), true, &dev_);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  s = OpenZonedDevice(Uri("?zones=4&sync=0"), true, &dev_);  // file: images' key only
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
}

TEST_F(BlockDeviceTest, ForeignDataIsKeptUntilTheLayoutIsForgotten) {
  {
    std::fstream f(path_, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(1024);
    f << "an ext4 superblock, say";
  }
  Status s = OpenZonedDevice(Uri("?zone_size=4MiB"), true, &dev_);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("--force"), std::string::npos) << s.ToString();
  ASSERT_OK(ForgetDeviceLayout(Uri()));
  ASSERT_OK(OpenZonedDevice(Uri("?zone_size=4MiB"), true, &dev_));
  // A laid-out device is forgotten the same way, and laid out anew.
  dev_.reset();
  ASSERT_OK(ForgetDeviceLayout(Uri()));
  ASSERT_OK(OpenZonedDevice(Uri("?zone_size=2MiB"), true, &dev_));
  EXPECT_EQ(dev_->geometry().zone_count, 16u);
}

TEST_F(BlockDeviceTest, UnalignedBuffersAndReadsGoThroughTheBounceBuffer) {
  ASSERT_OK(OpenZonedDevice(Uri("?zone_size=4MiB"), true, &dev_));
  const uint64_t zone1 = 4 << 20;
  // 2.5 MiB from a buffer one byte off alignment: more than one bounce chunk.
  std::string storage(2621440 + 1, '\0');
  std::string data = Pattern(2621440, 'u');
  std::memcpy(&storage[1], data.data(), data.size());
  ASSERT_OK(dev_->Write(zone1, storage.data() + 1, data.size()));
  for (uint64_t offset : {uint64_t{0}, uint64_t{1}, uint64_t{4095}, uint64_t{1048575}, uint64_t{2621000}}) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(1234567, data.size() - offset));
    std::string got(n + 1, '\0');
    ASSERT_OK(dev_->Read(zone1 + offset, n, &got[1]));
    EXPECT_EQ(got.substr(1), data.substr(offset, n)) << "offset " << offset;
  }
}

TEST_F(BlockDeviceTest, WritesThatReturnedSurviveAKillWithoutAFlush) {
  ASSERT_OK(OpenZonedDevice(Uri("?zone_size=4MiB"), true, &dev_));
  std::string a = Pattern(12288, 'k');
  ASSERT_OK(dev_->Write(4 << 20, a.data(), a.size()));
  // No Flush: the process "dies" (the descriptors close; the page cache and
  // the drive keep what was written).
  dev_.reset();
  ASSERT_OK(OpenZonedDevice(Uri(), false, &dev_));
  ZoneInfo z;
  ASSERT_OK(dev_->ReportZone(1, &z));
  EXPECT_EQ(z.write_pointer, (4u << 20) + a.size());
  EXPECT_EQ(z.condition, ZoneCondition::kClosed);
  std::string got(a.size(), '\0');
  ASSERT_OK(dev_->Read(4 << 20, got.size(), &got[0]));
  EXPECT_EQ(got, a);
  EXPECT_TRUE(dev_->SimulatePowerLoss(1).IsNotSupported());
}

TEST_F(BlockDeviceTest, ResetDiscardsTheZonesBlocks) {
  ASSERT_OK(OpenZonedDevice(Uri("?zone_size=4MiB"), true, &dev_));
  std::string a = Pattern(4 << 20, 'd');
  ASSERT_OK(dev_->Write(4 << 20, a.data(), a.size()));
  ASSERT_OK(dev_->Flush());
  const uint64_t before = AllocatedBytes(path_);
  ASSERT_GE(before, 4u << 20);
  ASSERT_OK(dev_->ResetZone(1));
  EXPECT_LE(AllocatedBytes(path_) + (4u << 20), before);
}

TEST_F(BlockDeviceTest, OneHolderAtATimeAndSnapshotsReadOnly) {
  ASSERT_OK(OpenZonedDevice(Uri("?zone_size=4MiB"), true, &dev_));
  std::string a = Pattern(8192, 's');
  ASSERT_OK(dev_->Write(4 << 20, a.data(), a.size()));
  std::unique_ptr<ZonedDevice> other;
  Status s = OpenZonedDevice(Uri(), false, &other);
  EXPECT_TRUE(s.IsBusy()) << s.ToString();
  s = ForgetDeviceLayout(Uri());
  EXPECT_TRUE(s.IsBusy()) << s.ToString();
  std::unique_ptr<ZonedDevice> snap;
  ASSERT_OK(OpenZonedDevice(Uri("?snapshot=1"), false, &snap));
  std::string got(a.size(), '\0');
  ASSERT_OK(snap->Read(4 << 20, got.size(), &got[0]));
  EXPECT_EQ(got, a);
  EXPECT_TRUE(snap->Write((4 << 20) + a.size(), a.data(), 4096).IsNotSupported());
  EXPECT_TRUE(snap->ResetZone(1).IsNotSupported());
  EXPECT_TRUE(OpenZonedDevice(Uri("?snapshot=1"), true, &snap).IsInvalidArgument());
}

TEST_F(BlockDeviceTest, DamagedOrShrunkLayoutsAreRejected) {
  ASSERT_OK(OpenZonedDevice(Uri("?zone_size=4MiB"), true, &dev_));
  dev_.reset();
  {
    std::fstream f(path_, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(4096 + 16 * 3);  // zone 3's entry
    f.put('\x7f');
  }
  Status s = OpenZonedDevice(Uri(), false, &dev_);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  ASSERT_OK(ForgetDeviceLayout(Uri()));
  ASSERT_OK(OpenZonedDevice(Uri("?zone_size=4MiB"), true, &dev_));
  dev_.reset();
  ASSERT_EQ(::truncate(path_.c_str(), 20 << 20), 0);
  s = OpenZonedDevice(Uri(), false, &dev_);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
}

TEST_F(BlockDeviceTest, ALayoutWithBlocksSmallerThanTheDevicesIsRefused) {
  // A file: image with 512-byte blocks has the same layout; as a blk: device
  // (4 KiB-aligned direct I/O) its writes could not be done.
  std::string image = dir_.File("small-blocks.img");
  ASSERT_OK(OpenZonedDevice("file:" + image + "?zone_size=1MiB&zones=4&block_size=512", true, &dev_));
  dev_.reset();
  Status s = OpenZonedDevice("blk:" + image, false, &dev_);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("block_size 512"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace hintfs
