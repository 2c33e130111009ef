// The reserve (MountOptions::reserve_zones): zones no ordinary write may
// take, kept for writes the placement policy says free space, so a store that
// filled the filesystem can still flush and compact.
#include <gtest/gtest.h>

#include "tests/fs/fs_fixture.h"

namespace hintfs {
namespace {

// Files named *.out free space once written (as an LSM store's tables do).
class OutputsFreeSpace : public FastFirstPolicy {
 public:
  std::string name() const override { return "fast-first"; }
  bool MayUseReserve(const AllocationRequest& r) override {
    return r.path.size() > 4 && r.path.compare(r.path.size() - 4, 4, ".out") == 0;
  }
};

class ReserveTest : public test::FsTest, public ::testing::WithParamInterface<uint32_t> {};

TEST_P(ReserveTest, OnlyWritesThatFreeSpaceMayUseIt) {
  const uint32_t reserve = GetParam();
  Format();
  MountOptions o;
  o.policy = std::make_shared<OutputsFreeSpace>();
  o.reserve_zones = reserve;
  Mount(o);
  // Fill with ordinary files until the filesystem refuses.
  std::mt19937_64 rng(1);
  Status s;
  int files = 0;
  for (; files < 1000 && s.ok(); files++) {
    std::unique_ptr<FileWriter> w;
    s = fs_->OpenWriter("/log" + std::to_string(files), WriteMode::kTruncate, &w);
    if (s.ok()) s = w->Append(Random(&rng, 200 << 10));
    if (s.ok()) s = w->Sync();
    if (w) w->Close();
  }
  ASSERT_TRUE(s.IsNoSpace()) << s.ToString();
  // A space-freeing write still finds room, if there is a reserve.
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/compaction.out", WriteMode::kTruncate, &w));
  s = w->Append(Random(&rng, 200 << 10));
  if (s.ok()) s = w->Sync();
  if (reserve > 0) {
    EXPECT_OK(s);
  } else {
    EXPECT_TRUE(s.IsNoSpace()) << s.ToString();
  }
  w.reset();
  ExpectClean();
}

INSTANTIATE_TEST_SUITE_P(Zones, ReserveTest, ::testing::Values(0u, 1u));

}  // namespace
}  // namespace hintfs
