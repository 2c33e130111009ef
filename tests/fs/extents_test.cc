// Extent lists: which changes to a file's extents leave a GC copy of one of
// them valid (OnlyAppendedTo).
#include <vector>

#include <gtest/gtest.h>

#include "fs/metadata.h"

namespace hintfs {
namespace {

Extent E(uint32_t zone, uint64_t offset, uint64_t length) {
  Extent e;
  e.device = 0;
  e.zone = zone;
  e.offset = offset;
  e.length = length;
  return e;
}

TEST(ExtentsTest, AppendsLeaveEarlierExtentsInPlace) {
  const std::vector<Extent> before{E(1, 0, 4096), E(2, 0, 8192)};
  EXPECT_TRUE(OnlyAppendedTo(before, before, 0));
  // More extents after the last.
  EXPECT_TRUE(OnlyAppendedTo(before, {E(1, 0, 4096), E(2, 0, 8192), E(3, 0, 4096)}, 0));
  // The last grew in place.
  EXPECT_TRUE(OnlyAppendedTo(before, {E(1, 0, 4096), E(2, 0, 12288)}, 0));
  // ... unless it is the one copied: the copy lacks the new bytes.
  EXPECT_FALSE(OnlyAppendedTo(before, {E(1, 0, 4096), E(2, 0, 12288)}, 1));
}

TEST(ExtentsTest, OtherChangesInvalidateTheCopy) {
  const std::vector<Extent> before{E(1, 0, 4096), E(2, 0, 8192)};
  // An overwrite replaced the first extent.
  EXPECT_FALSE(OnlyAppendedTo(before, {E(5, 0, 4096), E(2, 0, 8192)}, 0));
  // ... or split it, shifting the rest.
  EXPECT_FALSE(OnlyAppendedTo(before, {E(1, 0, 2048), E(5, 0, 2048), E(2, 0, 8192)}, 1));
  // Fewer extents (a migration joined them), or a moved last one.
  EXPECT_FALSE(OnlyAppendedTo(before, {E(7, 0, 12288)}, 0));
  EXPECT_FALSE(OnlyAppendedTo(before, {E(1, 0, 4096), E(6, 0, 8192)}, 0));
  // An extent that shrank or moved within its zone is no append.
  EXPECT_FALSE(OnlyAppendedTo(before, {E(1, 0, 4096), E(2, 0, 4096)}, 0));
  EXPECT_FALSE(OnlyAppendedTo(before, {E(1, 0, 4096), E(2, 4096, 8192)}, 0));
}

}  // namespace
}  // namespace hintfs
