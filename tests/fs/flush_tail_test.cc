// Flushes of a file keep its whole blocks in the journaled tail (up to
// kMaxTailBytes, all such tails within an eighth of a metadata zone), so that
// a device sees a few large writes instead of one per flushed block (a seek
// each on a disk, a command's latency each on an SSD); the bytes survive a
// kill all the same, and a sync still puts them on the device. Most cases
// run on the slow tier, where the writes cost most.
#include <gtest/gtest.h>

#include <random>

#include "fs/device/fault_injection.h"
#include "fs/metadata.h"
#include "tests/fs/crash_fixture.h"

namespace hintfs {
namespace {

class FlushTailTest : public test::CrashFixture {
 protected:
  void SetUp() override {
    CrashFixture::SetUp();
    test::FsGeometry g;
    g.fast = "zone_size=1MiB&zones=8";  // metadata zones of 1 MiB: tails may keep 128 KiB
    g.slow = "zone_size=1MiB&zones=16";
    Format(g);
    domain_ = test::UniqueName("slowflush");
    MountWith(std::make_shared<test::SlowOnlyPolicy>());
  }
  void MountWith(std::shared_ptr<AllocationPolicy> policy) {
    fs_.reset();
    options_ = Options(domain_, 0);
    options_.write_buffer_bytes = 1 << 20;
    options_.policy = policy;
    Mount(options_);
  }
  void KillAndRemount() {
    PowerDomain(domain_, FaultPlan())->Kill();
    fs_.reset();
    ResetPowerDomain(domain_);
    Mount(options_);
  }
  uint64_t BytesOnDevices(const std::string& path) {
    FileStat st;
    EXPECT_OK(fs_->Stat(path, &st));
    uint64_t bytes = 0;
    for (const Extent& e : st.extents) bytes += e.length;
    return bytes;
  }
  // Appends data in records of rec bytes, flushing after each.
  void AppendFlushed(FileWriter* w, const std::string& data, size_t rec) {
    for (size_t off = 0; off < data.size(); off += rec) {
      ASSERT_OK(w->Append(data.substr(off, rec)));
      ASSERT_OK(w->Flush());
    }
  }
  std::string domain_;
  MountOptions options_;
  std::mt19937_64 rng_{11};
};

TEST_F(FlushTailTest, FlushedBlocksReachTheSlowDeviceInLargePieces) {
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/000007.ldb", WriteMode::kTruncate, &w));
  const std::string data = Random(&rng_, 300 << 10);
  // The first flush writes its block: the file has no zone, so no tier, before.
  AppendFlushed(w.get(), data.substr(0, 4096), 4096);
  EXPECT_EQ(BytesOnDevices("/000007.ldb"), 4096u);
  // Fifteen more flushed blocks stay in the tail ...
  AppendFlushed(w.get(), data.substr(4096, 15 * 4096), 4096);
  EXPECT_EQ(BytesOnDevices("/000007.ldb"), 4096u);
  EXPECT_EQ(fs_->Stats().flushes_kept_in_tail, 15u);
  // ... until the tail would pass kMaxTailBytes: then they go out together.
  AppendFlushed(w.get(), data.substr(16 * 4096), 4096);
  const uint64_t on_devices = BytesOnDevices("/000007.ldb");
  EXPECT_GT(on_devices, data.size() - kMaxTailBytes);
  EXPECT_LE(on_devices, data.size());
  EXPECT_EQ(ReadFile("/000007.ldb"), data);  // the kept tail reads as written
  ASSERT_OK(w->Close());
  EXPECT_EQ(BytesOnDevices("/000007.ldb"), data.size());
  ExpectClean();
}

TEST_F(FlushTailTest, KeptBlocksSurviveAKill) {
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/slow.log", WriteMode::kTruncate, &w));
  const std::string data = Random(&rng_, 200000);
  AppendFlushed(w.get(), data, 3000);
  ASSERT_GT(fs_->Stats().flushes_kept_in_tail, 0u);
  ASSERT_LT(BytesOnDevices("/slow.log"), data.size()) << "some flushed blocks must be kept in the tail";
  w.release();  // the process dies with the file open
  KillAndRemount();
  EXPECT_EQ(ReadFile("/slow.log"), data);
  ExpectClean();
  // The recovered file takes appends after its kept tail.
  std::unique_ptr<FileWriter> again;
  ASSERT_OK(fs_->OpenWriter("/slow.log", WriteMode::kAppend, &again));
  const std::string more = Random(&rng_, 10000);
  ASSERT_OK(again->Append(more));
  ASSERT_OK(again->Close());
  EXPECT_EQ(ReadFile("/slow.log"), data + more);
  ExpectClean();
}

TEST_F(FlushTailTest, SyncWritesKeptBlocksAndSurvivesAPowerCut) {
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/synced", WriteMode::kTruncate, &w));
  const std::string data = Random(&rng_, 40000);
  AppendFlushed(w.get(), data, 4096);
  ASSERT_LT(BytesOnDevices("/synced"), data.size() / 4096 * 4096);
  ASSERT_OK(w->Sync());
  EXPECT_EQ(BytesOnDevices("/synced"), data.size() / 4096 * 4096) << "a sync writes every whole block";
  w.release();
  ASSERT_OK(PowerDomain(domain_, FaultPlan())->CutPower());
  fs_.reset();
  ResetPowerDomain(domain_);
  Mount(options_);
  EXPECT_EQ(ReadFile("/synced"), data);
  ExpectClean();
}

TEST_F(FlushTailTest, FastTierFlushesKeepTheirBlocksToo) {
  MountWith(std::make_shared<FastFirstPolicy>());
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/fast", WriteMode::kTruncate, &w));
  const std::string data = Random(&rng_, 10 * 4096);
  AppendFlushed(w.get(), data, 4096);
  // The first flush takes a zone and writes its block; the other nine wait.
  EXPECT_EQ(BytesOnDevices("/fast"), 4096u);
  EXPECT_EQ(fs_->Stats().flushes_kept_in_tail, 9u);
  w.release();  // the process dies with the file open
  KillAndRemount();
  EXPECT_EQ(ReadFile("/fast"), data);
  FileStat st;
  ASSERT_OK(fs_->Stat("/fast", &st));
  for (const Extent& e : st.extents) EXPECT_EQ(e.device, 0u) << "on the fast tier";
  ExpectClean();
}

// Tails are in every journal snapshot: all files together keep at most an
// eighth of a metadata zone (128 KiB here), whatever each may keep.
TEST_F(FlushTailTest, AllKeptTailsStayWithinAnEighthOfAMetadataZone) {
  std::vector<std::unique_ptr<FileWriter>> writers(4);
  std::vector<std::string> data(writers.size());
  uint64_t kept = 0;
  for (size_t i = 0; i < writers.size(); i++) {
    const std::string path = "/w" + std::to_string(i);
    ASSERT_OK(fs_->OpenWriter(path, WriteMode::kTruncate, &writers[i]));
    data[i] = Random(&rng_, 60 << 10);
    AppendFlushed(writers[i].get(), data[i], 4096);
    kept += data[i].size() - BytesOnDevices(path);
  }
  EXPECT_LE(kept, 128u << 10);
  EXPECT_GE(kept, 96u << 10) << "the first files keep what they may";
  for (size_t i = 0; i < writers.size(); i++) {
    ASSERT_OK(writers[i]->Close());
    EXPECT_EQ(ReadFile("/w" + std::to_string(i)), data[i]);
  }
  ExpectClean();
}

}  // namespace
}  // namespace hintfs
