// Files whose class owns its zones (AllocationPolicy::ZonePerFile) start in
// empty zones and finish their last zone when they stop writing, so that a
// file's deletion frees whole zones and no zone holds two files.
#include <set>
#include <utility>

#include <gtest/gtest.h>

#include "tests/fs/fs_fixture.h"

namespace hintfs {
namespace {

constexpr ZoneRole kOwnClass = static_cast<ZoneRole>(6);

// Files named *.tbl are of a class whose files own their zones when asked to.
class TablesOwnZones : public FastFirstPolicy {
 public:
  explicit TablesOwnZones(bool own) : own_(own) {}
  ZoneRole RoleForNewFile(const std::string& path) override {
    return path.size() > 4 && path.compare(path.size() - 4, 4, ".tbl") == 0 ? kOwnClass : ZoneRole::kData;
  }
  bool ZonePerFile(ZoneRole role, uint64_t) override { return own_ && role == kOwnClass; }

 private:
  bool own_;
};

// The same, with every file on the slow tier.
class SlowTablesOwnZones : public TablesOwnZones {
 public:
  SlowTablesOwnZones() : TablesOwnZones(true) {}
  void ChooseDevices(const AllocationRequest&, const std::vector<DeviceSpace>& devices,
                     std::vector<uint32_t>* order) override {
    for (const DeviceSpace& d : devices) {
      if (d.tier == Tier::kSlow) order->push_back(d.index);
    }
  }
};

class ZonePerFileTest : public test::FsTest {
 protected:
  using test::FsTest::WriteFile;
  void MountWith(bool own) {
    MountOptions o;
    o.policy = std::make_shared<TablesOwnZones>(own);
    Mount(o);
  }
  void WriteFile(const std::string& path, size_t bytes) {
    std::unique_ptr<FileWriter> w;
    ASSERT_OK(fs_->OpenWriter(path, WriteMode::kTruncate, &w));
    ASSERT_OK(w->Append(Random(&rng_, bytes)));
    ASSERT_OK(w->Sync());
    ASSERT_OK(w->Close());
  }
  ZoneCondition ConditionOf(std::pair<uint32_t, uint32_t> zone) {
    std::vector<ZoneReport> zones;
    EXPECT_OK(fs_->Zones(&zones));
    for (const ZoneReport& z : zones) {
      if (z.device == zone.first && z.zone == zone.second) return z.condition;
    }
    ADD_FAILURE() << "no zone " << zone.second;
    return ZoneCondition::kOffline;
  }
  std::mt19937_64 rng_{7};
};

TEST_F(ZonePerFileTest, EachFileStartsInAnEmptyZoneAndFinishesItsLast) {
  Format();
  MountWith(/*own=*/true);
  WriteFile("/a.tbl", 150 << 10);  // zones hold 256 KiB
  WriteFile("/b.tbl", 150 << 10);
  WriteFile("/c.tbl", 300 << 10);  // more than a zone: two of its own
  auto a = ZonesOf("/a.tbl"), b = ZonesOf("/b.tbl"), c = ZonesOf("/c.tbl");
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(c.size(), 2u);
  EXPECT_NE(*a.begin(), *b.begin());
  for (const auto& z : c) EXPECT_TRUE(a.count(z) == 0 && b.count(z) == 0);
  // Closed files hold no open zone: their rest is nobody's.
  EXPECT_EQ(ConditionOf(*a.begin()), ZoneCondition::kFull);
  EXPECT_EQ(ConditionOf(*b.begin()), ZoneCondition::kFull);
  // Files of other classes still share zones.
  WriteFile("/x", 10 << 10);
  WriteFile("/y", 10 << 10);
  EXPECT_EQ(ZonesOf("/x"), ZonesOf("/y"));
  ExpectClean();
  // The rest a file left of a zone it mostly fills is not worth a move.
  uint32_t freed = 0;
  ASSERT_OK(fs_->CollectGarbage(8, &freed));
  EXPECT_EQ(ZonesOf("/a.tbl"), a);
  EXPECT_EQ(ZonesOf("/c.tbl"), c);
  // Deleting a file frees its zone whole, with nothing to relocate.
  ASSERT_OK(fs_->Unlink("/a.tbl"));
  ASSERT_OK(fs_->SyncMetadata());
  EXPECT_EQ(ConditionOf(*a.begin()), ZoneCondition::kEmpty);
  EXPECT_EQ(fs_->Stats().gc_bytes_moved, 0u);
  Remount();
  EXPECT_EQ(ZonesOf("/b.tbl"), b);
  ExpectClean();
}

// A file a little longer than a zone (RocksDB cuts compaction outputs up to
// twice its target to align them with the next level's) would finish a
// second zone of its own for a short tail; the tails of such files share
// zones instead.
TEST_F(ZonePerFileTest, TheTailsOfFilesLongerThanAZoneShareZones) {
  Format();
  MountWith(/*own=*/true);
  WriteFile("/a.tbl", 300 << 10);  // zones hold 256 KiB
  WriteFile("/b.tbl", 280 << 10);
  auto a = ZonesOf("/a.tbl"), b = ZonesOf("/b.tbl");
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 2u);
  std::set<std::pair<uint32_t, uint32_t>> both;
  for (const auto& z : a) both.insert(z);
  for (const auto& z : b) both.insert(z);
  EXPECT_EQ(both.size(), 3u) << "two first zones and one shared tail zone";
  WriteFile("/c.tbl", 100 << 10);
  for (const auto& z : ZonesOf("/c.tbl")) EXPECT_EQ(both.count(z), 0u) << "a file still starts in an empty zone";
  ExpectClean();
  ASSERT_OK(fs_->Unlink("/a.tbl"));
  ASSERT_OK(fs_->Unlink("/b.tbl"));
  ASSERT_OK(fs_->SyncMetadata());
  for (const auto& z : both) EXPECT_EQ(ConditionOf(z), ZoneCondition::kEmpty);
  Remount();
  ExpectClean();
}

// A file that stopped short of half its zone leaves most of it garbage for
// as long as it lives; GC packs such files into a zone they share.
TEST_F(ZonePerFileTest, GcPacksFilesThatLeftMostOfTheirZonesEmpty) {
  Format();
  MountWith(/*own=*/true);
  const std::string a = Random(&rng_, 60 << 10), b = Random(&rng_, 40 << 10);
  WriteFile("/a.tbl", a);  // zones hold 256 KiB
  WriteFile("/b.tbl", b);
  WriteFile("/c.tbl", Random(&rng_, 200 << 10));  // most of its zone: stays
  const auto zones_a = ZonesOf("/a.tbl"), zones_b = ZonesOf("/b.tbl"), zones_c = ZonesOf("/c.tbl");
  ASSERT_NE(zones_a, zones_b);
  uint32_t freed = 0;
  ASSERT_OK(fs_->CollectGarbage(8, &freed));
  EXPECT_GE(freed, 2u);
  EXPECT_EQ(ZonesOf("/a.tbl"), ZonesOf("/b.tbl")) << "the short files share a zone";
  EXPECT_EQ(ZonesOf("/c.tbl"), zones_c);
  ASSERT_OK(fs_->SyncMetadata());
  EXPECT_EQ(ConditionOf(*zones_a.begin()), ZoneCondition::kEmpty);
  EXPECT_EQ(ConditionOf(*zones_b.begin()), ZoneCondition::kEmpty);
  EXPECT_EQ(ReadFile("/a.tbl"), a);
  EXPECT_EQ(ReadFile("/b.tbl"), b);
  // A new file still starts in an empty zone, not in the shared one.
  WriteFile("/d.tbl", Random(&rng_, 10 << 10));
  EXPECT_NE(ZonesOf("/d.tbl"), ZonesOf("/a.tbl"));
  Remount();
  EXPECT_EQ(ReadFile("/a.tbl"), a);
  EXPECT_EQ(ReadFile("/b.tbl"), b);
  ExpectClean();
}

// A file moved to the other tier owns the empty zone its copy took, as its
// writer owned the first: the zone is finished, and GC may pack files that
// left most of theirs empty.
TEST_F(ZonePerFileTest, AMovedFileOwnsItsNewZoneAsItsWriterDid) {
  Format();
  MountWith(/*own=*/true);
  const std::string a = Random(&rng_, 60 << 10), b = Random(&rng_, 40 << 10);
  WriteFile("/a.tbl", a);  // zones hold 256 KiB
  WriteFile("/b.tbl", b);
  MigrateResult r;
  ASSERT_OK(fs_->MigrateFile("/a.tbl", Tier::kSlow, nullptr, &r));
  ASSERT_OK(fs_->MigrateFile("/b.tbl", Tier::kSlow, nullptr, &r));
  const auto zones_a = ZonesOf("/a.tbl"), zones_b = ZonesOf("/b.tbl");
  ASSERT_EQ(zones_a.size(), 1u);
  ASSERT_EQ(zones_b.size(), 1u);
  EXPECT_EQ(zones_a.begin()->first, 1u) << "on the slow device";
  EXPECT_NE(zones_a, zones_b) << "each copy took an empty zone";
  EXPECT_EQ(ConditionOf(*zones_a.begin()), ZoneCondition::kFull);
  EXPECT_EQ(ConditionOf(*zones_b.begin()), ZoneCondition::kFull);
  Remount();  // what the zones hold is the device's, not only memory's
  uint32_t freed = 0;
  ASSERT_OK(fs_->CollectGarbage(8, &freed));
  EXPECT_GE(freed, 1u);
  EXPECT_EQ(ZonesOf("/a.tbl"), ZonesOf("/b.tbl")) << "the short files share a zone";
  EXPECT_EQ(ReadFile("/a.tbl"), a);
  EXPECT_EQ(ReadFile("/b.tbl"), b);
  ExpectClean();
}

// On a disk a new file takes the first empty zone after the zone opened
// last, so that tables written one after another lie one after another and
// the head skips forward (the LevelDB load's tables jumped to the lowest
// empty zone: a seek each, docs/benchmarks.md); elsewhere the lowest.
TEST_F(ZonePerFileTest, OnADiskNewFilesTakeTheEmptyZonesAfterTheLastOne) {
  for (bool disk : {true, false}) {
    SCOPED_TRACE(disk ? "st14000" : "no timing figures");
    test::FsGeometry g;
    if (disk) g.slow += "&profile=st14000&profile_scale=1000";
    Format(g);
    MountOptions o;
    o.policy = std::make_shared<SlowTablesOwnZones>();
    Mount(o);
    WriteFile("/a.tbl", 200 << 10);  // zones hold 256 KiB
    WriteFile("/b.tbl", 200 << 10);
    const auto a = ZonesOf("/a.tbl"), b = ZonesOf("/b.tbl");
    ASSERT_EQ(a.size(), 1u);
    ASSERT_EQ(b.size(), 1u);
    ASSERT_EQ(a.begin()->first, 1u) << "on the slow device";
    ASSERT_OK(fs_->Unlink("/a.tbl"));
    ASSERT_OK(fs_->SyncMetadata());
    ASSERT_EQ(ConditionOf(*a.begin()), ZoneCondition::kEmpty);
    WriteFile("/c.tbl", 200 << 10);
    const auto c = ZonesOf("/c.tbl");
    ASSERT_EQ(c.size(), 1u);
    if (disk) {
      EXPECT_GT(c.begin()->second, b.begin()->second) << "after the last zone opened";
    } else {
      EXPECT_EQ(c, a) << "the lowest empty zone";
    }
    ExpectClean();
  }
}

TEST_F(ZonePerFileTest, WithoutItFilesOfAClassFillEachOthersZones) {
  Format();
  MountWith(/*own=*/false);
  WriteFile("/a.tbl", 100 << 10);
  WriteFile("/b.tbl", 100 << 10);
  EXPECT_EQ(ZonesOf("/a.tbl"), ZonesOf("/b.tbl"));
  ExpectClean();
}

}  // namespace
}  // namespace hintfs
