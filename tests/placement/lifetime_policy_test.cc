// LifetimePolicy: the hint rule's classes, a model once deaths have taught
// one, the remaining life it tells GC (from the lifetimes of files like
// each, given its age), the wrapped policy's tiering seen through, and the
// model kept with the filesystem.
#include "placement/lifetime_policy.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fs/device/emulated_device.h"
#include "placement/policy_registry.h"
#include "placement/tiering.h"
#include "tests/fs/test_util.h"

namespace hintfs {
namespace {

constexpr uint64_t kMiB = 1 << 20;

class LifetimePolicyTest : public ::testing::Test {
 protected:
  std::shared_ptr<LifetimePolicy> Make(LifetimeMode mode) {
    auto p = std::make_shared<LifetimePolicy>("fast-first:lifetime=x", std::make_shared<FastFirstPolicy>(), bus_,
                                              mode);
    DeviceSpace d;
    d.zone_capacity = 16 * kMiB;
    d.total_zones = 40;
    p->OnMount({d});
    return p;
  }
  // A table written at level: its creation hint, then its first zone.
  uint8_t Create(LifetimePolicy* p, const std::string& path, int level, uint64_t clock) {
    Hint h;
    h.kind = Hint::Kind::kTableFileCreation;
    h.path = path;
    h.level = level;
    h.job = ++job_;
    h.reason = level == 0 ? "flush" : "compaction";
    bus_->Publish(h);
    AllocationRequest r;
    r.path = path;
    r.lifetime_hint = level == 0 ? 3 : 2 + level;
    r.write_clock = clock;
    return p->LifetimeClass(r);
  }
  // Tables of level 0 live about 64 MiB of writes, of level 3 about 1 GiB.
  void Teach(LifetimePolicy* p, int tables) {
    for (int i = 0; i < tables; i++, clock_ += kMiB) {
      const int level = i % 2 == 0 ? 0 : 3;
      const std::string path = "/db/" + std::to_string(100000 + i) + ".sst";
      Create(p, path, level, clock_);
      p->OnFileDeleted(path, kMiB, clock_ + (level == 0 ? 64 : 1024) * kMiB + (i % 7) * kMiB / 4);
    }
  }
  std::shared_ptr<HintBus> bus_ = std::make_shared<HintBus>();
  int64_t job_ = 0;
  uint64_t clock_ = 0;
};

TEST_F(LifetimePolicyTest, HintRuleGivesAClassPerWriteLifeTimeHint) {
  auto p = Make(LifetimeMode::kHint);
  EXPECT_EQ(Create(p.get(), "/db/000001.sst", 0, 0), LifetimePolicy::kRuleClassBase + 3);
  EXPECT_EQ(Create(p.get(), "/db/000002.sst", 2, 0), LifetimePolicy::kRuleClassBase + 4);
  EXPECT_EQ(p->RemainingLife("/db/000001.sst", 1), AllocationPolicy::kLifeUnknown);
  Teach(p.get(), 200);  // the rule learns nothing
  EXPECT_EQ(p->RemainingLife("/db/000002.sst", 1), AllocationPolicy::kLifeUnknown);
  EXPECT_FALSE(p->model().trained());
  auto state = nlohmann::json::parse(p->StateJson());
  EXPECT_EQ(state["lifetime"]["mode"], "hint");
  EXPECT_EQ(state["lifetime"]["files_classed"], 202);
  EXPECT_EQ(state["lifetime"]["files_predicted"], 0);
}

TEST_F(LifetimePolicyTest, LearnedModeTellsGcHowLongFilesHaveLeft) {
  auto p = Make(LifetimeMode::kLearned);
  EXPECT_EQ(Create(p.get(), "/db/000001.sst", 0, 0), LifetimePolicy::kRuleClassBase + 3);
  EXPECT_EQ(p->RemainingLife("/db/000001.sst", 56 * kMiB), AllocationPolicy::kLifeUnknown);  // nothing died yet
  Teach(p.get(), 400);
  ASSERT_TRUE(p->TrainNow().ok());
  ASSERT_TRUE(p->model().trained());
  // Zones still follow the rule (the model's classes as zone classes
  // relocated more); the model predicts.
  EXPECT_EQ(Create(p.get(), "/db/200000.sst", 0, clock_), LifetimePolicy::kRuleClassBase + 3);
  EXPECT_EQ(Create(p.get(), "/db/200001.sst", 3, clock_), LifetimePolicy::kRuleClassBase + 5);
  // Files that are not a store's tables or logs get no prediction, and
  // none of their kind has died.
  AllocationRequest other;
  other.path = "/.hintfs-index/abc";
  other.write_clock = clock_;
  EXPECT_EQ(p->LifetimeClass(other), LifetimePolicy::kRuleClassBase);
  EXPECT_EQ(p->RemainingLife("/.hintfs-index/abc", clock_ + 56 * kMiB), AllocationPolicy::kLifeUnknown);
  // Level-0 tables lived 64-65.5 MiB of writes, level-3 ones 1,024-1,025.5:
  // a file's remaining life comes from its rule class's lifetimes.
  auto near = [](uint64_t got, uint64_t want) { return got + kMiB >= want && got <= want + kMiB; };
  EXPECT_PRED2(near, p->RemainingLife("/db/200000.sst", clock_), 65 * kMiB);
  EXPECT_PRED2(near, p->RemainingLife("/db/200000.sst", clock_ + 56 * kMiB), 9 * kMiB);
  EXPECT_PRED2(near, p->RemainingLife("/db/200001.sst", clock_ + 56 * kMiB), 969 * kMiB);
  // Past every lifetime of its kind, nothing is known.
  EXPECT_EQ(p->RemainingLife("/db/200000.sst", clock_ + 512 * kMiB), AllocationPolicy::kLifeUnknown);
  // Deaths it predicted are scored.
  p->OnFileDeleted("/db/200000.sst", kMiB, clock_ + 64 * kMiB);
  auto state = nlohmann::json::parse(p->StateJson())["lifetime"];
  EXPECT_EQ(state["files_predicted"], 2);
  EXPECT_EQ(state["predicted_deaths"], 1);
  EXPECT_EQ(state["accuracy"], 1.0);
  EXPECT_GE(state["trainings"], 1);
}

TEST_F(LifetimePolicyTest, LearnedModeKeepsBlobFilesApartFromTheTablesOfTheirHint) {
  // RocksDB gives a blob file the hint of the tables its job writes.
  auto request = [](const std::string& path, uint64_t clock) {
    AllocationRequest r;
    r.path = path;
    r.lifetime_hint = 3;
    r.write_clock = clock;
    return r;
  };
  auto rule = Make(LifetimeMode::kHint);
  EXPECT_EQ(rule->LifetimeClass(request("/db/000007.blob", 0)), LifetimePolicy::kRuleClassBase + 3);
  EXPECT_EQ(rule->LifetimeClass(request("/db/000008.sst", 0)), LifetimePolicy::kRuleClassBase + 3);

  auto p = Make(LifetimeMode::kLearned);
  EXPECT_EQ(p->LifetimeClass(request("/db/000007.blob", 0)),
            LifetimePolicy::kRuleClassBase + 3 + LifetimePolicy::kBlobClassOffset);
  EXPECT_EQ(p->LifetimeClass(request("/db/000008.sst", 0)), LifetimePolicy::kRuleClassBase + 3);
  // Tables of that hint live 64 MiB of writes, blob files 320 MiB: each
  // kind's remaining life comes from its own deaths.
  for (int i = 0; i < 100; i++, clock_ += kMiB) {
    const std::string table = "/db/" + std::to_string(100000 + 2 * i) + ".sst";
    const std::string blob = "/db/" + std::to_string(100001 + 2 * i) + ".blob";
    p->LifetimeClass(request(table, clock_));
    p->LifetimeClass(request(blob, clock_));
    p->OnFileDeleted(table, kMiB, clock_ + 64 * kMiB);
    p->OnFileDeleted(blob, kMiB, clock_ + 320 * kMiB);
  }
  p->LifetimeClass(request("/db/300000.sst", clock_));
  p->LifetimeClass(request("/db/300001.blob", clock_));
  EXPECT_EQ(p->RemainingLife("/db/300000.sst", clock_ + 16 * kMiB), 48 * kMiB);
  EXPECT_EQ(p->RemainingLife("/db/300001.blob", clock_ + 16 * kMiB), 304 * kMiB);
}

TEST_F(LifetimePolicyTest, RegistryWrapsAnyPolicyAndKeepsItsTiering) {
  std::shared_ptr<AllocationPolicy> p;
  ASSERT_TRUE(NewAllocationPolicy("b3:table_bytes=1MiB,lifetime=learned", bus_, &p).ok());
  EXPECT_EQ(p->name(), "b3:table_bytes=1MiB,lifetime=learned");
  EXPECT_NE(LifetimePolicyOf(p.get()), nullptr);
  EXPECT_NE(TieringOf(p.get()), nullptr);  // b3's tiering, through the wrapper
  ASSERT_TRUE(NewAllocationPolicy("fast-first:lifetime=hint", bus_, &p).ok());
  EXPECT_NE(LifetimePolicyOf(p.get()), nullptr);
  ASSERT_TRUE(NewAllocationPolicy("hhzs:lifetime=off", bus_, &p).ok());
  EXPECT_EQ(LifetimePolicyOf(p.get()), nullptr);
  EXPECT_TRUE(NewAllocationPolicy("fast-first:lifetime=sometimes", bus_, &p).IsInvalidArgument());
  EXPECT_TRUE(NewAllocationPolicy("b3:lifetime=hint,colour=red", bus_, &p).IsInvalidArgument());
}

TEST_F(LifetimePolicyTest, ModelIsKeptWithTheFilesystemAndDamageFallsBackToTheRule) {
  const std::string dev = test::UniqueName("lifetime");
  MkfsOptions mk;
  mk.devices = {{Tier::kFast, "mem:" + dev + "?zone_size=1MiB&zones=12"}};
  ASSERT_OK(Filesystem::Mkfs(mk));
  std::unique_ptr<Filesystem> fs;
  ASSERT_OK(Filesystem::Mount("mem:" + dev, MountOptions(), &fs));
  auto first = Make(LifetimeMode::kLearned);
  first->AttachStore(fs.get());
  Teach(first.get(), 400);
  ASSERT_TRUE(first->TrainNow().ok());
  first->DetachStore();
  ASSERT_OK(fs->Unmount());
  ASSERT_OK(Filesystem::Mount("mem:" + dev, MountOptions(), &fs));
  // A new mount's policy starts from the saved model.
  auto second = Make(LifetimeMode::kLearned);
  second->AttachStore(fs.get());
  ASSERT_TRUE(second->model().trained());
  EXPECT_EQ(second->model().Encode(), first->model().Encode());
  Create(second.get(), "/db/300000.sst", 0, 0);
  EXPECT_EQ(nlohmann::json::parse(second->StateJson())["lifetime"]["files_predicted"], 1);
  second->DetachStore();
  // A damaged part: a warning, the rule's classes, no failure.
  std::string part = fs->Attributes().at("lifetime.model.0");
  part[part.size() / 2] ^= 1;
  ASSERT_OK(fs->SetAttribute("lifetime.model.0", part));
  auto third = Make(LifetimeMode::kLearned);
  third->AttachStore(fs.get());
  EXPECT_FALSE(third->model().trained());
  Create(third.get(), "/db/300001.sst", 0, 0);
  EXPECT_EQ(nlohmann::json::parse(third->StateJson())["lifetime"]["files_predicted"], 0);
  EXPECT_NE(nlohmann::json::parse(third->StateJson())["lifetime"]["warning"], nullptr);
  third->DetachStore();
  ASSERT_OK(fs->Unmount());
}

}  // namespace
}  // namespace hintfs
