// Device conformance suite: every backend must enforce the zone rules of a
// real drive. Parameterized over the backends (and decorators) of this build
// and, when HINTFS_CONFORMANCE_DEVICES names them (space-separated URIs such
// as "zbd:/dev/nullb0 nvme:/dev/ng0n1 blk:/dev/sda?zone_size=1MiB&zones=8"),
// over real drives (a blk: one is laid out if it has no layout yet). The
// tests reset every zone of those drives: never point it at data you want.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <atomic>
#include <set>
#include <sstream>
#include <chrono>
#include <thread>
#include <string>

#include "fs/device/emulated_device.h"
#include "fs/device/fault_injection.h"
#include "fs/device/timing_profile.h"
#include "fs/device/zoned_device.h"
#include "tests/fs/test_util.h"

namespace hintfs {
namespace {

using test::ScratchDir;
using test::UniqueName;

// Real drives to run the suite on, from the environment.
std::vector<std::string> ConformanceDevices() {
  std::vector<std::string> uris = {"mem", "file", "mem+profile", "blk"};
  const char* env = std::getenv("HINTFS_CONFORMANCE_DEVICES");
  std::istringstream in(env ? env : "");
  for (std::string uri; in >> uri;) uris.push_back(uri);
  return uris;
}

class ZonedDeviceConformance : public ::testing::TestWithParam<std::string> {
 protected:
  bool real() const { return GetParam().find(':') != std::string::npos; }
  // Whether the device's bytes are emulated (it can simulate power cuts).
  bool emulated() const { return !real() && GetParam() != "blk"; }

  // Emulated geometry: 8 zones of 1 MiB with 768 KiB capacity, zone 0
  // conventional, at most 2 open and 3 active zones. Real drives bring
  // their own; the tests below read it from the device.
  std::string Uri() {
    std::string query = "?zone_size=1MiB&zone_capacity=768KiB&zones=8&conv_zones=1&max_open=2&max_active=3";
    const std::string& kind = GetParam();
    if (real()) return kind;
    if (kind == "file") return "file:" + dir_.File("dev.img") + query;
    if (kind == "blk") return "blk:" + dir_.File("blk.img") + query;  // a preallocated file
    if (kind == "mem+profile") return "mem:" + name_ + query + "&profile=zn540&profile_scale=1000";
    return "mem:" + name_ + query;
  }

  void SetUp() override {
    name_ = UniqueName("conf");
    if (GetParam() == "blk") {
      // 8 zones after the 1 MiB layout region.
      ASSERT_TRUE(test::MakeFileOfSize(dir_.File("blk.img"), 9 << 20));
    }
    const bool carved = GetParam().rfind("blk", 0) == 0;  // laid out on its first open
    ASSERT_OK(OpenZonedDevice(Uri(), /*create=*/!real() || carved, &dev_));
    const DeviceGeometry& g = dev_->geometry();
    zone_size_ = g.zone_size;
    cap_ = g.zone_capacity;
    conv_ = g.conventional_zones;
    block_ = g.block_size;
    if (real()) {
      for (uint32_t z = conv_; z < g.zone_count; z++) ASSERT_OK(dev_->ResetZone(z));
    }
    ASSERT_GE(g.zone_count, conv_ + 6) << "the suite needs six sequential zones";
  }
  void TearDown() override {
    dev_.reset();
    DestroyMemDevice(name_);
  }

  void Reopen() {
    dev_.reset();
    ASSERT_OK(OpenZonedDevice(Uri(), /*create=*/false, &dev_));
  }

