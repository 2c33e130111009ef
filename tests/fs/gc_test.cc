// Garbage collection (fs/fs_gc.cc) on devices whose every zone is mostly
// live: the state a store's random overwrites leave a full filesystem in.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <random>
#include <thread>
#include <vector>

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


// A zone that is being read all the time is still collected: readers keep
// the extents they resolved, and its reset waits until they leave
// (ReclaimZones). GC once passed over any zone a read was in, and the fast
// tier's zones of hot blocks, read by every client thread, kept their
// garbage for good. Here reads of a timed device (1.6 ms each) from four
// threads are nearly always in the zone.
TEST_F(FsTest, GcCollectsAZoneWhileItIsRead) {
  test::FsGeometry g;
  g.fast = "zone_size=256KiB&zones=8&profile=hotrap-gp3";
  Format(g);
  std::mt19937_64 rng(7);
  // Small files written one after another share zones; every other one dies.
  std::map<std::string, std::string> kept;
  for (int i = 0; i < 16; i++) {
    const std::string path = "/f" + std::to_string(i), data = Random(&rng, 16 << 10);
    WriteFile(path, data);
    if (i % 2 == 0) kept[path] = data;
  }
  for (int i = 1; i < 16; i += 2) ASSERT_OK(fs_->Unlink("/f" + std::to_string(i)));
  std::atomic<bool> stop{false}, bad{false};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; t++) {
    readers.emplace_back([&, t] {
      std::string buf(4096, '\0');
      for (uint64_t i = t; !stop; i++) {
        auto it = std::next(kept.begin(), static_cast<long>(i % kept.size()));
        std::unique_ptr<FileReader> r;
        size_t got = 0;
        const uint64_t at = (i * 4096) % it->second.size();
        if (!fs_->OpenReader(it->first, &r).ok() || !r->Read(at, buf.size(), buf.data(), &got).ok() ||
            buf.compare(0, got, it->second, at, got) != 0) {
          bad = true;
        }
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  uint32_t freed = 0;
  Status s = fs_->CollectGarbage(4, &freed);
  stop = true;
  for (std::thread& t : readers) t.join();
  ASSERT_OK(s);
  EXPECT_FALSE(bad) << "a read returned other bytes while GC moved them";
  // Bytes moved tell a victim passed over (0) from copies not switched in.
  EXPECT_GT(freed, 0u) << "the zones being read were passed over; GC moved " << fs_->Stats().gc_bytes_moved
                       << " bytes";
  Remount();
  for (const auto& [path, data] : kept) EXPECT_EQ(ReadFile(path), data) << path;
  ExpectClean();
}

}  // namespace
}  // namespace hintfs
