// Crash safety of overwrites: random writes over a file (flushed after each,
// synced now and then) stop when the power is cut or the process is killed
// after the Nth device write; after a remount every 4 KiB block of the file
// holds one of the versions it went through, never a mix, and none older
// than the last sync (power cut) or the last flush (kill) made durable.
#include <gtest/gtest.h>

#include <random>
#include <tuple>

#include "tests/fs/crash_fixture.h"

namespace hintfs {
namespace {

constexpr size_t kBlock = 4096;
constexpr size_t kBlocks = 40;

class OverwriteCrashTest : public test::CrashFixture,
                           public ::testing::WithParamInterface<std::tuple<bool, bool>> {
 protected:
  // history[b]: the contents block b went through; durable[b]: the index of
  // the oldest one a crash may leave.
  std::vector<std::vector<std::string>> history_;
  std::vector<size_t> durable_;

  void WriteInitialFile() {
    std::mt19937_64 rng(1);
    std::string initial = Random(&rng, kBlock * kBlocks);
    WriteFile("/o", initial);
    history_.assign(kBlocks, {});
    durable_.assign(kBlocks, 0);
    for (size_t b = 0; b < kBlocks; b++) history_[b].push_back(initial.substr(b * kBlock, kBlock));
  }

  void MarkDurable() {
    for (size_t b = 0; b < kBlocks; b++) durable_[b] = history_[b].size() - 1;
  }

  // Runs until the first error (the crash), which it returns.
  Status Workload(uint64_t seed, bool kill) {
    std::mt19937_64 rng(seed);
    std::string file;
    for (const auto& h : history_) file += h.back();
    std::unique_ptr<FileWriter> w;
    Status s = fs_->OpenWriter("/o", WriteMode::kAppend, &w);
    std::unique_ptr<FileWriter> other;  // appends in between share the zones
    if (s.ok()) s = fs_->OpenWriter("/other", WriteMode::kTruncate, &other);
    for (int step = 0; s.ok() && step < 300; step++) {
      size_t n = 1 + rng() % (rng() % 3 == 0 ? 3 * kBlock : 300);
      size_t offset = rng() % (file.size() - n);
      std::string data = Random(&rng, n);
      s = w->WriteAt(offset, data);
      if (!s.ok()) break;
      file.replace(offset, n, data);
      for (size_t b = offset / kBlock; b <= (offset + n - 1) / kBlock; b++) {
        history_[b].push_back(file.substr(b * kBlock, kBlock));
      }
      s = w->Flush();
      if (s.ok() && kill) MarkDurable();
      if (s.ok() && step % 3 == 0) s = other->Append(Random(&rng, 3000));
      if (s.ok() && step % 7 == 6) {
        s = w->Sync();
        if (s.ok()) MarkDurable();
      }
    }
    return s;
  }

  void Verify(const std::string& context) {
    std::string got = ReadFile("/o");
    ASSERT_EQ(got.size(), kBlock * kBlocks) << context;
    for (size_t b = 0; b < kBlocks; b++) {
      std::string block = got.substr(b * kBlock, kBlock);
      bool found = false;
      for (size_t v = durable_[b]; v < history_[b].size() && !found; v++) found = history_[b][v] == block;
      ASSERT_TRUE(found) << context << ": block " << b << " is none of its versions since "
                         << durable_[b] << " (of " << history_[b].size() << ")";
    }
  }
};

TEST_P(OverwriteCrashTest, EveryBlockIsOneOfItsVersions) {
  const bool kill = std::get<0>(GetParam());
  host_log_ = std::get<1>(GetParam());
  const uint64_t seed = 20261124;
  std::string domain = test::UniqueName("count");
  Format(Geometry());
  WriteInitialFile();
  Mount(Options(domain, 0));
  ASSERT_OK(Workload(seed, kill));
  uint64_t total_writes = PowerDomain(domain, FaultPlan())->writes();
  EXPECT_GT(fs_->Stats().zone_resets, 0u) << "the workload must reclaim overwritten blocks";
  fs_.reset();
  ResetPowerDomain(domain);

  std::vector<uint64_t> points;
  std::mt19937_64 rng(seed);
  for (uint64_t k = 1; k <= total_writes; k++) {
    if (total_writes <= 400 || rng() % total_writes < 400) points.push_back(k);
  }
  int crashed = 0;
  for (uint64_t k : points) {
    std::string context = std::string(kill ? "killed" : "power cut") + " after write " + std::to_string(k);
    domain = test::UniqueName("cut");
    Format(Geometry());
    WriteInitialFile();
    Mount(Options(domain, k, kill));
    crashed += !Workload(seed, kill).ok();
    fs_.reset();
    ResetPowerDomain(domain);
    Mount();
    Verify(context);
    ExpectClean();
    if (HasFailure()) {
      ADD_FAILURE() << context;
      break;
    }
  }
  EXPECT_GE(crashed, static_cast<int>(points.size() * 9 / 10));
  EXPECT_GE(points.size(), 300u);
}

INSTANTIATE_TEST_SUITE_P(Modes, OverwriteCrashTest, ::testing::Combine(::testing::Bool(), ::testing::Bool()),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param) ? "Kill" : "PowerCut") +
                                  (std::get<1>(info.param) ? "HostLog" : "DeviceBatches");
                         });

}  // namespace
}  // namespace hintfs
