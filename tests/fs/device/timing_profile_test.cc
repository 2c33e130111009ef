// Timing profiles: the built-in drives are consistent, busy time counts
// service and not idle time, and the trace counts requests per class.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "fs/device/emulated_device.h"
#include "fs/device/timing_profile.h"
#include "fs/device/zoned_device.h"
#include "tests/fs/test_util.h"

namespace hintfs {
namespace {

using test::UniqueName;

TEST(TimingProfile, BuiltinsAreConsistent) {
  ASSERT_GE(BuiltinTimingProfiles().size(), 8u);
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
  // HotRAP Table 1: the random-read rates of its two disks with 16 threads.
  for (auto [name, iops] : {std::pair<const char*, double>{"hotrap-nitro", 83000}, {"hotrap-gp3", 10000}}) {
    TimingProfile p;
    ASSERT_OK(FindTimingProfile(name, &p));
    double per_read_us = p.read_access_us + 4096.0 / (p.read_mib_per_s * 1048576) * 1e6;
    EXPECT_NEAR(p.parallel_units * 1e6 / per_read_us, iops, 1) << name;
  }
}

// Busy time is the modelled service time of requests, not the wall time
// around them: an isolated random read adds exactly its access and transfer
// time, and idle time adds nothing.
TEST(TimingProfile, BusyTimeCountsServiceNotIdleTime) {
  std::unique_ptr<ZonedDevice> dev;
  ASSERT_OK(OpenZonedDevice("mem:busy?zones=4&zone_size=1MiB&profile=st14000&profile_scale=100", true, &dev));
  EXPECT_EQ(dev->busy_ns(), 0u);
  std::string block(4096, 'b');
  ASSERT_OK(dev->Write(0, block.data(), block.size()));
  uint64_t after_write = dev->busy_ns();
  EXPECT_GT(after_write, 0u);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // idle: must not count
  char buf[4096];
  ASSERT_OK(dev->Read(0, sizeof(buf), buf));
  TimingProfile st14000;
  ASSERT_OK(FindTimingProfile("st14000", &st14000));
  double read_us = (st14000.read_access_us + 4096.0 / (st14000.read_mib_per_s * 1048576) * 1e6) / 100;
  EXPECT_NEAR(static_cast<double>(dev->busy_ns() - after_write) / 1000.0, read_us, 1.0);
  dev.reset();
  DestroyMemDevice("busy");
}

// On a disk a read a little past where the last one ended pays the skipped
// bytes' transfer, not a seek; a read behind it pays the access. Flash has
// no such gap: a skip is an access there.
TEST(TimingProfile, OnADiskAShortSkipForwardCostsTheGapNotASeek) {
  for (const char* name : {"st14000", "zn540"}) {
    SCOPED_TRACE(name);
    TimingProfile p;
    ASSERT_OK(FindTimingProfile(name, &p));
    const int scale = p.rotates ? 100 : 1;  // modelled times of some tens of microseconds
    std::unique_ptr<ZonedDevice> dev;
    const std::string uri =
        std::string("mem:skip?zones=4&zone_size=1MiB&profile=") + name + "&profile_scale=" + std::to_string(scale);
    ASSERT_OK(OpenZonedDevice(uri, true, &dev));
    std::string data(1 << 20, 's');
    ASSERT_OK(dev->Write(0, data.data(), data.size()));
    char buf[4096];
    ASSERT_OK(dev->Read(0, sizeof(buf), buf));
    const double byte_us = 1e6 / (p.read_mib_per_s * 1048576);  // transfer microseconds per byte
    const uint64_t gap = 96 << 10;
    uint64_t before = dev->busy_ns();
    ASSERT_OK(dev->Read(4096 + gap, sizeof(buf), buf));
    const double skip_us = static_cast<double>(dev->busy_ns() - before) / 1000.0;
    before = dev->busy_ns();
    ASSERT_OK(dev->Read(0, sizeof(buf), buf));
    const double back_us = static_cast<double>(dev->busy_ns() - before) / 1000.0;
    EXPECT_NEAR(back_us, (p.read_access_us + 4096 * byte_us) / scale, 1.0);
    if (p.rotates) {
      EXPECT_NEAR(skip_us, (gap + 4096) * byte_us / scale, 1.0);
    } else {
      EXPECT_NEAR(skip_us, back_us, 1.0);
    }
    dev.reset();
    DestroyMemDevice("skip");
  }
}

// HINTFS_DEVICE_TRACE: a timed device says at close where its time went.
TEST(TimingProfile, TraceCountsRequestsPerClass) {
  std::unique_ptr<ZonedDevice> dev;
  ASSERT_OK(OpenZonedDevice("mem:trace?zones=4&zone_size=2MiB&profile=st14000&profile_scale=1000", true, &dev));
  std::string big(1 << 20, 'b');
  ASSERT_OK(dev->Write(0, big.data(), big.size()));
  char buf[4096];
  ASSERT_OK(dev->Read(0, sizeof(buf), buf));
  ASSERT_OK(dev->Read(8192, sizeof(buf), buf));  // not where the last read ended: a second access
  setenv("HINTFS_DEVICE_TRACE", "1", 1);
  testing::internal::CaptureStderr();
  dev.reset();
  std::string trace = testing::internal::GetCapturedStderr();
  unsetenv("HINTFS_DEVICE_TRACE");
  EXPECT_NE(trace.find("read <=16KiB: 2 requests, 2 with access latency, 8192 bytes"), std::string::npos) << trace;
  EXPECT_NE(trace.find("write >256KiB: 1 requests, 1 with access latency, 1048576 bytes"), std::string::npos)
      << trace;
  EXPECT_NE(trace.find("read >256KiB: 0 requests"), std::string::npos) << trace;
  DestroyMemDevice("trace");
}

}  // namespace
}  // namespace hintfs
