// Device conformance suite: every backend must enforce the zone rules of a
// real drive. Parameterized over the backends (and decorators) of this build.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "fs/emulated_device.h"
#include "fs/fault_injection.h"
#include "fs/timing_profile.h"
#include "fs/zoned_device.h"
#include "tests/fs/test_util.h"

namespace hintfs {
namespace {

using test::ScratchDir;
using test::UniqueName;

constexpr uint64_t kZoneSize = 1 << 20;
constexpr uint64_t kZoneCapacity = 768 << 10;
constexpr uint32_t kBlock = 4096;

class ZonedDeviceConformance : public ::testing::TestWithParam<std::string> {
 protected:
  // Geometry: 8 zones of 1 MiB with 768 KiB capacity, zone 0 conventional,
  // at most 2 open and 3 active zones.
  std::string Uri() {
    std::string query = "?zone_size=1MiB&zone_capacity=768KiB&zones=8&conv_zones=1&max_open=2&max_active=3";
    const std::string& kind = GetParam();
    if (kind == "file") return "file:" + dir_.File("dev.img") + query;
    if (kind == "mem+profile") return "mem:" + name_ + query + "&profile=zn540&profile_scale=1000";
    return "mem:" + name_ + query;
  }

  void SetUp() override {
    name_ = UniqueName("conf");
    ASSERT_OK(OpenZonedDevice(Uri(), /*create=*/true, &dev_));
  }
  void TearDown() override {
    dev_.reset();
    DestroyMemDevice(name_);
  }

  void Reopen() {
    dev_.reset();
    ASSERT_OK(OpenZonedDevice(Uri(), /*create=*/false, &dev_));
  }

  std::string Pattern(size_t n, char seed) {
    std::string s(n, '\0');
    for (size_t i = 0; i < n; i++) s[i] = static_cast<char>(seed + i * 7);
    return s;
  }

  ZoneInfo Zone(uint32_t z) {
    ZoneInfo info;
    EXPECT_OK(dev_->ReportZone(z, &info));
    return info;
  }

