// Writers of a class the policy has take turns (AllocationPolicy::
// WritersShareZones) share the class's zone as writers of a lifetime class
// do: a new writer takes an idle one's zone before it opens an empty zone,
// and both files keep every byte, across a remount too.
#include <memory>
#include <set>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "tests/fs/fs_fixture.h"

namespace hintfs {
namespace {

constexpr ZoneRole kLogClass = static_cast<ZoneRole>(7);

// Files named *.log are of a class whose writers take turns when asked to.
class LogsShareZones : public FastFirstPolicy {
 public:
  explicit LogsShareZones(bool share) : share_(share) {}
  ZoneRole RoleForNewFile(const std::string& path) override {
    return path.size() > 4 && path.compare(path.size() - 4, 4, ".log") == 0 ? kLogClass : ZoneRole::kData;
  }
  bool WritersShareZones(ZoneRole role) override { return share_ && role == kLogClass; }

 private:
  bool share_;
};

class SharedWriterZonesTest : public test::FsTest {
 protected:
  using Zones = std::set<std::pair<uint32_t, uint32_t>>;
  void MountWith(bool share) {
    Format();
    MountOptions o;
    o.policy = std::make_shared<LogsShareZones>(share);
    Mount(o);
  }
  // Two files written one after the other, the first left open and idle
  // while the second writes (as a store keeps its last log open until its
  // memtable is flushed); the zones each holds in *zones_a and *zones_b.
  void OneAfterTheOther(const std::string& a_path, const std::string& b_path, Zones* zones_a, Zones* zones_b) {
    std::unique_ptr<FileWriter> a, b;
    ASSERT_OK(fs_->OpenWriter(a_path, WriteMode::kExclusive, &a));
    ASSERT_OK(a->Append(first_));
    ASSERT_OK(a->Flush());
    ASSERT_OK(fs_->OpenWriter(b_path, WriteMode::kExclusive, &b));
    ASSERT_OK(b->Append(second_));
    ASSERT_OK(b->Flush());
    // The idle writer writes again: it finds room elsewhere.
    ASSERT_OK(a->Append(more_));
    ASSERT_OK(a->Close());
    ASSERT_OK(b->Close());
    *zones_a = ZonesOf(a_path);
    *zones_b = ZonesOf(b_path);
  }
  const std::string first_ = std::string(24 << 10, 'a');
  const std::string second_ = std::string(24 << 10, 'b');
  const std::string more_ = std::string(8 << 10, 'c');
};

TEST_F(SharedWriterZonesTest, ALogTakesTheZoneAnIdleLogHolds) {
  MountWith(/*share=*/true);
  Zones a, b, x, y;
  OneAfterTheOther("/1.log", "/2.log", &a, &b);
  OneAfterTheOther("/x", "/y", &x, &y);
  ASSERT_FALSE(a.empty());
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(a.count(*b.begin()), 1u) << "the second log opened a zone of its own";
  // Other classes keep a zone per writer.
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(x.count(*y.begin()), 0u);
  EXPECT_EQ(ReadFile("/1.log"), first_ + more_);
  EXPECT_EQ(ReadFile("/2.log"), second_);
  Remount();
  EXPECT_EQ(ReadFile("/1.log"), first_ + more_);
  EXPECT_EQ(ReadFile("/2.log"), second_);
  ExpectClean();
}

TEST_F(SharedWriterZonesTest, WithoutTurnsEachLogHasAZoneOfItsOwn) {
  MountWith(/*share=*/false);
  Zones a, b;
  OneAfterTheOther("/1.log", "/2.log", &a, &b);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(a.count(*b.begin()), 0u);
  EXPECT_EQ(ReadFile("/2.log"), second_);
  ExpectClean();
}

}  // namespace
}  // namespace hintfs
