// The mount services start migration for any policy that tiers, as its
// options or the spec say, and the cache under any policy that asks for it.
#include "adapters/common/mount_services.h"

#include <gtest/gtest.h>

#include "fs/device/emulated_device.h"
#include "placement/policy_registry.h"
#include "tests/fs/test_util.h"

namespace hintfs {
namespace {

class MountServicesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fast_ = test::UniqueName("svcfast");
    slow_ = test::UniqueName("svcslow");
    MkfsOptions mk;
    mk.devices = {{Tier::kFast, "mem:" + fast_ + "?zone_size=1MiB&zones=16"},
                  {Tier::kSlow, "mem:" + slow_ + "?zone_size=1MiB&zones=16"}};
    ASSERT_OK(Filesystem::Mkfs(mk));
  }
  void TearDown() override {
    services_.reset();
    fs_.reset();
    DestroyMemDevice(fast_);
    DestroyMemDevice(slow_);
  }

  // Mounts under policy and starts the services the spec's query asks for.
  Status Start(const std::string& policy, const std::string& query) {
    services_.reset();
    fs_.reset();
    std::shared_ptr<AllocationPolicy> p;
    Status s = NewAllocationPolicy(policy, bus_, &p);
    if (!s.ok()) return s;
    MountOptions mo;
    mo.policy = p;
    std::unique_ptr<Filesystem> fs;
    s = Filesystem::Mount("mem:" + fast_, mo, &fs);
    if (!s.ok()) return s;
    fs_ = std::move(fs);
    DeviceUri uri;
    s = DeviceUri::Parse("mem:" + fast_ + (query.empty() ? "" : "?" + query), &uri);
    ServiceOverrides o;
    if (s.ok()) s = TakeServiceOverrides(&uri, &o);
    if (s.ok()) s = MountServices::Start(fs_, bus_, p, o, &services_);
    return s;
  }

  std::string fast_, slow_;
  std::shared_ptr<HintBus> bus_ = std::make_shared<HintBus>();
  std::shared_ptr<Filesystem> fs_;
  std::unique_ptr<MountServices> services_;
};

TEST_F(MountServicesTest, MigrationRunsForAnyPolicyThatTiers) {
  ASSERT_OK(Start("b3:migration=on", ""));
  EXPECT_NE(services_->migrator(), nullptr);
  EXPECT_EQ(services_->caching(), nullptr);
  ASSERT_OK(Start("b3", ""));
  EXPECT_EQ(services_->migrator(), nullptr);
  ASSERT_OK(Start("b3", "migration=on"));
  EXPECT_NE(services_->migrator(), nullptr);
  ASSERT_OK(Start("hhzs:table_bytes=1MiB,wal_budget=2MiB", ""));
  EXPECT_NE(services_->migrator(), nullptr);
  EXPECT_NE(services_->caching(), nullptr);
  ASSERT_OK(Start("hhzs:table_bytes=1MiB,wal_budget=2MiB,migration=off,cache=off", ""));
  EXPECT_EQ(services_->migrator(), nullptr);
  EXPECT_EQ(services_->caching(), nullptr);
  // fast-first places no tables by level: nothing to plan against.
  ASSERT_OK(Start("fast-first", "migration=on"));
  EXPECT_EQ(services_->migrator(), nullptr);
}

TEST_F(MountServicesTest, TheCacheRunsUnderAnyPolicyThatAsks) {
  ASSERT_OK(Start("b2:cache=all,cache_budget=2MiB", ""));
  ASSERT_NE(services_->caching(), nullptr);
  EXPECT_EQ(services_->filesystem().get(), services_->caching());
  ASSERT_OK(Start("fast-first", "cache=cbf&cache_budget=2MiB"));
  EXPECT_NE(services_->caching(), nullptr);
  EXPECT_TRUE(Start("b2", "migration=maybe").IsInvalidArgument());
}

TEST_F(MountServicesTest, TheCacheIsKeptAcrossUnmountsUnlessTheSpecSaysNot) {
  ASSERT_OK(Start("b2:cache=all,cache_budget=2MiB", ""));
  ASSERT_NE(services_->caching(), nullptr);
  EXPECT_NE(services_->caching()->cache()->options().keys, nullptr);
  ASSERT_OK(Start("b2:cache=all,cache_budget=2MiB", "cache_keep=off"));
  ASSERT_NE(services_->caching(), nullptr);
  EXPECT_EQ(services_->caching()->cache()->options().keys, nullptr);
  EXPECT_TRUE(Start("b2:cache=all", "cache_keep=maybe").IsInvalidArgument());
}

}  // namespace
}  // namespace hintfs
