// A filesystem on two fresh mem devices, remountable, for the fs tests.
#ifndef HINTFS_TESTS_FS_FS_FIXTURE_H_
#define HINTFS_TESTS_FS_FS_FIXTURE_H_

#include <random>
#include <set>
#include <string>
#include <utility>

#include "fs/device/emulated_device.h"
#include "fs/filesystem.h"
#include "tests/fs/test_util.h"

namespace hintfs {
namespace test {

// Puts every file on the slow tier.
class SlowOnlyPolicy : public FastFirstPolicy {
 public:
  std::string name() const override { return "slow-only-test"; }
  void ChooseDevices(const AllocationRequest&, const std::vector<DeviceSpace>& devices,
                     std::vector<uint32_t>* order) override {
    for (const DeviceSpace& d : devices) {
      if (d.tier == Tier::kSlow) order->push_back(d.index);
    }
  }
};

struct FsGeometry {
  std::string fast = "zone_size=256KiB&zones=24";
  std::string slow = "zone_size=256KiB&zones=16";
  uint32_t meta_zones = 3;
};

class FsTest : public ::testing::Test {
 protected:
  void SetUp() override { fast_ = UniqueName("fast"), slow_ = UniqueName("slow"); }
  void TearDown() override {
    fs_.reset();
    DestroyMemDevice(fast_);
    DestroyMemDevice(slow_);
  }

  // A fresh filesystem on fresh devices.
  void Format(const FsGeometry& g = FsGeometry()) {
    fs_.reset();
    DestroyMemDevice(fast_);
    DestroyMemDevice(slow_);
    geometry_ = g;
    MkfsOptions opts;
    opts.devices = {{Tier::kFast, "mem:" + fast_ + "?" + g.fast},
                    {Tier::kSlow, "mem:" + slow_ + "?" + g.slow}};
    opts.meta_zones = g.meta_zones;
    ASSERT_OK(Filesystem::Mkfs(opts));
    Mount();
  }

  void Mount(MountOptions opts = MountOptions()) {
    fs_.reset();
    ASSERT_OK(Filesystem::Mount("mem:" + fast_, opts, &fs_));
  }

  void Remount() {
    ASSERT_OK(fs_->Unmount());
    Mount();
  }

  void WriteFile(const std::string& path, const std::string& data, bool sync = true) {
    std::unique_ptr<FileWriter> w;
    ASSERT_OK(fs_->OpenWriter(path, WriteMode::kTruncate, &w));
    ASSERT_OK(w->Append(data));
    if (sync) ASSERT_OK(w->Sync());
    ASSERT_OK(w->Close());
  }

  std::string ReadFile(const std::string& path) {
    std::unique_ptr<FileReader> r;
    Status s = fs_->OpenReader(path, &r);
    EXPECT_TRUE(s.ok()) << path << ": " << s.ToString();
    if (!s.ok()) return "<missing>";
    std::string out(r->Size(), '\0');
    size_t got = 0;
    s = r->Read(0, out.size(), &out[0], &got);
    EXPECT_TRUE(s.ok()) << s.ToString();
    out.resize(got);
    return out;
  }

  // The (device, zone) pairs a file's extents lie in.
  std::set<std::pair<uint32_t, uint32_t>> ZonesOf(const std::string& path) {
    FileStat st;
    EXPECT_OK(fs_->Stat(path, &st));
    std::set<std::pair<uint32_t, uint32_t>> zones;
    for (const Extent& e : st.extents) zones.insert({e.device, e.zone});
    return zones;
  }

  static std::string Random(std::mt19937_64* rng, size_t n) {
    std::string s(n, '\0');
    for (size_t i = 0; i < n; i++) s[i] = static_cast<char>((*rng)() & 0xff);
    return s;
  }

  void ExpectClean() {
    FsckReport report;
    ASSERT_OK(fs_->Check(/*deep=*/true, &report, nullptr));
    for (const auto& e : report.errors) ADD_FAILURE() << "fsck: " << e;
  }

  std::string fast_, slow_;
  FsGeometry geometry_;
  std::unique_ptr<Filesystem> fs_;
};

}  // namespace test
}  // namespace hintfs

#endif  // HINTFS_TESTS_FS_FS_FIXTURE_H_
