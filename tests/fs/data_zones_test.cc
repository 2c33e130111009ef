// A member's data capacity (MemberInfo::data_zones, mkfs --fast-data-zones):
// files fill at most that many zones of it, the filesystem's own zones and
// the empty zones it keeps back come on top, and the policies plan with
// exactly the data zones. Also what a policy is shown of the files at mount,
// and a policy that asks to choose again as a file grows.
#include <map>
#include <set>

#include "fs/device/emulated_device.h"
#include "fs/filesystem.h"
#include "tests/fs/test_util.h"

namespace hintfs {
namespace test {
namespace {

// Fast-first, remembering the devices as the filesystem describes them.
class WatchingPolicy : public FastFirstPolicy {
 public:
  void ChooseDevices(const AllocationRequest& request, const std::vector<DeviceSpace>& devices,
                     std::vector<uint32_t>* order) override {
    seen = devices;
    FastFirstPolicy::ChooseDevices(request, devices, order);
  }
  void OnMount(const std::vector<DeviceSpace>& devices) override { mounted = devices; }
  void OnMountedFiles(const std::vector<MountedFile>& f) override { files = f; }
  std::vector<DeviceSpace> seen;
  std::vector<MountedFile> files;  // as OnMountedFiles showed them
  std::vector<DeviceSpace> mounted;  // as OnMount showed them
};

class DataZonesTest : public ::testing::Test {
 protected:
  void SetUp() override { fast_ = UniqueName("dzfast"), slow_ = UniqueName("dzslow"); }
  void TearDown() override {
    fs_.reset();
    DestroyMemDevice(fast_);
    DestroyMemDevice(slow_);
  }

  Status Mkfs(uint32_t data_zones) {
    MkfsOptions opts;
    // 24 zones: the superblock, 3 journal zones, 20 more.
    opts.devices = {{Tier::kFast, "mem:" + fast_ + "?zone_size=64KiB&zones=24", data_zones},
                    {Tier::kSlow, "mem:" + slow_ + "?zone_size=64KiB&zones=64", 0}};
    opts.force = true;
    return Filesystem::Mkfs(opts);
  }

  void Mount() {
    fs_.reset();
    MountOptions opts;
    opts.policy = policy_;
    ASSERT_OK(Filesystem::Mount("mem:" + fast_, opts, &fs_));
  }

  // The fast zones files hold.
  std::set<uint32_t> FastZonesUsed() {
    std::vector<ZoneReport> zones;
    EXPECT_OK(fs_->Zones(&zones));
    std::set<uint32_t> used;
    for (const ZoneReport& z : zones) {
      if (z.device == 0 && z.role != ZoneRole::kSuperblock && z.role != ZoneRole::kMetadata &&
          z.write_pointer > z.start) {
        used.insert(z.zone);
      }
    }
    return used;
  }

