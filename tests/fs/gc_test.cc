// Garbage collection (fs/fs_gc.cc) on devices whose every zone is mostly
// live: the state a store's random overwrites leave a full filesystem in.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "tests/fs/fs_fixture.h"

namespace hintfs {
namespace {

using test::FsTest;

// Every write frees space, as a store's table files do (LsmFreesSpace):
// writers fill the device down to the one empty zone kept for GC.
class FreesSpacePolicy : public FastFirstPolicy {
 public:
  std::string name() const override { return "frees-space-test"; }
  bool MayUseReserve(const AllocationRequest&) override { return true; }
};

// Small files fill the device until a write fails; deleting 7 of every 16
// leaves each zone 56% live, 44% garbage, and one empty zone (GC's). Writing
// three quarters of what was freed must work. GC once copied its first
// victim into that zone and its second into the room left, ran out of room
// half way (the first victim's zone was reset only at the end), and the half
// copy was garbage again: every round freed what it wasted, and the first
// write failed with 1 MiB of 2.3 MiB garbage. Now a freed victim is reset
// at once and a victim is copied only when its live bytes fit.
TEST_F(FsTest, GcFreesSpaceWhenEveryZoneIsMostlyLive) {
  // One device, as a store on a single ZNS drive has.
  MkfsOptions mkfs;
  mkfs.devices = {{Tier::kFast, "mem:" + fast_ + "?zone_size=128KiB&zones=24"}};
  ASSERT_OK(Filesystem::Mkfs(mkfs));
  MountOptions opts;
  opts.policy = std::make_shared<FreesSpacePolicy>();
  Mount(opts);
  std::mt19937_64 rng(11);
  std::map<std::string, std::string> files;
  for (int i = 0;; i++) {
    ASSERT_LT(i, 10000);
    const std::string name = "/f" + std::to_string(i);
    const std::string data = Random(&rng, 8192);
    std::unique_ptr<FileWriter> w;
    ASSERT_OK(fs_->OpenWriter(name, WriteMode::kExclusive, &w));
    Status s = w->Append(data);
    if (s.ok()) s = w->Sync();
    if (s.ok()) s = w->Close();
    if (s.IsNoSpace()) {
      w.reset();
      ASSERT_OK(fs_->Unlink(name));
      break;
    }
    ASSERT_OK(s);
    files[name] = data;
  }
  uint64_t freed_bytes = 0;
  for (int i = 0; files.count("/f" + std::to_string(i)); i++) {
    if (i % 16 >= 7) continue;
    const std::string name = "/f" + std::to_string(i);
    freed_bytes += files[name].size();
    ASSERT_OK(fs_->Unlink(name));
    files.erase(name);
  }
  ASSERT_OK(fs_->SyncMetadata());
  std::vector<DeviceUsage> usage;
  ASSERT_OK(fs_->Usage(&usage));
  uint64_t empty = 0, live = 0, garbage = 0;
  for (const DeviceUsage& u : usage) empty += u.empty_zones, live += u.live_bytes, garbage += u.garbage_bytes;
  ASSERT_LE(empty, 1u);
  ASSERT_GT(garbage * 2, live / 2);  // the premise: a third of what is written is garbage
  uint64_t written = 0;
  for (int i = 0; written < freed_bytes * 3 / 4; i++) {
    const std::string name = "/new" + std::to_string(i);
    files[name] = Random(&rng, 64 << 10);
    std::unique_ptr<FileWriter> w;
    ASSERT_OK(fs_->OpenWriter(name, WriteMode::kExclusive, &w));
    Status s = w->Append(files[name]);
    if (s.ok()) s = w->Sync();
    if (s.ok()) s = w->Close();
    ASSERT_TRUE(s.ok()) << name << " after " << written << " of " << freed_bytes << " freed: " << s.ToString();
    written += files[name].size();
  }
  EXPECT_GT(fs_->Stats().gc_zones_freed, 0u);
  ASSERT_OK(fs_->Unmount());
  Mount(opts);
  for (const auto& [name, data] : files) ASSERT_EQ(ReadFile(name), data) << name;
  ExpectClean();
}

}  // namespace
}  // namespace hintfs
