// Lifetime classes (AllocationPolicy::LifetimeClass) are a second key of
// allocation: a zone holds files of one class, GC's relocations go to zones
// of their own, and GC collects zones of files the policy expects to die
// soon only when no other zone has garbage (AllocationPolicy::DiesSoon).
#include <map>
#include <set>
#include <utility>

#include <gtest/gtest.h>

#include "tests/fs/fs_fixture.h"

namespace hintfs {
namespace {

// Files named /sN... have lifetime class N; names in dying_ die soon.
class ClassByName : public FastFirstPolicy {
 public:
  uint8_t LifetimeClass(const AllocationRequest& request) override {
    asked[request.path]++;
    return request.path.size() > 2 && request.path[1] == 's' ? static_cast<uint8_t>(request.path[2] - '0') : 0;
  }
  bool DiesSoon(const std::string& path, uint64_t) override { return dying.count(path) != 0; }
  void OnFileDeleted(const std::string& path, uint64_t size, uint64_t clock) override {
    deleted[path] = {size, clock};
  }
  std::map<std::string, int> asked;
  std::set<std::string> dying;
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

TEST_F(LifetimeClassTest, GcLeavesZonesOfFilesAboutToDieForLast) {
  // Two zones with garbage; the first zone's survivor dies soon.
  WriteFile("/s1-keep", std::string(100 << 10, 'a'));
  WriteFile("/s1-gone", std::string(140 << 10, 'b'));
  WriteFile("/s2-keep", std::string(100 << 10, 'c'));
  WriteFile("/s2-gone", std::string(120 << 10, 'd'));
  const auto zone1 = ZonesOf("/s1-keep"), zone2 = ZonesOf("/s2-keep");
  ASSERT_EQ(zone1.size(), 1u);
  ASSERT_EQ(zone2.size(), 1u);
  EXPECT_OK(fs_->Unlink("/s1-gone"));
  EXPECT_OK(fs_->Unlink("/s2-gone"));
  policy_->dying.insert("/s1-keep");
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
  // With nothing else to collect, the zone of the dying file goes too.
  ASSERT_OK(fs_->CollectGarbage(1, &freed));
  EXPECT_EQ(freed, 1u);
  EXPECT_NE(ZonesOf("/s1-keep"), zone1);
  ExpectClean();
}

}  // namespace
}  // namespace hintfs