  // The k-th sequential zone and its start.
  uint32_t S(uint32_t k) const { return conv_ + k; }
  uint64_t At(uint32_t k) const { return uint64_t{S(k)} * zone_size_; }

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
  uint64_t zone_size_ = 0, cap_ = 0;
  uint32_t conv_ = 0, block_ = 0;
};

TEST_P(ZonedDeviceConformance, ReportsGeometry) {
  const DeviceGeometry& g = dev_->geometry();
  if (!real()) {
    EXPECT_EQ(g.zone_count, 8u);
    EXPECT_EQ(g.zone_size, 1u << 20);
    EXPECT_EQ(g.zone_capacity, 768u << 10);
    EXPECT_EQ(g.conventional_zones, 1u);
    EXPECT_EQ(g.block_size, 4096u);
  }
  EXPECT_LE(g.zone_capacity, g.zone_size);
  EXPECT_EQ(g.zone_capacity % g.block_size, 0u);
  std::vector<ZoneInfo> zones;
  ASSERT_OK(dev_->ReportZones(0, g.zone_count, &zones));
  ASSERT_EQ(zones.size(), g.zone_count);
  for (uint32_t z = 0; z < g.zone_count; z++) {
    EXPECT_EQ(zones[z].index, z);
    EXPECT_EQ(zones[z].start, z * g.zone_size);
    if (z < conv_) {
      EXPECT_EQ(zones[z].type, ZoneType::kConventional);
      continue;
    }
    EXPECT_EQ(zones[z].type, ZoneType::kSequentialWriteRequired);
    EXPECT_EQ(zones[z].condition, ZoneCondition::kEmpty);
    EXPECT_EQ(zones[z].write_pointer, z * g.zone_size);
    EXPECT_EQ(zones[z].capacity, g.zone_capacity);
  }
  EXPECT_TRUE(dev_->ReportZones(g.zone_count - 1, 2, &zones).IsInvalidArgument());
}

TEST_P(ZonedDeviceConformance, SequentialWriteAndRead) {
  std::string a = Pattern(2 * block_, 'a');
  ASSERT_OK(dev_->Write(At(0), a.data(), a.size()));
  ZoneInfo z = Zone(S(0));
  EXPECT_EQ(z.write_pointer, At(0) + a.size());
  EXPECT_EQ(z.condition, ZoneCondition::kImplicitOpen);
  std::string got(a.size(), '\0');
  ASSERT_OK(dev_->Read(At(0), got.size(), &got[0]));
  EXPECT_EQ(got, a);
  // Unaligned reads below the write pointer are fine, into unaligned memory too.
  ASSERT_OK(dev_->Read(At(0) + 3, 100, &got[1]));
  EXPECT_EQ(got.substr(1, 100), a.substr(3, 100));
  // So are writes from unaligned memory.
  std::string b = " " + Pattern(block_, 'b');
  ASSERT_OK(dev_->Write(At(0) + a.size(), b.data() + 1, block_));
  std::string got_b(block_, '\0');
  ASSERT_OK(dev_->Read(At(0) + a.size(), block_, &got_b[0]));
  EXPECT_EQ(got_b, b.substr(1));
}

TEST_P(ZonedDeviceConformance, LargeWritesAndReadsCrossTransferLimits) {
  // 3 MiB (or most of a zone) in one call: backends split it into commands.
  size_t n = std::min<uint64_t>(3 << 20, cap_ - block_);
  n -= n % block_;
  std::string big = Pattern(n, 'L');
  ASSERT_OK(dev_->Write(At(1), big.data(), big.size()));
  std::string got(n, '\0');
  ASSERT_OK(dev_->Read(At(1), n, &got[0]));
  EXPECT_TRUE(got == big);
  ASSERT_OK(dev_->Read(At(1) + 5, n - 9, &got[0]));
  EXPECT_TRUE(got.compare(0, n - 9, big, 5, n - 9) == 0);
}

TEST_P(ZonedDeviceConformance, RejectsWriteNotAtWritePointer) {
  std::string a = Pattern(block_, 'a');
  ASSERT_OK(dev_->Write(At(0), a.data(), a.size()));
  Status s = dev_->Write(At(0), a.data(), a.size());  // rewrite
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  s = dev_->Write(At(0) + 2 * block_, a.data(), a.size());  // gap
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(Zone(S(0)).write_pointer, At(0) + block_);
}

TEST_P(ZonedDeviceConformance, RejectsMisalignedWrites) {
  std::string a = Pattern(block_ + 1, 'a');
  EXPECT_TRUE(dev_->Write(At(0), a.data(), a.size()).IsInvalidArgument());
  EXPECT_TRUE(dev_->Write(At(0) + 512, a.data(), block_).IsInvalidArgument());
  EXPECT_EQ(Zone(S(0)).write_pointer, At(0));
}

TEST_P(ZonedDeviceConformance, RejectsReadPastWritePointer) {
  std::string a = Pattern(block_, 'a');
  ASSERT_OK(dev_->Write(At(0), a.data(), a.size()));
  std::string got(block_ + 1, '\0');
  EXPECT_TRUE(dev_->Read(At(0), block_ + 1, &got[0]).IsInvalidArgument());
  EXPECT_TRUE(dev_->Read(At(1), 1, &got[0]).IsInvalidArgument());
  EXPECT_TRUE(dev_->Read(dev_->geometry().capacity_bytes(), 1, &got[0]).IsInvalidArgument());
}

TEST_P(ZonedDeviceConformance, CapacityAndFullZones) {
  std::string big = Pattern(cap_, 'c');
  ASSERT_OK(dev_->Write(At(0), big.data(), big.size() - block_));
  // Crossing the capacity fails and leaves the zone as it was.
  EXPECT_TRUE(dev_->Write(At(0) + cap_ - block_, big.data(), 2 * block_).IsInvalidArgument());
  ASSERT_OK(dev_->Write(At(0) + cap_ - block_, big.data(), block_));
  EXPECT_EQ(Zone(S(0)).condition, ZoneCondition::kFull);
  // Nothing more goes into the full zone (past its capacity is the next zone
  // when capacity equals size).
  EXPECT_TRUE(dev_->Write(At(0) + cap_ - block_, big.data(), block_).IsInvalidArgument());
  if (cap_ < zone_size_) {
    EXPECT_TRUE(dev_->Write(At(0) + cap_, big.data(), block_).IsInvalidArgument());
  }
  uint64_t off = 0;
  EXPECT_TRUE(dev_->Append(S(0), big.data(), block_, &off).IsInvalidArgument());
  std::string got(block_, '\0');
  ASSERT_OK(dev_->Read(At(0) + cap_ - block_, block_, &got[0]));
  EXPECT_EQ(got, big.substr(0, block_));
}

TEST_P(ZonedDeviceConformance, ZoneAppendReportsOffset) {
  std::string a = Pattern(block_, 'a'), b = Pattern(2 * block_, 'b');
  uint64_t first = 0, second = 0;
  ASSERT_OK(dev_->Append(S(1), a.data(), a.size(), &first));
  ASSERT_OK(dev_->Append(S(1), b.data(), b.size(), &second));
  EXPECT_EQ(first, At(1));
  EXPECT_EQ(second, At(1) + block_);
  std::string got(3 * block_, '\0');
  ASSERT_OK(dev_->Read(At(1), got.size(), &got[0]));
  EXPECT_EQ(got, a + b);
  EXPECT_EQ(Zone(S(1)).write_pointer, At(1) + 3 * block_);
  // A plain write continues after the appended blocks.
  ASSERT_OK(dev_->Write(At(1) + 3 * block_, a.data(), a.size()));
  if (conv_ > 0) {
    EXPECT_TRUE(dev_->Append(0, a.data(), a.size(), &first).IsInvalidArgument());
  }
}

TEST_P(ZonedDeviceConformance, ConcurrentAppendsLandWhole) {
  // Appenders share a zone without ordering: each append lands whole at the
  // offset it is told, none overlap, and together they fill the zone's front.
  constexpr int kThreads = 4, kEach = 6;
  std::vector<std::vector<uint64_t>> offsets(kThreads);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; i++) {
        std::string data = Pattern(2 * block_, static_cast<char>('A' + t * kEach + i));
        uint64_t at = 0;
        if (!dev_->Append(S(2), data.data(), data.size(), &at).ok()) failures++;
        offsets[t].push_back(at);
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_EQ(failures.load(), 0);
  std::set<uint64_t> seen;
  for (int t = 0; t < kThreads; t++) {
    for (int i = 0; i < kEach; i++) {
      uint64_t at = offsets[t][i];
      EXPECT_EQ((at - At(2)) % (2 * block_), 0u);
      EXPECT_TRUE(seen.insert(at).second) << "two appends at " << at;
      std::string got(2 * block_, '\0');
      ASSERT_OK(dev_->Read(at, got.size(), &got[0]));
      EXPECT_EQ(got, Pattern(2 * block_, static_cast<char>('A' + t * kEach + i)));
    }
  }
  EXPECT_EQ(Zone(S(2)).write_pointer, At(2) + uint64_t{kThreads} * kEach * 2 * block_);
}

TEST_P(ZonedDeviceConformance, ResetEmptiesZone) {
  std::string a = Pattern(block_, 'a');
  ASSERT_OK(dev_->Write(At(0), a.data(), a.size()));
  ASSERT_OK(dev_->ResetZone(S(0)));
  ZoneInfo z = Zone(S(0));
  EXPECT_EQ(z.condition, ZoneCondition::kEmpty);
  EXPECT_EQ(z.write_pointer, At(0));
  char c;
  EXPECT_TRUE(dev_->Read(At(0), 1, &c).IsInvalidArgument());
  ASSERT_OK(dev_->Write(At(0), a.data(), a.size()));
}

TEST_P(ZonedDeviceConformance, FinishMakesZoneFull) {
  std::string a = Pattern(block_, 'a');
  ASSERT_OK(dev_->Write(At(0), a.data(), a.size()));
  ASSERT_OK(dev_->FinishZone(S(0)));
  ZoneInfo z = Zone(S(0));
  EXPECT_EQ(z.condition, ZoneCondition::kFull);
  EXPECT_EQ(z.write_pointer, At(0) + cap_);
  EXPECT_TRUE(dev_->Write(At(0) + a.size(), a.data(), a.size()).IsInvalidArgument());
  if (cap_ < zone_size_) {
    EXPECT_TRUE(dev_->Write(z.write_pointer, a.data(), a.size()).IsInvalidArgument());
  }
  // An empty zone can be finished too.
  ASSERT_OK(dev_->FinishZone(S(1)));
  EXPECT_EQ(Zone(S(1)).condition, ZoneCondition::kFull);
}

TEST_P(ZonedDeviceConformance, ExplicitOpenAndClose) {
  ASSERT_OK(dev_->OpenZone(S(0)));
  EXPECT_EQ(Zone(S(0)).condition, ZoneCondition::kExplicitOpen);
  ASSERT_OK(dev_->CloseZone(S(0)));
  // Nothing written yet: the emulated device and null_blk go back to empty,
  // QEMU's ZNS controller keeps the zone closed (the specification allows both).
  ZoneCondition c = Zone(S(0)).condition;
  EXPECT_TRUE(c == ZoneCondition::kEmpty || c == ZoneCondition::kClosed) << ZoneConditionName(c);
  std::string a = Pattern(block_, 'a');
  ASSERT_OK(dev_->Write(At(0), a.data(), a.size()));
  ASSERT_OK(dev_->CloseZone(S(0)));
  EXPECT_EQ(Zone(S(0)).condition, ZoneCondition::kClosed);
  ASSERT_OK(dev_->Write(At(0) + block_, a.data(), a.size()));
  EXPECT_EQ(Zone(S(0)).condition, ZoneCondition::kImplicitOpen);
  ASSERT_OK(dev_->FinishZone(S(0)));
  EXPECT_TRUE(dev_->OpenZone(S(0)).IsInvalidArgument());
  EXPECT_TRUE(dev_->CloseZone(S(0)).IsInvalidArgument());
  if (conv_ > 0) {
    EXPECT_TRUE(dev_->OpenZone(0).IsInvalidArgument());  // conventional
  }
  EXPECT_TRUE(dev_->ResetZone(dev_->geometry().zone_count + 5).IsInvalidArgument());
}

TEST_P(ZonedDeviceConformance, EnforcesOpenAndActiveLimits) {
  const uint32_t open_limit = dev_->geometry().max_open_zones;
  const uint32_t active_limit = dev_->geometry().max_active_zones;
  if (open_limit == 0) GTEST_SKIP() << "the device has no open-zone limit";
  if (active_limit != 0 && active_limit < open_limit + 1) GTEST_SKIP() << "active limit below open + 1";
  if (dev_->geometry().zone_count < conv_ + open_limit + active_limit + 1) {
    GTEST_SKIP() << "too few zones for the limits";
  }
  std::string a = Pattern(block_, 'a');
  // Explicitly open zones use up the open limit: another cannot open.
  for (uint32_t k = 0; k < open_limit; k++) ASSERT_OK(dev_->OpenZone(S(k)));
  EXPECT_TRUE(dev_->OpenZone(S(open_limit)).IsBusy());
  EXPECT_TRUE(dev_->Write(At(open_limit), a.data(), a.size()).IsBusy());
  // Closing a written one lets another open; the closed one stays active.
  ASSERT_OK(dev_->Write(At(0), a.data(), a.size()));
  ASSERT_OK(dev_->CloseZone(S(0)));
  ASSERT_OK(dev_->Write(At(open_limit), a.data(), a.size()));
  if (active_limit == 0) return;
  // Reset zones are not active; written ones are, until the limit.
  for (uint32_t k = 1; k < open_limit; k++) ASSERT_OK(dev_->ResetZone(S(k)));
  uint32_t active = 2, next = open_limit + 1;  // S(0) closed, S(open_limit) open
  for (; active < active_limit; active++, next++) {
    ASSERT_OK(dev_->Write(At(next), a.data(), a.size()));
    ASSERT_OK(dev_->CloseZone(S(next)));
  }
  EXPECT_TRUE(dev_->Write(At(next), a.data(), a.size()).IsBusy());
  // Finishing a zone releases its active slot.
  ASSERT_OK(dev_->FinishZone(S(0)));
  ASSERT_OK(dev_->Write(At(next), a.data(), a.size()));
}

TEST_P(ZonedDeviceConformance, ImplicitlyOpenZonesAreClosedWhenNeeded) {
  const uint32_t open_limit = dev_->geometry().max_open_zones;
  const uint32_t active_limit = dev_->geometry().max_active_zones;
  if (open_limit == 0) GTEST_SKIP() << "the device has no open-zone limit";
  if (active_limit != 0 && active_limit < open_limit + 1) GTEST_SKIP() << "active limit below open + 1";
  std::string a = Pattern(block_, 'a');
  for (uint32_t k = 0; k < open_limit; k++) ASSERT_OK(dev_->Write(At(k), a.data(), a.size()));
  ASSERT_OK(dev_->FinishZone(S(open_limit)));
  // Another zone needs an open slot: the device closes an implicitly open zone.
  ASSERT_OK(dev_->Write(At(open_limit + 1), a.data(), a.size()));
  EXPECT_EQ(Zone(S(open_limit + 1)).condition, ZoneCondition::kImplicitOpen);
  uint32_t closed = 0;
  for (uint32_t k = 0; k < open_limit; k++) closed += Zone(S(k)).condition == ZoneCondition::kClosed;
  EXPECT_EQ(closed, 1u);
}

TEST_P(ZonedDeviceConformance, ConventionalZoneTakesRandomWrites) {
  if (conv_ == 0) GTEST_SKIP() << "the device has no conventional zones";
  std::string a = Pattern(block_, 'a'), b = Pattern(block_, 'b');
  ASSERT_OK(dev_->Write(3 * block_, a.data(), a.size()));
  ASSERT_OK(dev_->Write(0, b.data(), b.size()));
  ASSERT_OK(dev_->Write(3 * block_, b.data(), b.size()));
  std::string got(block_, '\0');
  ASSERT_OK(dev_->Read(3 * block_, block_, &got[0]));
  EXPECT_EQ(got, b);
  EXPECT_TRUE(dev_->ResetZone(0).IsInvalidArgument());
}

TEST_P(ZonedDeviceConformance, StateSurvivesReopen) {
  std::string a = Pattern(3 * block_, 'r');
  ASSERT_OK(dev_->Write(At(0), a.data(), a.size()));
  ASSERT_OK(dev_->FinishZone(S(1)));
  ASSERT_OK(dev_->Flush());
  Reopen();
  ZoneInfo z1 = Zone(S(0));
  EXPECT_EQ(z1.write_pointer, At(0) + a.size());
  EXPECT_TRUE(z1.condition == ZoneCondition::kClosed || z1.condition == ZoneCondition::kImplicitOpen);
  EXPECT_EQ(Zone(S(1)).condition, ZoneCondition::kFull);
  std::string got(a.size(), '\0');
  ASSERT_OK(dev_->Read(At(0), got.size(), &got[0]));
  EXPECT_EQ(got, a);
  // Writing continues at the persisted write pointer.
  ASSERT_OK(dev_->Write(At(0) + a.size(), a.data(), block_));
}

TEST_P(ZonedDeviceConformance, PowerLossDropsOnlyUnflushedWrites) {
  if (!emulated()) {
    EXPECT_TRUE(dev_->SimulatePowerLoss(0).IsNotSupported());
    GTEST_SKIP() << "power cuts are simulated on emulated devices only";
  }
  std::string a = Pattern(4 * block_, 'p');
  ASSERT_OK(dev_->Write(At(0), a.data(), 2 * block_));
  ASSERT_OK(dev_->Flush());
  ASSERT_OK(dev_->Write(At(0) + 2 * block_, a.data() + 2 * block_, 2 * block_));
  ASSERT_OK(dev_->Write(At(1), a.data(), block_));  // never flushed
  ASSERT_OK(dev_->SimulatePowerLoss(/*seed=*/0));
  char c;
  EXPECT_TRUE(dev_->Read(At(0), 1, &c).IsIOError());  // dead until reopened
  Reopen();
  ZoneInfo z1 = Zone(S(0));
  EXPECT_GE(z1.write_pointer, At(0) + 2 * block_);
  EXPECT_LE(z1.write_pointer, At(0) + 4 * block_);
  std::string got(2 * block_, '\0');
  ASSERT_OK(dev_->Read(At(0), got.size(), &got[0]));
  EXPECT_EQ(got, a.substr(0, 2 * block_));
  EXPECT_NE(Zone(S(0)).condition, ZoneCondition::kImplicitOpen);
}

INSTANTIATE_TEST_SUITE_P(Backends, ZonedDeviceConformance, ::testing::ValuesIn(ConformanceDevices()),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return n;
                         });

TEST(DeviceUri, RejectsUnknownAndMalformedKeys) {
  std::unique_ptr<ZonedDevice> dev;
  EXPECT_TRUE(OpenZonedDevice("mem:x?zones=4&zone_sise=1MiB", true, &dev).IsInvalidArgument());
  EXPECT_TRUE(OpenZonedDevice("mem:x?zones=four", true, &dev).IsInvalidArgument());
  EXPECT_TRUE(OpenZonedDevice("mem:x?zones=4&zones=5", true, &dev).IsInvalidArgument());
  EXPECT_TRUE(OpenZonedDevice("mem:x?zones=4&zone_size=1000", true, &dev).IsInvalidArgument());
  EXPECT_TRUE(OpenZonedDevice("mem:x?zones=4&profile=floppy", true, &dev).IsNotFound());
  EXPECT_TRUE(OpenZonedDevice("floppy:/dev/fd0", true, &dev).IsNotSupported());
  // Real drives bring their own geometry; they are never created.
  EXPECT_TRUE(OpenZonedDevice("zbd:/dev/nullb0?zones=4", true, &dev).IsInvalidArgument());
  EXPECT_TRUE(OpenZonedDevice("nvme:/dev/ng0n1?zone_size=1MiB", true, &dev).IsInvalidArgument());
  Status s = OpenZonedDevice("zbd:/dev/null", false, &dev);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  s = OpenZonedDevice("nvme:/dev/null", false, &dev);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_FALSE(OpenZonedDevice("zbd:/no/such/device", false, &dev).ok());
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
    // A wrong magic is a file that is not an image; the rest is damage.
    EXPECT_TRUE(offset == 0 ? s.IsNotFound() : s.IsCorruption()) << offset << ": " << s.ToString();
    f = fopen(path.c_str(), "r+b");
    fseek(f, offset, SEEK_SET);
    fputc(c, f);
    fclose(f);
  }
  ASSERT_OK(OpenZonedDevice("file:" + path, false, &dev));
}

