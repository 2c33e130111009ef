// Mount specs through the registry: a key neither the device nor the mount
// knows is refused with both lists, so the user sees every key there is.
#include "adapters/common/mount_registry.h"

#include <gtest/gtest.h>

#include "tests/fs/test_util.h"

namespace hintfs {
namespace {

TEST(MountRegistry, AnUnknownKeyIsRefusedWithTheDevicesAndTheMountsKeys) {
  std::shared_ptr<Filesystem> fs;
  Status s = AcquireMount("mem:" + test::UniqueName("keys") + "?polcy=hhzs", &fs);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(fs, nullptr);
  const std::string& m = s.message();
  EXPECT_NE(m.find("'polcy'"), std::string::npos) << m;
  EXPECT_NE(m.find("zone_size"), std::string::npos) << "the device's keys: " << m;
  for (const char* key : {"policy", "trace", "cache", "cache_budget", "blocks", "metrics", "migration_rate", "cache_keep"}) {
    EXPECT_NE(m.find(std::string(" ") + key + ","), std::string::npos) << key << " missing from: " << m;
  }
  EXPECT_NE(m.find("block_retention"), std::string::npos) << m;
}

}  // namespace
}  // namespace hintfs
