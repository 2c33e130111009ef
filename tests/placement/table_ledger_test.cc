// TableLedger counts tables in slots: whole until their size is known, then
// a table under half a slot its share of one, rounded up over the level.
#include "placement/table_ledger.h"

#include <gtest/gtest.h>

namespace hintfs {
namespace {

constexpr uint64_t kSlot = 2 << 20;

TEST(TableLedgerTest, ATableTakesAWholeSlotUntilItsSizeIsKnown) {
  TableLedger ledger;
  ledger.SetSlotBytes(kSlot);
  ledger.Expect("/db/1.ldb", 1);
  EXPECT_EQ(ledger.allocated(1), 0) << "counted only once its first zone lands";
  ASSERT_TRUE(ledger.Landed("/db/1.ldb", Tier::kFast));
  EXPECT_EQ(ledger.allocated(1), 1);
  EXPECT_EQ(ledger.fast(1), 1);
  ledger.Sized("/db/1.ldb", kSlot + 4096);  // a little past the target: still one slot
  EXPECT_EQ(ledger.fast(1), 1);
  ledger.Sized("/db/1.ldb", kSlot / 2);  // half a slot keeps its zone: still one
  EXPECT_EQ(ledger.fast(1), 1);
  EXPECT_EQ(ledger.fast_tables(), 1);
}

TEST(TableLedgerTest, ShortTablesCountTheirShareOfASlot) {
  TableLedger ledger;
  ledger.SetSlotBytes(kSlot);
  for (int i = 0; i < 4; i++) {
    const std::string path = "/db/" + std::to_string(i) + ".ldb";
    ledger.Expect(path, 1);
    ledger.Sized(path, kSlot / 4);  // known before it lands, as a quick flush's is
    ASSERT_TRUE(ledger.Landed(path, Tier::kFast));
  }
  EXPECT_EQ(ledger.allocated(1), 1) << "four quarter tables take one slot";
  EXPECT_EQ(ledger.fast(1), 1);
  EXPECT_EQ(ledger.fast_total(), 1);
  EXPECT_EQ(ledger.fast_tables(), 4);
  EXPECT_EQ(ledger.FastAmong(1, {"/db/0.ldb", "/db/1.ldb"}), 1);
  ledger.Found("/db/9.ldb", 1, Tier::kFast, 1);  // a tiny table still counts a part
  EXPECT_EQ(ledger.fast(1), 2);
  ledger.Deleted("/db/9.ldb");
  ledger.Moved("/db/0.ldb", Tier::kSlow);
  EXPECT_EQ(ledger.fast(1), 1);
  EXPECT_EQ(ledger.allocated(1), 1);
  EXPECT_EQ(ledger.fast_tables(), 3);
  ledger.Relevel("/db/1.ldb", 2);
  EXPECT_EQ(ledger.fast(2), 1);
  EXPECT_EQ(ledger.fast(1), 1);
}

TEST(TableLedgerTest, ANewSlotSizeRecountsEveryTable) {
  TableLedger ledger;  // no slot size yet: every table is whole
  ledger.Found("/db/1.ldb", 2, Tier::kSlow, kSlot / 4);
  ledger.Found("/db/2.ldb", 2, Tier::kSlow, kSlot / 4);
  EXPECT_EQ(ledger.allocated(2), 2);
  ledger.SetSlotBytes(kSlot);
  EXPECT_EQ(ledger.allocated(2), 1);
  ledger.SetSlotBytes(kSlot / 2);
  EXPECT_EQ(ledger.allocated(2), 2);
  ledger.Deleted("/db/1.ldb");
  ledger.Deleted("/db/2.ldb");
  EXPECT_EQ(ledger.allocated(2), 0);
}

}  // namespace
}  // namespace hintfs