  std::string fast_, slow_;
  std::shared_ptr<WatchingPolicy> policy_ = std::make_shared<WatchingPolicy>();
  std::unique_ptr<Filesystem> fs_;
};

TEST_F(DataZonesTest, FilesFillOnlyTheDataZonesAndSpillPastThem) {
  ASSERT_OK(Mkfs(6));
  Mount();
  EXPECT_EQ(fs_->superblock().members[0].data_zones, 6u);
  EXPECT_EQ(fs_->superblock().members[1].data_zones, 0u);
  // The policy saw the devices at mount, before any file.
  ASSERT_EQ(policy_->mounted.size(), 2u);
  EXPECT_TRUE(policy_->seen.empty());
  EXPECT_EQ(policy_->mounted[0].total_zones, 6u);
  EXPECT_EQ(policy_->mounted[0].tier, Tier::kFast);
  EXPECT_EQ(policy_->mounted[1].zone_capacity, 64u << 10);
  // 20 zones' worth of files: 6 data zones and the 2 kept back (GC, the
  // reserve) at most on the fast tier, the rest on the slow one.
  const std::string chunk(60 << 10, 'd');
  for (int i = 0; i < 20; i++) {
    std::unique_ptr<FileWriter> w;
    ASSERT_OK(fs_->OpenWriter("/f" + std::to_string(i), WriteMode::kTruncate, &w));
    ASSERT_OK(w->Append(chunk));
    ASSERT_OK(w->Close());
  }
  std::set<uint32_t> used = FastZonesUsed();
  EXPECT_GE(used.size(), 5u);
  EXPECT_LE(used.size(), 8u);
  for (uint32_t z : used) EXPECT_LT(z, 4u + 8u) << "zone " << z << " is past the data capacity";
  ASSERT_FALSE(policy_->seen.empty());
  EXPECT_EQ(policy_->seen[0].total_zones, 6u) << "policies plan with the data zones only";
  EXPECT_EQ(policy_->seen[1].total_zones, 64u - 1 - 2);
  // The capacity is recorded: it holds after a remount.
  ASSERT_OK(fs_->Unmount());
  Mount();
  EXPECT_EQ(fs_->superblock().members[0].data_zones, 6u);
  EXPECT_EQ(FastZonesUsed(), used);
}

TEST_F(DataZonesTest, MkfsRefusesMoreDataZonesThanTheDeviceHas) {
  Status s = Mkfs(21);  // 24 zones less the superblock and 3 journal zones
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  ASSERT_OK(Mkfs(20));
  ASSERT_OK(Mkfs(0));
  Mount();
  EXPECT_EQ(fs_->superblock().members[0].data_zones, 0u);
}

// A policy that counts what it placed learns at mount what earlier mounts
// placed: every linked file, its tag, and where its bytes are.
TEST_F(DataZonesTest, TheMountShowsThePolicyEveryFileAndItsTiers) {
  ASSERT_OK(Mkfs(6));
  Mount();
  auto write = [&](const std::string& path, size_t bytes) {
    std::unique_ptr<FileWriter> w;
    ASSERT_OK(fs_->OpenWriter(path, WriteMode::kExclusive, &w));
    ASSERT_OK(w->Append(std::string(bytes, 'x')));
    ASSERT_OK(w->Close());
  };
  write("/fast", 100000);
  write("/moved", 50000);
  write("/gone", 1000);
  ASSERT_OK(fs_->SetTag("/fast", "level 2"));
  MigrateResult r;
  ASSERT_OK(fs_->MigrateRange("/moved", 0, 8192, Tier::kSlow, ZoneRole::kFree, nullptr, &r));
  ASSERT_OK(fs_->Rename("/moved", "/renamed"));
  ASSERT_OK(fs_->Unlink("/gone"));
  Mount();
  std::map<std::string, MountedFile> files;
  for (const MountedFile& f : policy_->files) files[f.path] = f;
  ASSERT_EQ(files.size(), 2u) << "an unlinked file is not shown";
  EXPECT_EQ(files["/fast"].tag, "level 2");
  EXPECT_EQ(files["/fast"].fast_bytes, 100000u);
  EXPECT_EQ(files["/fast"].slow_bytes, 0u);
  ASSERT_EQ(files.count("/renamed"), 1u) << files.begin()->first;
  EXPECT_EQ(files["/renamed"].slow_bytes, 8192u);
  EXPECT_EQ(files["/renamed"].fast_bytes, 50000u - 8192u);
}

// Fast for a file's first 10,000 bytes, slow for the rest: the choice
// changes with the file's size, so the policy asks to be asked again.
class FirstBytesFastPolicy : public FastFirstPolicy {
 public:
  void ChooseDevices(const AllocationRequest& request, const std::vector<DeviceSpace>& devices,
                     std::vector<uint32_t>* order) override {
    asked++;
    order->clear();
    for (const DeviceSpace& d : devices) {
      if ((d.tier == Tier::kFast) == (request.file_size < kFastBytes)) order->push_back(d.index);
    }
  }
  uint64_t AskAgainAfter(const AllocationRequest& request, const DeviceSpace& device) override {
    return device.tier == Tier::kFast ? kFastBytes - request.file_size : UINT64_MAX;
  }
  static constexpr uint64_t kFastBytes = 10000;
  int asked = 0;
};

TEST_F(DataZonesTest, APolicyIsAskedAgainWhenItSaysSo) {
  ASSERT_OK(Mkfs(6));
  auto policy = std::make_shared<FirstBytesFastPolicy>();
  MountOptions opts;
  opts.policy = policy;
  ASSERT_OK(Filesystem::Mount("mem:" + fast_, opts, &fs_));
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/LOG", WriteMode::kExclusive, &w));
  for (int i = 0; i < 10; i++) {  // 3,000-byte appends, flushed as a log's are
    ASSERT_OK(w->Append(std::string(3000, static_cast<char>('a' + i))));
    ASSERT_OK(w->Flush());
  }
  ASSERT_OK(w->Close());
  FileStat st;
  ASSERT_OK(fs_->Stat("/LOG", &st));
  uint64_t fast = 0, slow = 0;
  for (const Extent& e : st.extents) (e.device == 0 ? fast : slow) += e.length;
  EXPECT_GE(fast, FirstBytesFastPolicy::kFastBytes);
  EXPECT_LT(fast, FirstBytesFastPolicy::kFastBytes + 8192) << "at most a write past the limit";
  EXPECT_EQ(fast + slow, 30000u);
  EXPECT_EQ(policy->asked, 2) << "once at the start, once at the limit; the zone had room for all of it";
  std::unique_ptr<FileReader> r;
  ASSERT_OK(fs_->OpenReader("/LOG", &r));
  std::string back(3000, '\0');
  size_t got = 0;
  ASSERT_OK(r->Read(27000, back.size(), back.data(), &got));
  EXPECT_EQ(back, std::string(3000, 'j'));
}

}  // namespace
}  // namespace test
}  // namespace hintfs
