// LifetimeFeatureSource: what is known of a file when it gets its first
// zone, from the hints of its job and the files like it that came before.
#include "placement/lifetime_features.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "hints/file_kind.h"

namespace hintfs {
namespace {

constexpr uint64_t kMiB = 1 << 20;

class LifetimeFeaturesTest : public ::testing::Test {
 protected:
  void SetUp() override { features_.SetHalfLife(kMiB); }

  // The features of path's first zone, the file announced by a table-file-
  // creation hint of job (reason "flush" or "compaction") when level >= 0.
  LifetimeFeatures Create(const std::string& path, int level, int64_t job, const std::string& reason,
                          uint64_t clock, int lifetime_hint = 0) {
    if (level >= 0) {
      Hint h;
      h.kind = Hint::Kind::kTableFileCreation;
      h.path = path;
      h.level = level;
      h.job = job;
      h.reason = reason;
      bus_->Publish(h);
    }
    AllocationRequest r;
    r.path = path;
    r.lifetime_hint = lifetime_hint;
    r.write_clock = clock;
    return features_.OnCreated(r);
  }
  void BeginCompaction(int64_t job, int output_level, const std::vector<HintFile>& inputs) {
    Hint h;
    h.kind = Hint::Kind::kCompactionBegin;
    h.job = job;
    h.level = output_level;
    h.inputs = inputs;
    bus_->Publish(h);
  }

