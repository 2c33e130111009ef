// The table size the LSM policies plan with: configured, guessed, learned.
#include "placement/table_size.h"

#include <gtest/gtest.h>

#include "placement/tiering.h"

namespace hintfs {
namespace {

Hint Output(uint64_t bytes, Hint::Kind kind = Hint::Kind::kCompactionOutput) {
  Hint h;
  h.kind = kind;
  h.path = "/db/000042.sst";
  h.bytes = bytes;
  return h;
}

TEST(TableSize, GuessesUntilTablesAreSeenThenTakesTheirMedian) {
  TableSize size(0);
  EXPECT_FALSE(size.configured());
  EXPECT_EQ(size.bytes(), TableSize::kDefaultGuess);
  size.NoteFastZone(8 << 20);  // a guess above a fast zone would plan too few slots
  EXPECT_EQ(size.bytes(), 8u << 20);
  size.NoteFastZone(1ull << 30);
  EXPECT_EQ(size.bytes(), TableSize::kDefaultGuess);
  // LevelDB's 2 MiB outputs, one short last output and one large L0 table.
  for (int i = 0; i < 6; i++) size.Note(Output(2 << 20));
  size.Note(Output(300 << 10));
  size.Note(Output(9 << 20));
  EXPECT_EQ(size.bytes(), 2u << 20);
  EXPECT_EQ(size.tables_seen(), 8u);
  // Other hints and outputs of unknown size teach nothing.
  size.Note(Output(50 << 20, Hint::Kind::kTableFileCreation));
  size.Note(Output(0));
  EXPECT_EQ(size.tables_seen(), 8u);
}

TEST(TableSize, FollowsTheLatestTablesOnly) {
  TableSize size(0);
  for (size_t i = 0; i < TableSize::kWindow; i++) size.Note(Output(2 << 20));
  for (size_t i = 0; i < TableSize::kWindow / 2 + 1; i++) size.Note(Output(64 << 20));
  EXPECT_EQ(size.bytes(), 64u << 20);  // the store's options changed
}

TEST(TableSize, AConfiguredSizeNeverMoves) {
  TableSize size(4 << 20);
  EXPECT_TRUE(size.configured());
  size.NoteFastZone(1 << 20);
  for (int i = 0; i < 10; i++) size.Note(Output(64 << 20));
  EXPECT_EQ(size.bytes(), 4u << 20);
  EXPECT_EQ(size.tables_seen(), 0u);
}

TEST(WalBudget, TwoFastZonesButAtMostAQuarterOfTheTier) {
  constexpr uint64_t kZone = 8 << 20;
  EXPECT_EQ(ResolveWalBudget(kWalBudgetFromDevice, kZone, 32 * kZone), 2 * kZone);
  EXPECT_EQ(ResolveWalBudget(kWalBudgetFromDevice, kZone, 4 * kZone), kZone);
  EXPECT_EQ(ResolveWalBudget(kWalBudgetFromDevice, kZone, 2 * kZone), kZone);  // at least one zone
  EXPECT_EQ(ResolveWalBudget(256ull << 20, kZone, 32 * kZone), 256ull << 20);  // configured
  EXPECT_EQ(FastTierUnusable(32 * kZone, 2 * kZone, kZone), "");
  EXPECT_NE(FastTierUnusable(32 * kZone, 32 * kZone, kZone), "");
  EXPECT_NE(FastTierUnusable(4 * kZone, kZone, 4 * kZone), "");
  EXPECT_EQ(FastTierUnusable(0, kZone, kZone), "");  // no fast tier: nothing to warn about
}

}  // namespace
}  // namespace hintfs