// A snapshot opens an image another handle holds (no lock), sees what that
// handle wrote (zone states are stored at every write, as a process kill
// keeps them), and writes nothing.
TEST(DeviceImage, SnapshotSeesTheHoldersWritesAndWritesNothing) {
  ScratchDir dir;
  std::string path = dir.File("held.img");
  std::unique_ptr<ZonedDevice> holder, snap;
  ASSERT_OK(OpenZonedDevice("file:" + path + "?zone_size=1MiB&zones=4", true, &holder));
  std::string a(4096, 'a'), b(4096, 'b');
  ASSERT_OK(holder->Write(0, a.data(), a.size()));
  ASSERT_OK(holder->Flush());
  ASSERT_OK(holder->Write(a.size(), b.data(), b.size()));  // written, not flushed
  EXPECT_TRUE(OpenZonedDevice("file:" + path, false, &snap).IsBusy());
  ASSERT_OK(OpenZonedDevice("file:" + path + "?snapshot=1", false, &snap));
  ZoneInfo z;
  ASSERT_OK(snap->ReportZone(0, &z));
  EXPECT_EQ(z.write_pointer - z.start, a.size() + b.size());
  std::string back(a.size() + b.size(), '\0');
  ASSERT_OK(snap->Read(0, back.size(), &back[0]));
  EXPECT_EQ(back, a + b);
  EXPECT_TRUE(snap->Write(z.write_pointer, b.data(), b.size()).IsNotSupported());
  EXPECT_TRUE(snap->ResetZone(1).IsNotSupported());
  std::unique_ptr<ZonedDevice> none;
  EXPECT_TRUE(OpenZonedDevice("file:" + dir.File("new.img") + "?zones=2&snapshot=1", true, &none).IsInvalidArgument());
}

// Issue 17: an image cut to half its size read back zeros where data was.
TEST(DeviceImage, ShorterThanItsGeometryIsRejected) {
  ScratchDir dir;
  std::string path = dir.File("cut.img");
  std::unique_ptr<ZonedDevice> dev;
  ASSERT_OK(OpenZonedDevice("file:" + path + "?zone_size=1MiB&zones=4", true, &dev));
  dev.reset();
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  ASSERT_EQ(truncate(path.c_str(), st.st_size / 2), 0);
  Status s = OpenZonedDevice("file:" + path, false, &dev);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find("shorter than its geometry"), std::string::npos) << s.ToString();
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

}  // namespace
}  // namespace hintfs
