#include "placement/lifetime_model.h"

#include <cmath>
#include <random>

#include <gtest/gtest.h>

namespace hintfs {
namespace {

// Lifetimes that a level decides, as in an LSM tree: level L lives about
// 8^L MiB, with some spread; other features are noise.
std::vector<LifetimeSample> LevelSamples(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> level(0, 3);
  std::uniform_real_distribution<double> spread(0.7, 1.4), noise(0, 100);
  std::vector<LifetimeSample> out;
  for (size_t i = 0; i < n; i++) {
    LifetimeSample s;
    s.features.fill(NAN);
    const int l = level(rng);
    s.features[1] = static_cast<float>(l);
    s.features[5] = static_cast<float>(noise(rng));
    s.lifetime = static_cast<uint64_t>(std::pow(8.0, l) * spread(rng) * (1 << 20));
    out.push_back(s);
  }
  return out;
}

TEST(LifetimeModelTest, LearnsWhatDecidesLifetimes) {
  LifetimeModel m;
  EXPECT_FALSE(m.trained());
  ASSERT_TRUE(LifetimeModel::Train(LevelSamples(2000, 1), &m).ok());
  ASSERT_TRUE(m.trained());
  // The split points fall between the levels' lifetimes, one class each.
  for (int l = 0; l < 4; l++) {
    EXPECT_EQ(m.ClassOf(static_cast<uint64_t>(std::pow(8.0, l) * (1 << 20))), l) << "level " << l;
  }
  size_t right = 0;
  const auto test = LevelSamples(500, 2);
  for (const LifetimeSample& s : test) right += m.Predict(s.features) == m.ClassOf(s.lifetime);
  EXPECT_GE(right, 480u);
  // A missing feature takes the trees' default branches, never crashes.
  LifetimeFeatures unknown;
  unknown.fill(NAN);
  const int c = m.Predict(unknown);
  EXPECT_TRUE(c >= 0 && c < LifetimeModel::kClasses);
}

TEST(LifetimeModelTest, RefusesTooLittleOrUniformData) {
  LifetimeModel m;
  EXPECT_TRUE(LifetimeModel::Train(LevelSamples(LifetimeModel::kMinSamples - 1, 3), &m).IsInvalidArgument());
  auto same = LevelSamples(200, 4);
  for (auto& s : same) s.lifetime = 1000;
  EXPECT_TRUE(LifetimeModel::Train(same, &m).IsInvalidArgument());
  EXPECT_FALSE(m.trained());
}

TEST(LifetimeModelTest, LiveFilesCountOnlyOnceTheyOutliveTheLastSplit) {
  auto samples = LevelSamples(400, 5);
  LifetimeModel dead_only;
  ASSERT_TRUE(LifetimeModel::Train(samples, &dead_only).ok());
  // Young live files (their lifetimes so far are lower bounds): left out,
  // and live files never move the split points.
  for (int i = 0; i < 400; i++) {
    LifetimeSample s;
    s.features.fill(NAN);
    s.features[1] = 9;
    s.lifetime = 1;
    s.alive = true;
    samples.push_back(s);
  }
  LifetimeModel young;
  ASSERT_TRUE(LifetimeModel::Train(samples, &young).ok());
  LifetimeFeatures nine;
  nine.fill(NAN);
  nine[1] = 9;
  // Old ones are the longest class.
  for (int i = 400; i < 800; i++) samples[i].lifetime = uint64_t{1} << 40;
  LifetimeModel old;
  ASSERT_TRUE(LifetimeModel::Train(samples, &old).ok());
  EXPECT_EQ(old.Predict(nine), LifetimeModel::kClasses - 1);
  for (int i = 0; i < LifetimeModel::kClasses - 1; i++) {
    EXPECT_EQ(young.SplitPoint(i), dead_only.SplitPoint(i));
    EXPECT_EQ(old.SplitPoint(i), dead_only.SplitPoint(i));
  }
  EXPECT_EQ(young.TypicalLifetime(LifetimeModel::kClasses - 1), dead_only.TypicalLifetime(LifetimeModel::kClasses - 1));
}

TEST(LifetimeModelTest, EncodesAndRefusesDamage) {
  LifetimeModel m;
  ASSERT_TRUE(LifetimeModel::Train(LevelSamples(1000, 7), &m).ok());
  const std::string bytes = m.Encode();
  LifetimeModel back;
  ASSERT_TRUE(LifetimeModel::Decode(bytes, &back).ok());
  EXPECT_EQ(back.trees(), m.trees());
  for (int i = 0; i < LifetimeModel::kClasses - 1; i++) EXPECT_EQ(back.SplitPoint(i), m.SplitPoint(i));
  for (const LifetimeSample& s : LevelSamples(200, 8)) EXPECT_EQ(back.Predict(s.features), m.Predict(s.features));
  // Any flipped byte, a cut, or other bytes: Corruption, never a model.
  for (size_t i = 0; i < bytes.size(); i += 7) {
    std::string bad = bytes;
    bad[i] ^= 0x10;
    EXPECT_TRUE(LifetimeModel::Decode(bad, &back).IsCorruption()) << "byte " << i;
  }
  EXPECT_TRUE(LifetimeModel::Decode(bytes.substr(0, bytes.size() - 3), &back).IsCorruption());
  EXPECT_TRUE(LifetimeModel::Decode("", &back).IsCorruption());
  EXPECT_TRUE(LifetimeModel::Decode(std::string(64, 'x'), &back).IsCorruption());
}

}  // namespace
}  // namespace hintfs
