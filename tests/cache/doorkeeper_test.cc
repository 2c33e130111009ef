#include "cache/doorkeeper.h"

#include <gtest/gtest.h>

namespace hintfs {
namespace {

TEST(DoorkeeperTest, AKeyIsSeenOnItsSecondMissOnly) {
  Doorkeeper d(1000);
  EXPECT_FALSE(d.SeenOrRemember(42));
  EXPECT_TRUE(d.SeenOrRemember(42));
  EXPECT_TRUE(d.SeenOrRemember(42));
}

TEST(DoorkeeperTest, KeysAreRememberedForAGenerationAndForgottenAfterTwo) {
  const size_t keys = 1000;
  Doorkeeper d(keys);
  EXPECT_FALSE(d.SeenOrRemember(7));
  // A generation of other keys later 7 is still there (in the older one)...
  for (uint64_t k = 1000; k < 1000 + keys; k++) d.SeenOrRemember(k);
  EXPECT_TRUE(d.SeenOrRemember(7));
  // ...and two more generations later it is gone.
  for (uint64_t k = 100000; k < 100000 + 2 * keys + 1; k++) d.SeenOrRemember(k);
  EXPECT_FALSE(d.SeenOrRemember(7));
}

TEST(DoorkeeperTest, FewNewKeysAreTakenForRememberedOnes) {
  const size_t keys = 4096;
  Doorkeeper d(keys);
  for (uint64_t k = 0; k < keys - 1; k++) d.SeenOrRemember(k * 2654435761u);
  size_t false_hits = 0;
  for (uint64_t k = 1; k <= 1000; k++) false_hits += d.SeenOrRemember((1ull << 40) + k) ? 1 : 0;
  EXPECT_LT(false_hits, 100u) << "a full generation answered seen for new keys too often";
}

TEST(DoorkeeperTest, AResizeTakesEffectAtTheNextGeneration) {
  Doorkeeper d(10);
  d.SetKeys(1000);
  EXPECT_EQ(d.keys(), 10u);
  for (uint64_t k = 0; k < 11; k++) d.SeenOrRemember(k + 1);
  EXPECT_EQ(d.keys(), 1000u);
  // The resize dropped the old bits; keys seen since are remembered.
  EXPECT_TRUE(d.SeenOrRemember(11));
  EXPECT_FALSE(d.SeenOrRemember(1));
}

}  // namespace
}  // namespace hintfs
