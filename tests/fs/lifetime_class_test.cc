// Lifetime classes (AllocationPolicy::LifetimeClass) are a second key of
// allocation: a zone holds files of one class, GC's relocations go to zones
// of their own, and GC weighs a zone's garbage by how long the policy
// expects its live bytes to stay (AllocationPolicy::RemainingLife).
#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tests/fs/fs_fixture.h"

namespace hintfs {
namespace {

// Files named /sN... have lifetime class N; names in remaining have that
// many bytes of writes left to live, the others an unknown life.
class ClassByName : public FastFirstPolicy {
 public:
  uint8_t LifetimeClass(const AllocationRequest& request) override {
    asked[request.path]++;
    return request.path.size() > 2 && request.path[1] == 's' ? static_cast<uint8_t>(request.path[2] - '0') : 0;
  }
  uint64_t RemainingLife(const std::string& path, uint64_t) override {
    auto it = remaining.find(path);
    return it == remaining.end() ? kLifeUnknown : it->second;
  }
  void OnFileDeleted(const std::string& path, uint64_t size, uint64_t clock) override {
    deleted[path] = {size, clock};
  }
  std::map<std::string, int> asked;
  std::map<std::string, uint64_t> remaining;
  std::map<std::string, std::pair<uint64_t, uint64_t>> deleted;
};

class LifetimeClassTest : public test::FsTest {
 protected:
  void SetUp() override {
    test::FsTest::SetUp();
    Format();
    policy_ = std::make_shared<ClassByName>();
    MountOptions o;
    o.policy = policy_;
    Mount(o);
  }
  // A zone of class 1 and one of class 2, each holding a 100 KiB survivor
  // (/sN-keep) and the garbage a deleted file of gone1 or gone2 bytes left;
  // their zones in *zone1 and *zone2.
  using Zones = std::set<std::pair<uint32_t, uint32_t>>;
  void TwoZonesWithGarbage(size_t gone1, size_t gone2, Zones* zone1, Zones* zone2) {
    WriteFile("/s1-keep", std::string(100 << 10, 'a'));
    WriteFile("/s1-gone", std::string(gone1, 'b'));
    WriteFile("/s2-keep", std::string(100 << 10, 'c'));
    WriteFile("/s2-gone", std::string(gone2, 'd'));
    *zone1 = ZonesOf("/s1-keep");
    *zone2 = ZonesOf("/s2-keep");
    ASSERT_EQ(zone1->size(), 1u);
    ASSERT_EQ(zone2->size(), 1u);
    EXPECT_OK(fs_->Unlink("/s1-gone"));
    EXPECT_OK(fs_->Unlink("/s2-gone"));
  }
  std::shared_ptr<ClassByName> policy_;
};

TEST_F(LifetimeClassTest, FilesOfDifferentClassesNeverShareAZone) {
  // Small files that would all fill one zone if classes did not count.
  for (int i = 0; i < 4; i++) {
    WriteFile("/s1-" + std::to_string(i), std::string(20 << 10, 'a' + i));
    WriteFile("/s2-" + std::to_string(i), std::string(20 << 10, 'k' + i));
  }
  std::set<std::pair<uint32_t, uint32_t>> one, two;
  for (int i = 0; i < 4; i++) {
    for (auto z : ZonesOf("/s1-" + std::to_string(i))) one.insert(z);
    for (auto z : ZonesOf("/s2-" + std::to_string(i))) two.insert(z);
  }
  EXPECT_EQ(one.size(), 1u);  // files of a class still share zones
  EXPECT_EQ(two.size(), 1u);
  EXPECT_NE(*one.begin(), *two.begin());
  // Asked once per file, before its first zone.
  EXPECT_EQ(policy_->asked["/s1-0"], 1);
  EXPECT_OK(fs_->Unlink("/s1-0"));
  ASSERT_EQ(policy_->deleted.count("/s1-0"), 1u);
  EXPECT_EQ(policy_->deleted["/s1-0"].first, 20u << 10);
  EXPECT_GE(policy_->deleted["/s1-0"].second, 8u * (20u << 10));  // the write clock counts every file's bytes
}

// A write whose class has no room left on the device its policy prefers,
// and no empty zone it may open there, fills another class's partly written
// zone before it goes to the next device or fails (a store's MANIFEST write
// was refused with 60 MiB unwritten in other classes' zones).
TEST_F(LifetimeClassTest, AWriteFillsAnotherClasssZoneBeforeItLeavesTheDevice) {
  WriteFile("/s1-a", std::string(64 << 10, 'a'));
  const Zones zone1 = ZonesOf("/s1-a");
  ASSERT_EQ(zone1.size(), 1u);
  ASSERT_EQ(zone1.begin()->first, 0u);  // the fast device
  // Class 2 fills the fast device, then spills to the slow one.
  std::vector<std::string> in_zone1;
  int i = 0;
  for (bool on_slow = false; !on_slow; i++) {
    ASSERT_LT(i, 1000);
    const std::string path = "/s2-" + std::to_string(i);
    WriteFile(path, std::string(32 << 10, 'b'));
    for (const auto& z : ZonesOf(path)) {
      if (z.first != 0) on_slow = true;
      if (zone1.count(z)) in_zone1.push_back(path);
    }
  }
  // Class 1's zone had room for five more such files once the fast device
  // was full: they went there before any went to the slow device.
  EXPECT_GE(in_zone1.size(), 5u);
  for (const std::string& path : in_zone1) EXPECT_EQ(ReadFile(path), std::string(32 << 10, 'b')) << path;
  EXPECT_EQ(ReadFile("/s1-a"), std::string(64 << 10, 'a'));
  ExpectClean();
}

// Two files written at once (a flush's table and blob file) take turns in
// their class's zone when the other is idle: a zone open per writer is room
// other classes cannot use. Without a class each keeps a zone of its own.
TEST_F(LifetimeClassTest, WritersOfAClassAtWorkAtOnceShareItsZone) {
  std::unique_ptr<FileWriter> a, b, plain_a, plain_b;
  ASSERT_OK(fs_->OpenWriter("/s1-a", WriteMode::kExclusive, &a));
  ASSERT_OK(fs_->OpenWriter("/s1-b", WriteMode::kExclusive, &b));
  ASSERT_OK(fs_->OpenWriter("/c-a", WriteMode::kExclusive, &plain_a));
  ASSERT_OK(fs_->OpenWriter("/c-b", WriteMode::kExclusive, &plain_b));
  for (int i = 0; i < 4; i++) {
    // A flush sends whole blocks to the file's zone.
    for (FileWriter* w : {a.get(), b.get(), plain_a.get(), plain_b.get()}) {
      ASSERT_OK(w->Append(std::string(8 << 10, static_cast<char>('a' + i))));
      ASSERT_OK(w->Flush());
    }
  }
  for (FileWriter* w : {a.get(), b.get(), plain_a.get(), plain_b.get()}) ASSERT_OK(w->Close());
  Zones class1 = ZonesOf("/s1-a");
  const Zones of_b = ZonesOf("/s1-b");
  class1.insert(of_b.begin(), of_b.end());
  EXPECT_EQ(class1.size(), 1u);
  const Zones zones_a = ZonesOf("/c-a"), zones_b = ZonesOf("/c-b");
  ASSERT_EQ(zones_a.size(), 1u);
  ASSERT_EQ(zones_b.size(), 1u);
  EXPECT_NE(*zones_a.begin(), *zones_b.begin());
  for (const char* path : {"/s1-a", "/s1-b", "/c-a", "/c-b"}) {
    std::string want;
    for (int i = 0; i < 4; i++) want += std::string(8 << 10, static_cast<char>('a' + i));
    EXPECT_EQ(ReadFile(path), want) << path;
  }
  ExpectClean();
}

// Zones whose files all died come back whole at the next commit, however
// little was written in them: a write with no room elsewhere on the device
// resets them before it leaves it (a trace's write was refused with six such
// zones awaiting a commit and 14.4 MiB of garbage on the whole device).
TEST_F(LifetimeClassTest, AWriteResetsZonesWhoseFilesAllDiedBeforeItLeavesTheDevice) {
  // Four zones of classes 1-4 with a little written in each; the files die
  // and nothing commits (no sync) while class 0 fills the device.
  for (int c = 1; c <= 4; c++) WriteFile("/s" + std::to_string(c) + "-small", std::string(16 << 10, 'a'));
  for (int c = 1; c <= 4; c++) ASSERT_OK(fs_->Unlink("/s" + std::to_string(c) + "-small"));
  std::string spilled;
  for (int i = 0; spilled.empty(); i++) {
    ASSERT_LT(i, 1000);
    const std::string path = "/s0-" + std::to_string(i);
    WriteFile(path, std::string(32 << 10, 'b'), /*sync=*/false);
    for (const auto& z : ZonesOf(path)) {
      if (z.first != 0) spilled = path;
    }
  }
  // When a file first went to the slow device, no zone of the fast one was
  // left dead and unreset.
  std::vector<ZoneReport> zones;
  ASSERT_OK(fs_->Zones(&zones));
  for (const ZoneReport& z : zones) {
    if (z.device != 0 || !IsFileClass(z.role)) continue;
    EXPECT_FALSE(z.write_pointer > z.start && z.live_bytes == 0 && !z.writing)
        << "zone " << z.zone << " dead with " << z.write_pointer - z.start << " bytes written";
  }
  EXPECT_EQ(ReadFile(spilled), std::string(32 << 10, 'b'));
  ExpectClean();
}

TEST_F(LifetimeClassTest, GcLeavesZonesOfFilesAboutToDieForLast) {
  // Two zones with garbage; the first zone's survivor dies soon.
  Zones zone1, zone2;
  ASSERT_NO_FATAL_FAILURE(TwoZonesWithGarbage(140 << 10, 120 << 10, &zone1, &zone2));
  policy_->remaining["/s1-keep"] = 64 << 10;
  // The first zone has more garbage (greedy GC would take it), but its
  // survivor is expected to go: the second zone is collected.
  uint32_t freed = 0;
  ASSERT_OK(fs_->CollectGarbage(1, &freed));
  EXPECT_EQ(freed, 1u);
  EXPECT_EQ(ZonesOf("/s1-keep"), zone1);
  EXPECT_NE(ZonesOf("/s2-keep"), zone2);
  // Its survivor went to a zone of GC's own class, not to class 1's or 2's.
  WriteFile("/s2-new", std::string(10 << 10, 'e'));
  EXPECT_NE(ZonesOf("/s2-new"), ZonesOf("/s2-keep"));
  EXPECT_EQ(ReadFile("/s2-keep"), std::string(100 << 10, 'c'));
  // With nothing else to collect, the zone of the file about to die goes too.
  ASSERT_OK(fs_->CollectGarbage(1, &freed));
  EXPECT_EQ(freed, 1u);
  EXPECT_NE(ZonesOf("/s1-keep"), zone1);
  ExpectClean();
}

TEST_F(LifetimeClassTest, GcWeighsGarbageByHowLongSurvivorsStay) {
  // Both survivors have an expected life; the zone with less garbage holds
  // one expected to stay several times as long (16 MiB of writes, capped at
  // the device's capacity of about 6 MiB), which outweighs more than twice
  // the garbage.
  Zones zone1, zone2;
  ASSERT_NO_FATAL_FAILURE(TwoZonesWithGarbage(140 << 10, 60 << 10, &zone1, &zone2));
  policy_->remaining["/s1-keep"] = 1 << 20;
  policy_->remaining["/s2-keep"] = 16 << 20;
  uint32_t freed = 0;
  ASSERT_OK(fs_->CollectGarbage(1, &freed));
  EXPECT_EQ(freed, 1u);
  EXPECT_EQ(ZonesOf("/s1-keep"), zone1);
  EXPECT_NE(ZonesOf("/s2-keep"), zone2);
  // Without estimates GC is greedy: the zone with the most garbage.
  policy_->remaining.clear();
  WriteFile("/s3-keep", std::string(100 << 10, 'e'));
  WriteFile("/s3-gone", std::string(40 << 10, 'f'));
  EXPECT_OK(fs_->Unlink("/s3-gone"));
  ASSERT_OK(fs_->CollectGarbage(1, &freed));
  EXPECT_EQ(freed, 1u);
  EXPECT_NE(ZonesOf("/s1-keep"), zone1);
  EXPECT_EQ(ReadFile("/s1-keep"), std::string(100 << 10, 'a'));
  EXPECT_EQ(ReadFile("/s2-keep"), std::string(100 << 10, 'c'));
  ExpectClean();
}

}  // namespace
}  // namespace hintfs