  std::shared_ptr<HintBus> bus_ = std::make_shared<HintBus>();
  LifetimeFeatureSource features_{bus_};
};

TEST_F(LifetimeFeaturesTest, ACompactionOutputCarriesItsJob) {
  BeginCompaction(7, 2, {{"/db/000001.sst", 1}, {"/db/000002.sst", 2}, {"/db/000003.sst", 2}});
  const LifetimeFeatures f = Create("/db/000010.sst", 2, 7, "compaction", 0, /*lifetime_hint=*/4);
  EXPECT_EQ(f[kFeatureKind], static_cast<float>(LsmFileKind::kTable));
  EXPECT_EQ(f[kFeatureLevel], 2);
  EXPECT_EQ(f[kFeatureLifetimeHint], 4);
  EXPECT_EQ(f[kFeatureJobKind], 1);
  EXPECT_EQ(f[kFeatureJobInputs], 3);
  EXPECT_EQ(f[kFeatureJobInputLevel], 1);
}

TEST_F(LifetimeFeaturesTest, ACompactionsOverlapAndKeyRangeComeFromItsInputs) {
  for (const auto& [path, smallest, largest] :
       std::vector<std::tuple<std::string, std::string, std::string>>{{"/db/000001.sst", "key000150", "key000400"},
                                                                      {"/db/000002.sst", "key000100", "key000199"},
                                                                      {"/db/000003.sst", "key000200", "key000299"},
                                                                      {"/db/000004.sst", "key000300", "key000399"}}) {
    Hint out;
    out.kind = Hint::Kind::kCompactionOutput;
    out.path = path;
    out.smallest_key = smallest;
    out.largest_key = largest;
    bus_->Publish(out);
  }
  // One table of level 1 over three of level 2, every key range recorded:
  // "key000100" to "key000400" share "key000".
  BeginCompaction(7, 2, {{"/db/000001.sst", 1}, {"/db/000002.sst", 2}, {"/db/000003.sst", 2}, {"/db/000004.sst", 2}});
  const LifetimeFeatures f = Create("/db/000010.sst", 2, 7, "compaction", 0);
  EXPECT_EQ(f[kFeatureJobOverlap], 3);
  EXPECT_EQ(f[kFeatureJobKeyPrefix], 6);
  // An input whose range no hint gave (and one deleted since): the union
  // is not known.
  Hint gone;
  gone.kind = Hint::Kind::kFileDeleted;
  gone.path = "/db/000004.sst";
  bus_->Publish(gone);
  BeginCompaction(8, 2, {{"/db/000001.sst", 1}, {"/db/000004.sst", 2}});
  const LifetimeFeatures g = Create("/db/000011.sst", 2, 8, "compaction", 0);
  EXPECT_EQ(g[kFeatureJobOverlap], 1);
  EXPECT_TRUE(std::isnan(g[kFeatureJobKeyPrefix]));
  // Inputs of one level only overlap nothing below.
  BeginCompaction(9, 1, {{"/db/000002.sst", 0}});
  const LifetimeFeatures h = Create("/db/000012.sst", 1, 9, "compaction", 0);
  EXPECT_EQ(h[kFeatureJobOverlap], 0);
  EXPECT_EQ(h[kFeatureJobKeyPrefix], 7) << "key000100 to key000199";
}

TEST_F(LifetimeFeaturesTest, AFlushHasNoInputsAndALogNoJob) {
  const LifetimeFeatures table = Create("/db/000011.sst", 0, 8, "flush", 0);
  EXPECT_EQ(table[kFeatureJobKind], 0);
  EXPECT_EQ(table[kFeatureLevel], 0);
  EXPECT_TRUE(std::isnan(table[kFeatureJobInputs]));
  EXPECT_TRUE(std::isnan(table[kFeatureJobInputLevel]));
  EXPECT_TRUE(std::isnan(table[kFeatureJobOverlap]));
  EXPECT_TRUE(std::isnan(table[kFeatureJobKeyPrefix]));
  const LifetimeFeatures log = Create("/db/000012.log", -1, -1, "", 0);
  EXPECT_EQ(log[kFeatureKind], static_cast<float>(LsmFileKind::kWal));
  EXPECT_EQ(log[kFeatureLevel], LevelTracker::kWal);
  EXPECT_TRUE(std::isnan(log[kFeatureJobKind]));
  // A file of no kind the store names: no level, nothing to learn from.
  const LifetimeFeatures other = Create("/db/IDENTITY", -1, -1, "", 0);
  EXPECT_TRUE(std::isnan(other[kFeatureLevel]));
}

TEST_F(LifetimeFeaturesTest, RecentLifetimesAreOfTheSameKindAndLevel) {
  const LifetimeFeatures a = Create("/db/000020.sst", 2, 1, "compaction", 0);
  const LifetimeFeatures b = Create("/db/000021.sst", 2, 1, "compaction", 0);
  EXPECT_TRUE(std::isnan(a[kFeatureRecentLifetime])) << "nothing of its level died yet";
  features_.OnDied(a, 1023, 1023);  // log2(1024) = 10
  features_.OnDied(b, 4095, 4095);  // log2(4096) = 12
  EXPECT_FLOAT_EQ(Create("/db/000022.sst", 2, 2, "compaction", 4096)[kFeatureRecentLifetime], 11);
  EXPECT_TRUE(std::isnan(Create("/db/000023.sst", 0, 3, "flush", 4096)[kFeatureRecentLifetime]))
      << "level 0 has its own";
}

TEST_F(LifetimeFeaturesTest, CountersHalveEachHalfLifeAndLiveFilesAreCounted) {
  const LifetimeFeatures first = Create("/db/000030.sst", 1, 1, "compaction", 0);
  EXPECT_EQ(first[kFeatureCreations], 0);
  EXPECT_EQ(first[kFeatureLiveAtLevel], 0);
  Create("/db/000031.sst", 1, 1, "compaction", 0);
  // Two creations at clock 0, read one half-life later.
  const LifetimeFeatures third = Create("/db/000032.sst", 1, 1, "compaction", kMiB);
  EXPECT_FLOAT_EQ(third[kFeatureCreations], 1);
  EXPECT_EQ(third[kFeatureLiveAtLevel], 2);
  EXPECT_EQ(third[kFeatureDeaths], 0);
  features_.OnDied(first, kMiB, kMiB);
  const LifetimeFeatures fourth = Create("/db/000033.sst", 1, 1, "compaction", 3 * kMiB);
  EXPECT_FLOAT_EQ(fourth[kFeatureDeaths], 0.25f);  // two half-lives after
  EXPECT_EQ(fourth[kFeatureLiveAtLevel], 2);
  EXPECT_EQ(Create("/db/000034.sst", 3, 1, "compaction", 3 * kMiB)[kFeatureLiveAtLevel], 0) << "per level";
}

TEST_F(LifetimeFeaturesTest, FreeSpaceIsTheLastAllocationsShare) {
  EXPECT_EQ(Create("/db/000040.sst", 1, 1, "compaction", 0)[kFeatureFreeFraction], 1) << "all free until told";
  features_.SetFreeFraction(0.25);
  EXPECT_FLOAT_EQ(Create("/db/000041.sst", 1, 1, "compaction", 0)[kFeatureFreeFraction], 0.25f);
}

}  // namespace
}  // namespace hintfs
