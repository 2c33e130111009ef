// Process kills: whatever a returned Flush, Sync, Close or namespace call
// handed over survives, to the last byte, wherever the file's bytes went;
// with the host log and with unflushed device batches. And what power cuts
// leave of the same.
#include <gtest/gtest.h>

#include <random>

#include "fs/device/fault_injection.h"
#include "tests/fs/crash_fixture.h"

namespace hintfs {
namespace {

// The fixture: mounted on small zones; KillAndRemount drops the filesystem
// with every write kept, as a killed process leaves it.
class KillRecoveryTest : public test::CrashFixture, public ::testing::WithParamInterface<bool> {
 protected:
  void SetUp() override {
    CrashFixture::SetUp();
    host_log_ = GetParam();
    Format(Geometry());
    domain_ = test::UniqueName("tail");
    MountOptions o = Options(domain_, 0);
    o.write_buffer_bytes = 1 << 20;
    Mount(o);
  }
  void RemountWithBuffer(size_t write_buffer_bytes,
                         std::shared_ptr<AllocationPolicy> policy = nullptr) {
    fs_.reset();
    MountOptions o = Options(domain_, 0);
    o.write_buffer_bytes = write_buffer_bytes;
    o.policy = policy;
    after_kill_.policy = policy;
    Mount(o);
  }
  // The process dies: every write so far stays on the devices.
  void KillAndRemount() {
    PowerDomain(domain_, FaultPlan())->Kill();
    fs_.reset();
    ResetPowerDomain(domain_);
    Mount(after_kill_);
  }
  // Appends data in records of rec bytes, flushing after each, as a log
  // writer does; the writer is abandoned open (the process dies with it).
  void FlushedLog(const std::string& path, const std::string& data, size_t rec) {
    std::unique_ptr<FileWriter> w;
    ASSERT_OK(fs_->OpenWriter(path, WriteMode::kTruncate, &w));
    for (size_t off = 0; off < data.size(); off += rec) {
      ASSERT_OK(w->Append(data.substr(off, rec)));
      ASSERT_OK(w->Flush());
    }
    w.release();
  }
  std::string domain_;
  MountOptions after_kill_;
};

TEST_P(KillRecoveryTest, FlushedBytesSurviveAKill) {
  std::mt19937_64 rng(1);
  std::string data = Random(&rng, 50000);
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/wal", WriteMode::kTruncate, &w));
  ASSERT_OK(w->Append(data.substr(0, 1000)));
  ASSERT_OK(w->Sync());  // 1000 bytes synced: they ride in the journal
  ASSERT_OK(w->Append(data.substr(1000)));
  ASSERT_OK(w->Flush());  // everything else handed over, unsynced
  w.release();  // the process dies with the file open
  KillAndRemount();
  EXPECT_EQ(ReadFile("/wal"), data);
  FsStats st = fs_->Stats();
  EXPECT_EQ(st.recovered_bytes, 49000u);
  ASSERT_EQ(st.recovered_files.size(), 1u);
  EXPECT_EQ(st.recovered_files[0].path, "/wal");
  EXPECT_EQ(st.recovered_files[0].dropped_bytes, 0u);
  ExpectClean();
}

// The issue-16 case: a log flushed record by record whose bytes cross zone
// boundaries (several zones, on both tiers once the fast one is full) keeps
// every record after a kill.
TEST_P(KillRecoveryTest, FlushedLogAcrossZonesSurvivesAKill) {
  RemountWithBuffer(16 << 10);  // whole blocks reach the zones as they come
  std::mt19937_64 rng(5);
  std::string data = Random(&rng, 700000);  // about 11 zones of 64 KiB
  FlushedLog("/000004.log", data, 130);
  FileStat st;
  ASSERT_OK(fs_->Stat("/000004.log", &st));
  ASSERT_GE(st.extents.size(), 5u) << "the log must span several zones";
  KillAndRemount();
  EXPECT_EQ(ReadFile("/000004.log"), data);
  ExpectClean();
}

TEST_P(KillRecoveryTest, FlushedLogOnTheSlowTierSurvivesAKill) {
  RemountWithBuffer(16 << 10, std::make_shared<test::SlowOnlyPolicy>());
  std::mt19937_64 rng(6);
  std::string data = Random(&rng, 200000);
  FlushedLog("/slow.log", data, 1000);
  FileStat st;
  ASSERT_OK(fs_->Stat("/slow.log", &st));
  ASSERT_FALSE(st.extents.empty());
  for (const Extent& e : st.extents) EXPECT_EQ(e.device, 1u) << "the log must be on the slow tier";
  KillAndRemount();
  EXPECT_EQ(ReadFile("/slow.log"), data);
  ExpectClean();
}

// A log that fills its zone exactly, then goes on in the next one.
TEST_P(KillRecoveryTest, LogThatFillsItsZoneSurvivesAKill) {
  RemountWithBuffer(16 << 10);
  std::mt19937_64 rng(7);
  std::string data = Random(&rng, (64 << 10) + 100);
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/full.log", WriteMode::kTruncate, &w));
  ASSERT_OK(w->Append(data.substr(0, 64 << 10)));
  ASSERT_OK(w->Flush());
  ASSERT_OK(w->Append(data.substr(64 << 10)));
  ASSERT_OK(w->Flush());
  w.release();
  KillAndRemount();
  EXPECT_EQ(ReadFile("/full.log"), data);
  ExpectClean();
}

// An idle writer's zone is taken by another file; both keep what they flushed.
TEST_P(KillRecoveryTest, ZoneTakenFromAnIdleWriterKeepsBothFiles) {
  RemountWithBuffer(16 << 10);
  std::mt19937_64 rng(8);
  std::string idle = Random(&rng, 10000), more = Random(&rng, 5000), busy;
  std::unique_ptr<FileWriter> a, b;
  ASSERT_OK(fs_->OpenWriter("/idle.log", WriteMode::kTruncate, &a));
  ASSERT_OK(a->Append(idle));
  ASSERT_OK(a->Flush());
  FileStat st;
  ASSERT_OK(fs_->Stat("/idle.log", &st));
  ASSERT_EQ(st.extents.size(), 1u);
  const Extent idle_zone = st.extents[0];
  // Another log fills the free zones until it has to take the idle writer's.
  ASSERT_OK(fs_->OpenWriter("/busy.log", WriteMode::kTruncate, &b));
  bool taken = false;
  while (!taken && busy.size() < (4u << 20)) {
    std::string rec = Random(&rng, 30000);
    ASSERT_OK(b->Append(rec));
    ASSERT_OK(b->Flush());
    busy += rec;
    ASSERT_OK(fs_->Stat("/busy.log", &st));
    for (const Extent& e : st.extents) {
      taken = taken || (e.device == idle_zone.device && e.zone == idle_zone.zone);
    }
  }
  ASSERT_TRUE(taken) << "the busy log never took the idle writer's zone";
  ASSERT_OK(a->Append(more));
  ASSERT_OK(a->Flush());
  a.release();
  b.release();
  KillAndRemount();
  EXPECT_EQ(ReadFile("/idle.log"), idle + more);
  EXPECT_EQ(ReadFile("/busy.log"), busy);
  ExpectClean();
}

TEST_P(KillRecoveryTest, NamespaceChangesSurviveAKill) {
  WriteFile("/old", "contents");
  ASSERT_OK(fs_->Mkdir("/dir"));
  ASSERT_OK(fs_->Rename("/old", "/dir/new"));
  ASSERT_OK(fs_->Link("/dir/new", "/alias"));
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/created", WriteMode::kExclusive, &w));
  w.release();
  ASSERT_OK(fs_->OpenWriter("/gone", WriteMode::kExclusive, &w));
  ASSERT_OK(w->Close());
  ASSERT_OK(fs_->Unlink("/gone"));
  KillAndRemount();
  EXPECT_EQ(ReadFile("/dir/new"), "contents");
  EXPECT_EQ(ReadFile("/alias"), "contents");
  FileStat st;
  EXPECT_TRUE(fs_->Stat("/old", &st).IsNotFound());
  EXPECT_OK(fs_->Stat("/created", &st));
  EXPECT_TRUE(fs_->Stat("/gone", &st).IsNotFound());
  ExpectClean();
}

// Appends alone are the writer's buffer: they commit nothing and are not
// recovered after a kill, and nothing else of the file is touched.
TEST_P(KillRecoveryTest, AppendsWithoutFlushCommitNothing) {
  RemountWithBuffer(16 << 10);  // appends reach the zones as they come
  std::mt19937_64 rng(4);
  std::string body = Random(&rng, 300000);
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/stream", WriteMode::kTruncate, &w));
  uint64_t commits = fs_->Stats().journal_commits;
  for (size_t off = 0; off < body.size(); off += 7000) ASSERT_OK(w->Append(body.substr(off, 7000)));
  FileStat st;
  ASSERT_OK(fs_->Stat("/stream", &st));
  ASSERT_GE(st.extents.size(), 3u) << "the appends must reach several zones";
  EXPECT_EQ(fs_->Stats().journal_commits, commits);
  w.release();
  KillAndRemount();
  EXPECT_EQ(ReadFile("/stream"), "");
  EXPECT_EQ(fs_->Stats().recovered_bytes, 0u);
  ExpectClean();
}

TEST_P(KillRecoveryTest, SyncedTailSurvivesWithoutPadding) {
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/log", WriteMode::kTruncate, &w));
  std::string expect;
  for (int i = 0; i < 50; i++) {
    std::string rec = "record " + std::to_string(i) + "\n";
    ASSERT_OK(w->Append(rec));
    ASSERT_OK(i % 2 ? w->Sync() : w->Flush());
    expect += rec;
  }
  FileStat st;
  ASSERT_OK(fs_->Stat("/log", &st));
  EXPECT_TRUE(st.extents.empty()) << "50 small syncs and flushes must not pad 50 blocks";
  w.release();
  KillAndRemount();
  EXPECT_EQ(ReadFile("/log"), expect);
  ExpectClean();
}

TEST_P(KillRecoveryTest, ZoneReusedByAnotherFileKeepsEachFilesBytes) {
  std::mt19937_64 rng(2);
  std::string a = Random(&rng, 20000), b = Random(&rng, 30000);
  WriteFile("/a", a);
  ASSERT_OK(fs_->Unlink("/a"));
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/b", WriteMode::kTruncate, &w));
  ASSERT_OK(w->Append(b));
  ASSERT_OK(w->Flush());
  w.release();
  KillAndRemount();
  FileStat st;
  EXPECT_TRUE(fs_->Stat("/a", &st).IsNotFound());
  EXPECT_EQ(ReadFile("/b"), b);
  ExpectClean();
}

TEST_P(KillRecoveryTest, TruncateThenAppendSurvivesAKill) {
  std::mt19937_64 rng(3);
  std::string data = Random(&rng, 40000), more = Random(&rng, 20000);
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/t", WriteMode::kTruncate, &w));
  ASSERT_OK(w->Append(data));
  ASSERT_OK(w->Sync());
  ASSERT_OK(fs_->Truncate("/t", 8192));
  ASSERT_OK(w->Append(more));
  ASSERT_OK(w->Flush());
  w.release();
  KillAndRemount();
  EXPECT_EQ(ReadFile("/t"), data.substr(0, 8192) + more);
  ExpectClean();
}

// A file recovered with a tail in the journal can be truncated and rewritten
// (LevelDB reuses the number of a table it was writing when it died).
TEST_P(KillRecoveryTest, RecoveredFileWithATailCanBeRewritten) {
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/000011.ldb", WriteMode::kTruncate, &w));
  ASSERT_OK(w->Append(std::string(5000, 'a')));
  ASSERT_OK(w->Flush());
  w.release();
  KillAndRemount();
  ASSERT_EQ(ReadFile("/000011.ldb"), std::string(5000, 'a'));
  ASSERT_OK(fs_->OpenWriter("/000011.ldb", WriteMode::kTruncate, &w));
  ASSERT_OK(w->Append("new table"));
  ASSERT_OK(w->Sync());
  ASSERT_OK(w->Close());
  Remount();
  EXPECT_EQ(ReadFile("/000011.ldb"), "new table");
  ExpectClean();
}

// After an unmount (or any sync) nothing is left for the next mount to
// recover: the last unflushed batches are marked durable.
TEST_P(KillRecoveryTest, SyncAfterFlushesLeavesNothingToRecover) {
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/a", WriteMode::kTruncate, &w));
  ASSERT_OK(w->Append("flushed"));
  ASSERT_OK(w->Flush());
  ASSERT_OK(w->Close());
  ASSERT_OK(fs_->Mkdir("/d"));
  ASSERT_OK(fs_->SyncMetadata());  // no op queued: only a flush and its marker
  KillAndRemount();
  EXPECT_TRUE(fs_->Stats().recovered_files.empty());
  EXPECT_EQ(ReadFile("/a"), "flushed");
  Remount();
  EXPECT_TRUE(fs_->Stats().recovered_files.empty());
}

// A power cut may keep an unflushed journal batch and drop the data it names
// (the devices keep any prefix of their unflushed writes): mount cuts the
// file back to the bytes the devices hold, reports what it dropped, and the
// synced part is intact. With the host log, a power cut makes the log stale
// (the journal device counts its power cycles): the file is as last synced.
TEST_P(KillRecoveryTest, PowerCutLeavesAtLeastTheSyncedBytes) {
  std::mt19937_64 rng(9);
  std::string synced = Random(&rng, 30000), flushed = Random(&rng, 200000);
  uint64_t cuts = 0, dropped = 0;
  for (uint64_t seed = 1; seed <= 40; seed++) {
    std::string domain = test::UniqueName("cut");
    Format(Geometry());
    MountOptions o = Options(domain, 0);
    o.write_buffer_bytes = 16 << 10;
    Mount(o);
    std::unique_ptr<FileWriter> w;
    ASSERT_OK(fs_->OpenWriter("/f", WriteMode::kTruncate, &w));
    ASSERT_OK(w->Append(synced));
    ASSERT_OK(w->Sync());
    for (size_t off = 0; off < flushed.size(); off += 20000) {
      ASSERT_OK(w->Append(flushed.substr(off, 20000)));
      ASSERT_OK(w->Flush());
    }
    w.release();
    FaultPlan plan;
    plan.power_cut_seed = seed;
    ASSERT_OK(PowerDomain(domain, plan)->CutPower());
    fs_.reset();
    ResetPowerDomain(domain);
    Mount();
    std::string got = ReadFile("/f");
    std::string all = synced + flushed;
    ASSERT_GE(got.size(), synced.size()) << "seed " << seed;
    ASSERT_EQ(got, all.substr(0, got.size())) << "seed " << seed;
    FsStats st = fs_->Stats();
    if (host_log_) {
      EXPECT_EQ(got.size(), synced.size()) << "seed " << seed << ": a stale host log was replayed";
      EXPECT_TRUE(st.recovered_files.empty()) << "seed " << seed;
    }
    cuts += st.dropped_bytes > 0;
    dropped += st.dropped_bytes;
    ExpectClean();
    Remount();
    EXPECT_EQ(ReadFile("/f"), got) << "seed " << seed;
  }
  std::cout << "power cuts that kept a batch but not its data: " << cuts << " of 40 ("
            << dropped << " bytes dropped)\n";
  if (!host_log_) {
    EXPECT_GT(cuts, 0u) << "no seed kept an unflushed batch without its data";
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, KillRecoveryTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "HostLog" : "DeviceBatches"; });

}  // namespace
}  // namespace hintfs
