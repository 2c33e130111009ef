// RecentBlocks: what is served is exactly what was stored, only when every
// block of the range is held, and nothing of a reset zone.
#include "fs/recent_blocks.h"

#include <gtest/gtest.h>

#include <string>

namespace hintfs {
namespace {

constexpr uint32_t kBlock = 4096;

std::string Pattern(size_t n, char seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; i++) s[i] = static_cast<char>(seed + i * 7);
  return s;
}

TEST(RecentBlocksTest, ServesAnyRangeOfHeldBlocks) {
  RecentBlocks recent(1 << 20);
  std::string data = Pattern(3 * kBlock, 'a');
  recent.Put(1, 8 * kBlock, data.data(), data.size(), kBlock, /*written=*/false);
  std::string got(5000, 'x');
  ASSERT_TRUE(recent.Get(1, 8 * kBlock + 100, got.size(), kBlock, &got[0]));
  EXPECT_EQ(got, data.substr(100, 5000));
  std::string whole(data.size(), 'x');
  ASSERT_TRUE(recent.Get(1, 8 * kBlock, whole.size(), kBlock, &whole[0]));
  EXPECT_EQ(whole, data);
  EXPECT_EQ(recent.stats().hits, 2u);
}

// Devices of 512-byte blocks (a drive's 512-byte LBA format) fill the whole
// capacity: 4 KiB slots would hold one small block each, an eighth of it.
TEST(RecentBlocksTest, SmallBlocksUseTheWholeCapacity) {
  constexpr uint32_t kSmall = 512;
  RecentBlocks recent(64 * kSmall, kSmall);
  std::string data = Pattern(64 * kSmall, 'c');
  recent.Put(2, 1000 * kSmall, data.data(), data.size(), kSmall, /*written=*/false);
  EXPECT_EQ(recent.stats().held_bytes, data.size());
  std::string got(data.size(), 'x');
  ASSERT_TRUE(recent.Get(2, 1000 * kSmall, got.size(), kSmall, &got[0]));
  EXPECT_EQ(got, data);
}

TEST(RecentBlocksTest, MissesLeaveTheBufferAlone) {
  RecentBlocks recent(1 << 20);
  std::string data = Pattern(2 * kBlock, 'b');
  recent.Put(0, 0, data.data(), data.size(), kBlock, /*written=*/false);
  std::string got(3 * kBlock, 'x');
  EXPECT_FALSE(recent.Get(0, 0, got.size(), kBlock, &got[0])) << "the third block is not held";
  EXPECT_EQ(got, std::string(3 * kBlock, 'x'));
  EXPECT_FALSE(recent.Get(1, 0, kBlock, kBlock, &got[0])) << "another device";
  EXPECT_EQ(recent.stats().misses, 2u);
}

TEST(RecentBlocksTest, ANewBlockTakesItsSlotAndNothingIsHeldPastTheCapacity) {
  RecentBlocks recent(4 * kBlock);  // four slots
  for (uint64_t b = 0; b < 6; b++) {
    std::string block = Pattern(kBlock, static_cast<char>('c' + b));
    recent.Put(0, b * kBlock, block.data(), block.size(), kBlock, /*written=*/false);
  }
  EXPECT_EQ(recent.stats().held_bytes, 4u * kBlock);
  // Consecutive blocks take consecutive slots: blocks 4 and 5 took the
  // slots of blocks 0 and 1.
  std::string got(kBlock, 'x');
  EXPECT_FALSE(recent.Get(0, 0, kBlock, kBlock, &got[0]));
  EXPECT_FALSE(recent.Get(0, kBlock, kBlock, kBlock, &got[0]));
  for (uint64_t b = 2; b < 6; b++) {
    ASSERT_TRUE(recent.Get(0, b * kBlock, kBlock, kBlock, &got[0])) << b;
    EXPECT_EQ(got, Pattern(kBlock, static_cast<char>('c' + b)));
  }
  // Storing a held block again (read once more) changes nothing: a zoned
  // block changes only when its zone is reset, which forgets it
  // (AResetZoneIsForgotten).
  const std::string again = Pattern(kBlock, 'c' + 2);
  recent.Put(0, 2 * kBlock, again.data(), again.size(), kBlock, /*written=*/false);
  EXPECT_EQ(recent.stats().held_bytes, 4u * kBlock);
  // Four consecutive blocks anywhere fit together.
  std::string run = Pattern(4 * kBlock, 'r');
  recent.Put(0, 101 * kBlock, run.data(), run.size(), kBlock, /*written=*/false);
  std::string whole(run.size(), 'x');
  ASSERT_TRUE(recent.Get(0, 101 * kBlock, whole.size(), kBlock, &whole[0]));
  EXPECT_EQ(whole, run);
  EXPECT_EQ(recent.stats().held_bytes, 4u * kBlock);
  // Blocks larger than a slot are held while they fit in the capacity.
  std::string big = Pattern(3 * kBlock, 'g');
  recent.Put(1, 0, big.data(), big.size(), 3 * kBlock, /*written=*/false);
  EXPECT_LE(recent.stats().held_bytes, 4u * kBlock);
  // A device whose block size changes forgets what the old size placed.
  std::string small = Pattern(512, 's');
  recent.Put(0, 101 * kBlock, small.data(), small.size(), 512, /*written=*/false);
  EXPECT_FALSE(recent.Get(0, 102 * kBlock, kBlock, kBlock, &got[0]));
  ASSERT_TRUE(recent.Get(0, 101 * kBlock, 512, 512, &got[0]));
  EXPECT_EQ(got.substr(0, 512), small);

  RecentBlocks none(0);
  none.Put(0, 0, again.data(), again.size(), kBlock, /*written=*/true);
  EXPECT_FALSE(none.GetWritten(0, 0, kBlock, kBlock, &got[0]));
  EXPECT_FALSE(none.Get(0, 0, kBlock, kBlock, &got[0]));
  EXPECT_EQ(none.stats().held_bytes, 0u);
}

TEST(RecentBlocksTest, AResetZoneIsForgotten) {
  RecentBlocks recent(1 << 20);
  std::string data = Pattern(4 * kBlock, 'd');
  recent.Put(0, 0, data.data(), data.size(), kBlock, /*written=*/false);
  recent.Put(1, 0, data.data(), data.size(), kBlock, /*written=*/false);
  recent.Forget(0, kBlock, 3 * kBlock);
  std::string got(kBlock, 'x');
  EXPECT_TRUE(recent.Get(0, 0, kBlock, kBlock, &got[0]));
  EXPECT_FALSE(recent.Get(0, kBlock, kBlock, kBlock, &got[0]));
  EXPECT_FALSE(recent.Get(0, 2 * kBlock, kBlock, kBlock, &got[0]));
  EXPECT_TRUE(recent.Get(0, 3 * kBlock, kBlock, kBlock, &got[0]));
  EXPECT_TRUE(recent.Get(1, kBlock, kBlock, kBlock, &got[0])) << "another device keeps its blocks";
  EXPECT_EQ(recent.stats().held_bytes, 6u * kBlock);
  // A zone far larger than what is held (a 1 GiB zone of a real drive):
  // the held blocks are walked instead of the range.
  recent.Forget(1, 0, 1ull << 30);
  EXPECT_FALSE(recent.Get(1, kBlock, kBlock, kBlock, &got[0]));
  EXPECT_TRUE(recent.Get(0, 3 * kBlock, kBlock, kBlock, &got[0])) << "device 0 keeps its blocks";
  EXPECT_EQ(recent.stats().held_bytes, 2u * kBlock);
  // A device of 512-byte blocks is walked in its own blocks.
  std::string small = Pattern(1024, 's');
  recent.Put(2, 1536, small.data(), small.size(), 512, /*written=*/false);
  recent.Forget(2, 0, 2048);
  EXPECT_FALSE(recent.Get(2, 1536, 512, 512, &got[0]));
  EXPECT_TRUE(recent.Get(2, 2048, 512, 512, &got[0])) << "past the range";
  recent.Forget(3, 0, 1 << 20);  // a device nothing was kept of
  EXPECT_EQ(recent.stats().held_bytes, 2u * kBlock + 512);
}

// The store's reads are served only from blocks written within the window,
// never from blocks only read (those are the store's own cache's business);
// a block written and then read again stays one the store may read.
TEST(RecentBlocksTest, StoreReadsAreServedOnlyFromBlocksJustWritten) {
  RecentBlocks recent(1 << 20, kBlock, /*reread_window_bytes=*/4 * kBlock);
  std::string read = Pattern(2 * kBlock, 'r');
  std::string written = Pattern(2 * kBlock, 'w');
  recent.Put(0, 0, read.data(), read.size(), kBlock, /*written=*/false);
  recent.Put(0, 2 * kBlock, written.data(), written.size(), kBlock, /*written=*/true);
  std::string got(2 * kBlock, 'x');
  EXPECT_FALSE(recent.GetWritten(0, 100, 50, kBlock, &got[0])) << "a block only read";
  EXPECT_EQ(got, std::string(2 * kBlock, 'x'));
  EXPECT_FALSE(recent.GetWritten(0, kBlock, 2 * kBlock, kBlock, &got[0])) << "half read, half written";
  ASSERT_TRUE(recent.GetWritten(0, 2 * kBlock + 10, 5000, kBlock, &got[0]));
  EXPECT_EQ(got.substr(0, 5000), written.substr(10, 5000));
  recent.Put(0, 2 * kBlock, written.data(), kBlock, kBlock, /*written=*/false);  // read back by a copy
  EXPECT_TRUE(recent.GetWritten(0, 2 * kBlock, kBlock, kBlock, &got[0]));
  EXPECT_TRUE(recent.Get(0, 0, kBlock, kBlock, &got[0])) << "copies take blocks read too";
  RecentBlocksStats st = recent.stats();
  EXPECT_EQ(st.written_hits, 2u);
  EXPECT_EQ(st.written_bytes, 5000u + kBlock);
  EXPECT_EQ(st.hits, 1u) << "store reads are not counted as copies";

  // Four blocks written since: out of the window, though still held.
  std::string later = Pattern(4 * kBlock, 'l');
  recent.Put(1, 0, later.data(), later.size(), kBlock, /*written=*/true);
  EXPECT_FALSE(recent.GetWritten(0, 2 * kBlock, kBlock, kBlock, &got[0])) << "written too long ago";
  EXPECT_TRUE(recent.Get(0, 2 * kBlock, kBlock, kBlock, &got[0])) << "copies may take it";
  EXPECT_TRUE(recent.GetWritten(1, 3 * kBlock, kBlock, kBlock, &got[0]));
  recent.Forget(1, 0, 4 * kBlock);
  EXPECT_FALSE(recent.GetWritten(1, 3 * kBlock, kBlock, kBlock, &got[0])) << "its zone was reset";

  RecentBlocks no_window(1 << 20);
  no_window.Put(0, 0, written.data(), written.size(), kBlock, /*written=*/true);
  EXPECT_FALSE(no_window.GetWritten(0, 0, kBlock, kBlock, &got[0]));
}

}  // namespace
}  // namespace hintfs
