// LifetimeHistory: the remaining life a file of a group can expect, given
// its age, from the lifetimes recent files of the group lived.
#include "placement/lifetime_history.h"

#include <gtest/gtest.h>

namespace hintfs {
namespace {

TEST(LifetimeHistoryTest, TooFewLifetimesTellNothing) {
  LifetimeHistory h;
  for (size_t i = 0; i + 1 < LifetimeHistory::kMinKnown; i++) h.Add(100);
  EXPECT_EQ(h.ExpectedRemaining(0), LifetimeHistory::kUnknown);
  h.Add(100);
  EXPECT_EQ(h.ExpectedRemaining(0), 100u);
}

TEST(LifetimeHistoryTest, RemainingLifeCountsOnlyLifetimesLongerThanTheAge) {
  LifetimeHistory h;
  // Half the files lived 100, half 1,000.
  for (int i = 0; i < 20; i++) h.Add(i % 2 == 0 ? 100 : 1000);
  EXPECT_EQ(h.ExpectedRemaining(0), 550u);
  EXPECT_EQ(h.ExpectedRemaining(60), 490u);
  // Past 100 only the long-lived remain possible.
  EXPECT_EQ(h.ExpectedRemaining(100), 900u);
  EXPECT_EQ(h.ExpectedRemaining(400), 600u);
  // Older than every lifetime recorded: nothing to go by.
  EXPECT_EQ(h.ExpectedRemaining(1000), LifetimeHistory::kUnknown);
}

TEST(LifetimeHistoryTest, KeepsOnlyTheRecentLifetimes) {
  LifetimeHistory h;
  for (size_t i = 0; i < LifetimeHistory::kKept; i++) h.Add(10);
  EXPECT_EQ(h.ExpectedRemaining(0), 10u);
  // A full window of longer lives replaces the old ones.
  for (size_t i = 0; i < LifetimeHistory::kKept; i++) h.Add(500);
  EXPECT_EQ(h.size(), LifetimeHistory::kKept);
  EXPECT_EQ(h.ExpectedRemaining(0), 500u);
  EXPECT_EQ(h.ExpectedRemaining(20), 480u);
}

}  // namespace
}  // namespace hintfs
