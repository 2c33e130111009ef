// Key-range heat: reads score the key ranges of the blocks they hit, scores
// decay by time slice, the coldest ranges go first, and a block written by
// a later compaction is as hot as the ranges its keys overlap.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>

#include "placement/key_heat.h"

namespace hintfs {
namespace {

std::string K(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "k%05d", i);
  return buf;
}

TEST(KeyHeat, RangesReadMoreOftenScoreHigher) {
  KeyHeat heat;
  for (int i = 0; i < 10; i++) heat.RecordRead(K(100), K(110), 4096);
  heat.RecordRead(K(200), K(210), 4096);
  EXPECT_NEAR(heat.Score(K(100), K(110)), 10, 0.1);
  EXPECT_NEAR(heat.Score(K(200), K(210)), 1, 0.01);
  EXPECT_NEAR(heat.Score(K(105), K(120)), 10, 0.1) << "overlapping keys share the heat";
  EXPECT_EQ(heat.Score(K(110), K(200)), 0) << "(110, 200] overlaps neither range";
  EXPECT_EQ(heat.Score(K(300), K(400)), 0);
  EXPECT_NEAR(heat.Score("", K(101)), 10, 0.1) << "an empty lower bound is the smallest key";
  EXPECT_EQ(heat.stats().reads, 11u);
  EXPECT_EQ(heat.stats().ranges, 2u);
}

TEST(KeyHeat, ScoresDecayEachTimeSlice) {
  KeyHeatOptions o;
  o.alpha = 0.5;
  o.slice_bytes = 4096;
  KeyHeat heat(o);
  heat.RecordRead(K(1), K(2), 4096);  // slice 1
  for (int i = 0; i < 3; i++) heat.RecordRead(K(10 + i), K(11 + i), 4096);  // slices 2-4
  EXPECT_EQ(heat.stats().slice, 4u);
  EXPECT_DOUBLE_EQ(heat.Score(K(1), K(2)), 0.125);
  // Within slice 4: the decayed score plus one, which the read returns too.
  EXPECT_DOUBLE_EQ(heat.RecordRead(K(1), K(2), 1), 1.125);
  EXPECT_DOUBLE_EQ(heat.Score(K(1), K(2)), 1.125);
}

// The first read of a range answers with the heat of what it overlaps (the
// block a compaction wrote over hot keys is hot at once); later reads with
// the range's own score, whatever the neighbours do.
TEST(KeyHeat, AReadAnswersWithItsRangesOwnScoreOnceKnown) {
  KeyHeat heat;
  for (int i = 0; i < 20; i++) heat.RecordRead(K(100), K(120), 4096);
  EXPECT_NEAR(heat.RecordRead(K(105), K(110), 4096), 20, 0.1) << "new: as hot as the wide range over it";
  EXPECT_NEAR(heat.RecordRead(K(105), K(110), 4096), 2, 0.01) << "known: its own two reads";
  EXPECT_NEAR(heat.Score(K(105), K(110)), 20, 0.1) << "Score still looks at the overlapping ranges";
  EXPECT_NEAR(heat.BlockScore(K(105), K(110)), 2, 0.01) << "a known block: its own score, no read counted";
  EXPECT_NEAR(heat.BlockScore(K(111), K(115)), 20, 0.1) << "an unknown one: what it overlaps";
  EXPECT_NEAR(heat.RecordRead(K(300), K(310), 4096), 1, 0.01) << "new, overlapping nothing";
}

TEST(KeyHeat, TheThresholdKeepsTheHottestThatFit) {
  KeyHeat heat;
  for (int i = 0; i < 5; i++) heat.RecordRead(K(0), K(10), 100);
  for (int i = 0; i < 3; i++) heat.RecordRead(K(10), K(20), 100);
  heat.RecordRead(K(20), K(30), 100);
  EXPECT_NEAR(heat.HotThreshold(250), 1, 0.01) << "the two hottest fit, the third does not";
  EXPECT_NEAR(heat.HotThreshold(150), 3, 0.01);
  EXPECT_EQ(heat.HotThreshold(1000), 0) << "everything fits";
}

TEST(KeyHeat, TheColdestRangesAreEvictedFirst) {
  KeyHeatOptions o;
  o.max_ranges = 20;
  KeyHeat heat(o);
  for (int i = 0; i < 5; i++) heat.RecordRead(K(0), K(1), 4096);
  for (int i = 1; i <= 25; i++) heat.RecordRead(K(10 * i), K(10 * i + 5), 4096);
  EXPECT_LE(heat.stats().ranges, 20u);
  EXPECT_GE(heat.stats().evicted, 6u);
  EXPECT_NEAR(heat.Score(K(0), K(1)), 5, 0.1) << "the hot range stays";
  // An evicted range read again starts afresh, found by its key as any other.
  int evicted = 0;
  for (int i = 1; i <= 25 && evicted == 0; i++) {
    if (heat.BlockScore(K(10 * i), K(10 * i + 5)) == 0) evicted = i;
  }
  ASSERT_GT(evicted, 0);
  const std::string lo = K(10 * evicted), hi = K(10 * evicted + 5);
  EXPECT_NEAR(heat.RecordRead(lo, hi, 4096, /*reads=*/10), 10, 0.01);
  EXPECT_NEAR(heat.RecordRead(lo, hi, 4096), 11, 0.1);
  EXPECT_NEAR(heat.BlockScore(lo, hi), 11, 0.1);
  EXPECT_LE(heat.stats().ranges, 20u);
}

// Eviction and HotThreshold keep the ranges in order of their score now
// without recomputing it: with scores decaying and ranges read at random,
// both agree with a brute force over every range's score.
TEST(KeyHeat, TheOrderOfScoresHoldsAsTheyDecay) {
  KeyHeatOptions o;
  o.alpha = 0.99;
  o.slice_bytes = 3000;  // a slice every few reads
  o.max_ranges = 150;
  KeyHeat heat(o);
  std::mt19937_64 rng(5);
  for (int i = 0; i < 20000; i++) {
    const int r = static_cast<int>(rng() % 5 == 0 ? rng() % 20 : rng() % 400);  // twenty hot ones
    heat.RecordRead(K(2 * r), K(2 * r + 1), 1000 + r);
  }
  EXPECT_EQ(heat.stats().ranges, 150u) << "evicted one at a time, as new ones come";
  EXPECT_GE(heat.stats().evicted, 250u);
  std::vector<std::pair<double, uint64_t>> held;  // (score, block bytes)
  int hot_held = 0;
  for (int r = 0; r < 400; r++) {
    const double s = heat.BlockScore(K(2 * r), K(2 * r + 1));
    if (s > 0) held.emplace_back(s, 1000 + r);
    hot_held += r < 20 && s > 0;
  }
  EXPECT_EQ(held.size(), 150u);
  EXPECT_EQ(hot_held, 20) << "the hot ranges are never the coldest";
  std::sort(held.rbegin(), held.rend());
  for (uint64_t budget : {5000ull, 40000ull, 100000ull}) {
    uint64_t used = 0;
    double expected = 0;
    for (const auto& [score, bytes] : held) {
      if (used + bytes > budget) {
        expected = score;
        break;
      }
      used += bytes;
    }
    EXPECT_NEAR(heat.HotThreshold(budget), expected, 1e-9) << budget;
  }
  EXPECT_EQ(heat.HotThreshold(1 << 30), 0) << "everything fits";
}

// HotThreshold walks a step of ranges per hold of the lock: a hot set of
// several steps gives the threshold a walk in one go would.
TEST(KeyHeat, AThresholdOfManyStepsIsTheOneOfAWholeWalk) {
  KeyHeatOptions o;
  o.alpha = 0.999;
  o.slice_bytes = 50000;
  o.max_ranges = 4 * KeyHeat::kThresholdStep;
  KeyHeat heat(o);
  std::mt19937_64 rng(6);
  const int ranges = static_cast<int>(o.max_ranges);
  for (int i = 0; i < 40 * ranges; i++) {
    const int r = static_cast<int>(rng() % ranges);
    heat.RecordRead(K(2 * r), K(2 * r + 1), 1000);
  }
  std::vector<double> scores;
  for (int r = 0; r < ranges; r++) scores.push_back(heat.BlockScore(K(2 * r), K(2 * r + 1)));
  std::sort(scores.rbegin(), scores.rend());
  for (int fit : {KeyHeat::kThresholdStep - 1, KeyHeat::kThresholdStep, 3 * KeyHeat::kThresholdStep + 7}) {
    EXPECT_NEAR(heat.HotThreshold(1000ull * fit), scores[fit], 1e-9) << fit << " ranges fit";
  }
}

// A compaction rewrites the last level with other block boundaries: blocks
// of ten keys that started at multiples of ten now start at 5 past them.
// The new blocks that hold the hot keys are the hot ones.
TEST(KeyHeat, HeatSurvivesACompactionThatMovesBlockBoundaries) {
  KeyHeat heat;
  for (int b = 0; b < 100; b++) heat.RecordRead(K(10 * b), K(10 * b + 10), 4096);  // one read each
  for (int i = 0; i < 50; i++) heat.RecordRead(K(500), K(510), 4096);  // keys 501..510 are hot
  int hot_blocks = 0;
  for (int b = 0; b < 99; b++) {
    double s = heat.Score(K(10 * b + 5), K(10 * b + 15));
    if (s > 10) {
      hot_blocks++;
      EXPECT_TRUE(b == 49 || b == 50) << "block " << b << " scores " << s;
    } else {
      EXPECT_LT(s, 2) << b;
    }
  }
  EXPECT_EQ(hot_blocks, 2) << "the two new blocks that share keys with the hot one";
}

}  // namespace
}  // namespace hintfs