  ScratchDir dir_;
  std::string name_;
  std::unique_ptr<ZonedDevice> dev_;
};

TEST_P(ZonedDeviceConformance, ReportsGeometry) {
  const DeviceGeometry& g = dev_->geometry();
  EXPECT_EQ(g.zone_count, 8u);
  EXPECT_EQ(g.zone_size, kZoneSize);
  EXPECT_EQ(g.zone_capacity, kZoneCapacity);
  EXPECT_EQ(g.conventional_zones, 1u);
  EXPECT_EQ(g.block_size, kBlock);
  std::vector<ZoneInfo> zones;
  ASSERT_OK(dev_->ReportZones(0, 8, &zones));
  ASSERT_EQ(zones.size(), 8u);
  EXPECT_EQ(zones[0].type, ZoneType::kConventional);
  for (uint32_t z = 1; z < 8; z++) {
    EXPECT_EQ(zones[z].type, ZoneType::kSequentialWriteRequired);
    EXPECT_EQ(zones[z].condition, ZoneCondition::kEmpty);
    EXPECT_EQ(zones[z].write_pointer, z * kZoneSize);
    EXPECT_EQ(zones[z].capacity, kZoneCapacity);
  }
  EXPECT_TRUE(dev_->ReportZones(7, 2, &zones).IsInvalidArgument());
}

TEST_P(ZonedDeviceConformance, SequentialWriteAndRead) {
  std::string a = Pattern(2 * kBlock, 'a');
  ASSERT_OK(dev_->Write(kZoneSize, a.data(), a.size()));
  ZoneInfo z = Zone(1);
  EXPECT_EQ(z.write_pointer, kZoneSize + a.size());
  EXPECT_EQ(z.condition, ZoneCondition::kImplicitOpen);
  std::string got(a.size(), '\0');
  ASSERT_OK(dev_->Read(kZoneSize, got.size(), &got[0]));
  EXPECT_EQ(got, a);
  // Unaligned reads below the write pointer are fine.
  ASSERT_OK(dev_->Read(kZoneSize + 3, 100, &got[0]));
  EXPECT_EQ(got.substr(0, 100), a.substr(3, 100));
}

TEST_P(ZonedDeviceConformance, RejectsWriteNotAtWritePointer) {
  std::string a = Pattern(kBlock, 'a');
  ASSERT_OK(dev_->Write(kZoneSize, a.data(), a.size()));
  Status s = dev_->Write(kZoneSize, a.data(), a.size());  // rewrite
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  s = dev_->Write(kZoneSize + 2 * kBlock, a.data(), a.size());  // gap
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(Zone(1).write_pointer, kZoneSize + kBlock);
}

TEST_P(ZonedDeviceConformance, RejectsMisalignedWrites) {
  std::string a = Pattern(kBlock + 1, 'a');
  EXPECT_TRUE(dev_->Write(kZoneSize, a.data(), a.size()).IsInvalidArgument());
  EXPECT_TRUE(dev_->Write(kZoneSize + 512, a.data(), kBlock).IsInvalidArgument());
  EXPECT_EQ(Zone(1).write_pointer, kZoneSize);
}

TEST_P(ZonedDeviceConformance, RejectsReadPastWritePointer) {
  std::string a = Pattern(kBlock, 'a');
  ASSERT_OK(dev_->Write(kZoneSize, a.data(), a.size()));
  std::string got(kBlock + 1, '\0');
  EXPECT_TRUE(dev_->Read(kZoneSize, kBlock + 1, &got[0]).IsInvalidArgument());
  EXPECT_TRUE(dev_->Read(2 * kZoneSize, 1, &got[0]).IsInvalidArgument());
  EXPECT_TRUE(dev_->Read(8 * kZoneSize, 1, &got[0]).IsInvalidArgument());
}

TEST_P(ZonedDeviceConformance, CapacityAndFullZones) {
  std::string big = Pattern(kZoneCapacity, 'c');
  ASSERT_OK(dev_->Write(kZoneSize, big.data(), big.size() - kBlock));
  // Crossing the capacity fails and leaves the zone as it was.
  EXPECT_TRUE(dev_->Write(kZoneSize + kZoneCapacity - kBlock, big.data(), 2 * kBlock).IsInvalidArgument());
  ASSERT_OK(dev_->Write(kZoneSize + kZoneCapacity - kBlock, big.data(), kBlock));
  EXPECT_EQ(Zone(1).condition, ZoneCondition::kFull);
  EXPECT_TRUE(dev_->Write(kZoneSize + kZoneCapacity, big.data(), kBlock).IsInvalidArgument());
  uint64_t off = 0;
  EXPECT_TRUE(dev_->Append(1, big.data(), kBlock, &off).IsInvalidArgument());
}

TEST_P(ZonedDeviceConformance, ZoneAppendReportsOffset) {
  std::string a = Pattern(kBlock, 'a');
  uint64_t first = 0, second = 0;
  ASSERT_OK(dev_->Append(2, a.data(), a.size(), &first));
  ASSERT_OK(dev_->Append(2, a.data(), a.size(), &second));
  EXPECT_EQ(first, 2 * kZoneSize);
  EXPECT_EQ(second, 2 * kZoneSize + kBlock);
  EXPECT_TRUE(dev_->Append(0, a.data(), a.size(), &first).IsInvalidArgument());
}

TEST_P(ZonedDeviceConformance, ResetEmptiesZone) {
  std::string a = Pattern(kBlock, 'a');
  ASSERT_OK(dev_->Write(kZoneSize, a.data(), a.size()));
  ASSERT_OK(dev_->ResetZone(1));
  ZoneInfo z = Zone(1);
  EXPECT_EQ(z.condition, ZoneCondition::kEmpty);
  EXPECT_EQ(z.write_pointer, kZoneSize);
  char c;
  EXPECT_TRUE(dev_->Read(kZoneSize, 1, &c).IsInvalidArgument());
  ASSERT_OK(dev_->Write(kZoneSize, a.data(), a.size()));
}

TEST_P(ZonedDeviceConformance, FinishMakesZoneFull) {
  std::string a = Pattern(kBlock, 'a');
  ASSERT_OK(dev_->Write(kZoneSize, a.data(), a.size()));
  ASSERT_OK(dev_->FinishZone(1));
  ZoneInfo z = Zone(1);
  EXPECT_EQ(z.condition, ZoneCondition::kFull);
  EXPECT_EQ(z.write_pointer, kZoneSize + kZoneCapacity);
  EXPECT_TRUE(dev_->Write(z.write_pointer, a.data(), a.size()).IsInvalidArgument());
  // An empty zone can be finished too.
  ASSERT_OK(dev_->FinishZone(2));
  EXPECT_EQ(Zone(2).condition, ZoneCondition::kFull);
}

TEST_P(ZonedDeviceConformance, ExplicitOpenAndClose) {
  ASSERT_OK(dev_->OpenZone(1));
  EXPECT_EQ(Zone(1).condition, ZoneCondition::kExplicitOpen);
  ASSERT_OK(dev_->CloseZone(1));
  EXPECT_EQ(Zone(1).condition, ZoneCondition::kEmpty);  // nothing written yet
  std::string a = Pattern(kBlock, 'a');
  ASSERT_OK(dev_->Write(kZoneSize, a.data(), a.size()));
  ASSERT_OK(dev_->CloseZone(1));
  EXPECT_EQ(Zone(1).condition, ZoneCondition::kClosed);
  ASSERT_OK(dev_->Write(kZoneSize + kBlock, a.data(), a.size()));
  EXPECT_EQ(Zone(1).condition, ZoneCondition::kImplicitOpen);
  ASSERT_OK(dev_->FinishZone(1));
  EXPECT_TRUE(dev_->OpenZone(1).IsInvalidArgument());
  EXPECT_TRUE(dev_->CloseZone(1).IsInvalidArgument());
  EXPECT_TRUE(dev_->OpenZone(0).IsInvalidArgument());  // conventional
  EXPECT_TRUE(dev_->ResetZone(99).IsInvalidArgument());
}

TEST_P(ZonedDeviceConformance, EnforcesOpenAndActiveLimits) {
  std::string a = Pattern(kBlock, 'a');
  // Two explicitly open zones use up the open limit: a third cannot open.
  ASSERT_OK(dev_->OpenZone(1));
  ASSERT_OK(dev_->OpenZone(2));
  EXPECT_TRUE(dev_->OpenZone(3).IsBusy());
  EXPECT_TRUE(dev_->Write(3 * kZoneSize, a.data(), a.size()).IsBusy());
  // Closing one lets another open; the closed one stays active.
  ASSERT_OK(dev_->Write(kZoneSize, a.data(), a.size()));
  ASSERT_OK(dev_->CloseZone(1));
  ASSERT_OK(dev_->Write(3 * kZoneSize, a.data(), a.size()));
  // Active = zone 1 (closed), 2 (open), 3 (open): the active limit is reached.
  EXPECT_TRUE(dev_->Write(4 * kZoneSize, a.data(), a.size()).IsBusy());
  // Finishing a zone releases its active slot.
  ASSERT_OK(dev_->FinishZone(1));
  ASSERT_OK(dev_->CloseZone(2));
  ASSERT_OK(dev_->Write(4 * kZoneSize, a.data(), a.size()));
}

TEST_P(ZonedDeviceConformance, ImplicitlyOpenZonesAreClosedWhenNeeded) {
  std::string a = Pattern(kBlock, 'a');
  ASSERT_OK(dev_->Write(kZoneSize, a.data(), a.size()));
  ASSERT_OK(dev_->Write(2 * kZoneSize, a.data(), a.size()));
  ASSERT_OK(dev_->FinishZone(3));
  // Zone 4 needs an open slot: the device closes an implicitly open zone.
  ASSERT_OK(dev_->Write(4 * kZoneSize, a.data(), a.size()));
  EXPECT_EQ(Zone(4).condition, ZoneCondition::kImplicitOpen);
  int closed = 0;
  for (uint32_t z : {1u, 2u}) closed += Zone(z).condition == ZoneCondition::kClosed;
  EXPECT_EQ(closed, 1);
}

TEST_P(ZonedDeviceConformance, ConventionalZoneTakesRandomWrites) {
  std::string a = Pattern(kBlock, 'a'), b = Pattern(kBlock, 'b');
  ASSERT_OK(dev_->Write(3 * kBlock, a.data(), a.size()));
  ASSERT_OK(dev_->Write(0, b.data(), b.size()));
  ASSERT_OK(dev_->Write(3 * kBlock, b.data(), b.size()));
  std::string got(kBlock, '\0');
  ASSERT_OK(dev_->Read(3 * kBlock, kBlock, &got[0]));
  EXPECT_EQ(got, b);
  EXPECT_TRUE(dev_->ResetZone(0).IsInvalidArgument());
}

TEST_P(ZonedDeviceConformance, StateSurvivesReopen) {
  std::string a = Pattern(3 * kBlock, 'r');
  ASSERT_OK(dev_->Write(kZoneSize, a.data(), a.size()));
  ASSERT_OK(dev_->FinishZone(2));
  ASSERT_OK(dev_->Flush());
  Reopen();
  ZoneInfo z1 = Zone(1);
  EXPECT_EQ(z1.write_pointer, kZoneSize + a.size());
  EXPECT_TRUE(z1.condition == ZoneCondition::kClosed || z1.condition == ZoneCondition::kImplicitOpen);
  EXPECT_EQ(Zone(2).condition, ZoneCondition::kFull);
  std::string got(a.size(), '\0');
  ASSERT_OK(dev_->Read(kZoneSize, got.size(), &got[0]));
  EXPECT_EQ(got, a);
  // Writing continues at the persisted write pointer.
  ASSERT_OK(dev_->Write(kZoneSize + a.size(), a.data(), kBlock));
}

TEST_P(ZonedDeviceConformance, PowerLossDropsOnlyUnflushedWrites) {
  std::string a = Pattern(4 * kBlock, 'p');
  ASSERT_OK(dev_->Write(kZoneSize, a.data(), 2 * kBlock));
  ASSERT_OK(dev_->Flush());
  ASSERT_OK(dev_->Write(kZoneSize + 2 * kBlock, a.data() + 2 * kBlock, 2 * kBlock));
  ASSERT_OK(dev_->Write(2 * kZoneSize, a.data(), kBlock));  // never flushed
  ASSERT_OK(dev_->SimulatePowerLoss(/*seed=*/0));
  char c;
  EXPECT_TRUE(dev_->Read(kZoneSize, 1, &c).IsIOError());  // dead until reopened
  Reopen();
  ZoneInfo z1 = Zone(1);
  EXPECT_GE(z1.write_pointer, kZoneSize + 2 * kBlock);
  EXPECT_LE(z1.write_pointer, kZoneSize + 4 * kBlock);
  std::string got(2 * kBlock, '\0');
  ASSERT_OK(dev_->Read(kZoneSize, got.size(), &got[0]));
  EXPECT_EQ(got, a.substr(0, 2 * kBlock));
  EXPECT_NE(Zone(1).condition, ZoneCondition::kImplicitOpen);
}

INSTANTIATE_TEST_SUITE_P(Backends, ZonedDeviceConformance,
                         ::testing::Values("mem", "file", "mem+profile"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n) if (c == '+') c = '_';
                           return n;
                         });

TEST(DeviceUri, RejectsUnknownAndMalformedKeys) {
  std::unique_ptr<ZonedDevice> dev;
  EXPECT_TRUE(OpenZonedDevice("mem:x?zones=4&zone_sise=1MiB", true, &dev).IsInvalidArgument());
  EXPECT_TRUE(OpenZonedDevice("mem:x?zones=four", true, &dev).IsInvalidArgument());
  EXPECT_TRUE(OpenZonedDevice("mem:x?zones=4&zones=5", true, &dev).IsInvalidArgument());
  EXPECT_TRUE(OpenZonedDevice("mem:x?zones=4&zone_size=1000", true, &dev).IsInvalidArgument());
  EXPECT_TRUE(OpenZonedDevice("mem:x?zones=4&profile=floppy", true, &dev).IsNotFound());
  EXPECT_TRUE(OpenZonedDevice("nvme:/dev/ng0n1", true, &dev).IsNotSupported());
  EXPECT_TRUE(OpenZonedDevice("/no/scheme", true, &dev).IsInvalidArgument());
  EXPECT_TRUE(OpenZonedDevice("mem:never-created", false, &dev).IsNotFound());
}

TEST(DeviceUri, ExistingFileKeepsItsGeometry) {
  ScratchDir dir;
  std::string path = dir.File("g.img");
  std::unique_ptr<ZonedDevice> dev;
  ASSERT_OK(OpenZonedDevice("file:" + path + "?zone_size=2MiB&zones=3", true, &dev));
  // A second handle on the same image is refused while the first is open.
  std::unique_ptr<ZonedDevice> other;
  EXPECT_TRUE(OpenZonedDevice("file:" + path, false, &other).IsBusy());
  dev.reset();
  ASSERT_OK(OpenZonedDevice("file:" + path, false, &dev));
  EXPECT_EQ(dev->geometry().zone_size, 2u << 20);
  EXPECT_EQ(dev->geometry().zone_count, 3u);
  dev.reset();
  EXPECT_TRUE(OpenZonedDevice("file:" + path + "?zones=5", true, &dev).IsInvalidArgument());
  ASSERT_OK(OpenZonedDevice("file:" + path + "?zones=3&zone_size=2MiB", true, &dev));
}

TEST(DeviceImage, CorruptHeaderIsRejected) {
  ScratchDir dir;
  std::string path = dir.File("c.img");
  std::unique_ptr<ZonedDevice> dev;
  ASSERT_OK(OpenZonedDevice("file:" + path + "?zone_size=1MiB&zones=2", true, &dev));
  dev.reset();
  for (long offset : {0L, 20L, 4096L + 3}) {
    FILE* f = fopen(path.c_str(), "r+b");
    ASSERT_NE(f, nullptr);
    fseek(f, offset, SEEK_SET);
    int c = fgetc(f);
    fseek(f, offset, SEEK_SET);
    fputc(c ^ 0x40, f);
    fclose(f);
    Status s = OpenZonedDevice("file:" + path, false, &dev);
    EXPECT_TRUE(s.IsCorruption()) << offset << ": " << s.ToString();
    f = fopen(path.c_str(), "r+b");
    fseek(f, offset, SEEK_SET);
    fputc(c, f);
    fclose(f);
  }
  ASSERT_OK(OpenZonedDevice("file:" + path, false, &dev));
}

TEST(FaultInjection, FailsTheNthOperationOnce) {
  std::string name = UniqueName("fault");
  std::unique_ptr<ZonedDevice> dev;
  ASSERT_OK(OpenZonedDevice("mem:" + name + "?zone_size=1MiB&zones=4&fail_write=2&fail_read=1&fail_reset=1",
                            true, &dev));
  std::string a(4096, 'x');
  ASSERT_OK(dev->Write(0, a.data(), a.size()));
  Status s = dev->Write(4096, a.data(), a.size());
  EXPECT_TRUE(s.IsIOError());
  EXPECT_EQ(s.errno_value(), EIO);
  ASSERT_OK(dev->Write(4096, a.data(), a.size()));  // the failed write left no trace
  char c;
  EXPECT_TRUE(dev->Read(0, 1, &c).IsIOError());
  ASSERT_OK(dev->Read(0, 1, &c));
  EXPECT_TRUE(dev->ResetZone(0).IsIOError());
  ASSERT_OK(dev->ResetZone(0));
  dev.reset();
  DestroyMemDevice(name);
}

TEST(FaultInjection, PowerCutAfterNWrites) {
  std::string name = UniqueName("cut");
  std::unique_ptr<ZonedDevice> raw;
  ASSERT_OK(OpenZonedDevice("mem:" + name + "?zone_size=1MiB&zones=4", true, &raw));
  FaultPlan plan;
  plan.power_cut_after_writes = 3;
  auto injector = std::make_shared<FaultInjector>(plan);
  auto dev = NewFaultInjectingDevice(std::move(raw), injector);
  std::string a(4096, 'x');
  ASSERT_OK(dev->Write(0, a.data(), a.size()));
  ASSERT_OK(dev->Flush());
  ASSERT_OK(dev->Write(4096, a.data(), a.size()));
  ASSERT_OK(dev->Write(8192, a.data(), a.size()));  // third write: power goes
  EXPECT_TRUE(injector->powered_off());
  EXPECT_TRUE(dev->Write(12288, a.data(), a.size()).IsIOError());
  dev.reset();
  ASSERT_OK(OpenZonedDevice("mem:" + name, false, &raw));
  ZoneInfo z;
  ASSERT_OK(raw->ReportZone(0, &z));
  EXPECT_GE(z.write_pointer, 4096u);
  EXPECT_LE(z.write_pointer, 12288u);
  raw.reset();
  DestroyMemDevice(name);
}

TEST(TimingProfile, BuiltinsAreConsistent) {
  ASSERT_GE(BuiltinTimingProfiles().size(), 6u);
  for (const TimingProfile& p : BuiltinTimingProfiles()) {
    EXPECT_GT(p.read_mib_per_s, 0) << p.name;
    EXPECT_GT(p.write_mib_per_s, 0) << p.name;
    EXPECT_GT(p.read_access_us, 0) << p.name;
    EXPECT_FALSE(p.source.empty()) << p.name;
  }
  TimingProfile zn540, st14000;
  ASSERT_OK(FindTimingProfile("zn540", &zn540));
  ASSERT_OK(FindTimingProfile("st14000", &st14000));
  // The model must reproduce the QD1 random-read figures of HHZS Table 1.
  double zn_iops = 1e6 / (zn540.read_access_us + 4096.0 / (zn540.read_mib_per_s * 1048576) * 1e6);
  double hdd_iops = 1e6 / (st14000.read_access_us + 4096.0 / (st14000.read_mib_per_s * 1048576) * 1e6);
  EXPECT_NEAR(zn_iops, 16928, 1);
  EXPECT_NEAR(hdd_iops, 115, 0.1);
}

}  // namespace
}  // namespace hintfs
