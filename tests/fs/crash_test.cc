// Crash safety: a random workload runs until the power is cut after its Nth
// device write (both devices at once, dropping any unflushed suffix of each
// zone), then the filesystem is remounted and checked against a model:
// everything synced before the cut is intact, nothing appears that was never
// written, a rename is all or nothing, and fsck is clean. Crash points cover
// every write of the workload when there are few enough, so they fall inside
// journal rolls, garbage collection and zone resets too.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "fs/fault_injection.h"
#include "tests/fs/fs_fixture.h"

namespace hintfs {
namespace {

using test::FsGeometry;
using test::FsTest;

struct FileModel {
  std::string all;    // every byte written
  size_t synced = 0;  // bytes known durable
  bool pending = false;  // closed since the last commit: durable at the next one
};
using Model = std::map<std::string, FileModel>;

struct StepWindow {
  Model before, after;
  std::string renamed_from, renamed_to;
};

class CrashTest : public FsTest {
 protected:
  static FsGeometry Geometry() {
    FsGeometry g;
    g.fast = "zone_size=64KiB&zones=20";
    g.slow = "zone_size=64KiB&zones=24";
    return g;
  }

  // kill: the process dies but its writes stay; otherwise the power goes.
  MountOptions Options(const std::string& domain, uint64_t stop_after, bool kill = false) {
    MountOptions o;
    o.write_buffer_bytes = 16 << 10;
    o.device_params = "power_domain=" + domain;
    if (stop_after) {
      o.device_params += (kill ? "&kill_after=" : "&power_cut_after=") + std::to_string(stop_after);
    }
    return o;
  }

  static void CommitDone(Model* m) {
    for (auto& [name, f] : *m) {
      if (f.pending) f.synced = f.all.size(), f.pending = false;
    }
  }

  // Runs the workload; on the first error returns it with *window describing
  // the step that failed.
  Status Workload(uint64_t seed, StepWindow* window) {
    std::mt19937_64 rng(seed);
    Model model;
    int next = 0;
    uint64_t live = 0;
    for (int step = 0; step < 150; step++) {
      window->before = model;
      window->renamed_from.clear();
      window->renamed_to.clear();
      Model after = model;
      Status s;
      int kind = static_cast<int>(rng() % 10);
      if (model.size() < 3 || (kind < 3 && live < (600 << 10))) kind = 0;
      if (live > (1200 << 10)) kind = 8;
      auto pick = [&]() {
        auto it = model.begin();
        std::advance(it, rng() % model.size());
        return it->first;
      };
      if (kind == 0) {  // create, write, sync
        std::string name = "/d" + std::to_string(next % 3) + "/f" + std::to_string(next);
        next++;
        std::string data = Random(&rng, 1 + rng() % 120000);
        after[name] = {data, data.size(), false};
        CommitDone(&after);
        window->after = after;
        std::unique_ptr<FileWriter> w;
        s = fs_->OpenWriter(name, WriteMode::kExclusive, &w);
        for (size_t off = 0; s.ok() && off < data.size(); off += 9000) s = w->Append(data.substr(off, 9000));
        if (s.ok()) s = w->Sync();
        if (s.ok()) s = w->Close();
        live += data.size();
      } else if (kind <= 3) {  // append, sync
        std::string name = pick();
        std::string data = Random(&rng, 1 + rng() % 30000);
        after[name].all += data;
        after[name].synced = after[name].all.size();
        after[name].pending = false;
        CommitDone(&after);
        window->after = after;
        std::unique_ptr<FileWriter> w;
        s = fs_->OpenWriter(name, WriteMode::kAppend, &w);
        if (s.ok()) s = w->Append(data);
        if (s.ok()) s = w->Sync();
        if (s.ok()) s = w->Close();
        live += data.size();
      } else if (kind <= 5) {  // append, flush as a log writer does, close without sync
        std::string name = pick();
        std::string data = Random(&rng, 1 + rng() % 30000);
        after[name].all += data;
        after[name].pending = true;
        window->after = after;
        std::unique_ptr<FileWriter> w;
        s = fs_->OpenWriter(name, WriteMode::kAppend, &w);
        if (s.ok()) s = w->Append(data);
        if (s.ok()) s = w->Flush();  // flushed whole blocks survive a kill from here on
        if (s.ok()) s = w->Close();
        live += data.size();
      } else if (kind <= 7) {  // rename, directory sync
        std::string from = pick();
        std::string to = "/d" + std::to_string(rng() % 3) + "/r" + std::to_string(next++);
        after[to] = after[from];
        after.erase(from);
        CommitDone(&after);
        window->after = after;
        window->renamed_from = from;
        window->renamed_to = to;
        s = fs_->Rename(from, to);
        if (s.ok()) s = fs_->SyncMetadata();
      } else if (kind == 9) {  // garbage collection (commits, too)
        CommitDone(&after);
        window->after = after;
        uint32_t freed = 0;
        s = fs_->CollectGarbage(2, &freed);
      } else {  // unlink, directory sync
        std::string name = pick();
        live -= model[name].all.size();
        after.erase(name);
        CommitDone(&after);
        window->after = after;
        s = fs_->Unlink(name);
        if (s.ok()) s = fs_->SyncMetadata();
      }
      if (!s.ok()) return s;
      model = after;
    }
    window->before = window->after = model;
    return Status::OK();
  }

  void Verify(const StepWindow& w, const std::string& context) {
    std::set<std::string> present;
    for (int d = 0; d < 3; d++) {
      std::vector<DirEntry> entries;
      ASSERT_OK(fs_->ReadDir("/d" + std::to_string(d), &entries));
      for (const auto& e : entries) present.insert("/d" + std::to_string(d) + "/" + e.name);
    }
    auto check_content = [&](const std::string& name, const std::string& all, size_t synced) {
      std::string got = ReadFile(name);
      EXPECT_LE(got.size(), all.size()) << context << " " << name;
      EXPECT_GE(got.size(), synced) << context << " " << name << ": synced bytes lost";
      EXPECT_TRUE(all.compare(0, got.size(), got) == 0) << context << " " << name << ": wrong bytes";
    };
    for (const std::string& name : present) {
      auto b = w.before.find(name), a = w.after.find(name);
      if (b == w.before.end() && a == w.after.end()) {
        ADD_FAILURE() << context << ": " << name << " should not exist";
        continue;
      }
      const FileModel& longest = (a != w.after.end()) ? a->second : b->second;
      size_t synced = (b != w.before.end() && a != w.after.end()) ? b->second.synced : 0;
      if (b != w.before.end() && a == w.after.end()) synced = b->second.synced;
      check_content(name, longest.all, synced);
    }
    for (const auto& [name, f] : w.before) {
      if (w.after.count(name) && !present.count(name)) {
        ADD_FAILURE() << context << ": " << name << " vanished";
      }
    }
    if (!w.renamed_from.empty()) {
      EXPECT_NE(present.count(w.renamed_from), present.count(w.renamed_to))
          << context << ": rename " << w.renamed_from << " -> " << w.renamed_to << " half done";
    }
  }

  void PrepareDirs() {
    for (int d = 0; d < 3; d++) ASSERT_OK(fs_->Mkdir("/d" + std::to_string(d)));
    ASSERT_OK(fs_->SyncMetadata());
  }
};

class CrashPointTest : public CrashTest, public ::testing::WithParamInterface<bool> {};

TEST_P(CrashPointTest, SyncedDataSurvivesAStopAtAnyWrite) {
  const bool kill = GetParam();
  const uint64_t seed = 20261121;
  // A full run without a cut tells how many writes the workload makes.
  std::string domain = test::UniqueName("count");
  Format(Geometry());
  PrepareDirs();
  Mount(Options(domain, 0));
  StepWindow window;
  ASSERT_OK(Workload(seed, &window));
  uint64_t total_writes = PowerDomain(domain, FaultPlan())->writes();
  FsStats st = fs_->Stats();
  ASSERT_GE(st.journal_rolls, 2u) << "the workload must roll the journal";
  ASSERT_GE(st.gc_runs, 1u) << "the workload must run GC";
  ASSERT_GE(st.zone_resets, 5u);
  fs_.reset();
  ResetPowerDomain(domain);

  std::vector<uint64_t> points;
  if (total_writes <= 1500) {
    for (uint64_t k = 1; k <= total_writes; k++) points.push_back(k);
  } else {
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 500; i++) points.push_back(1 + rng() % total_writes);
  }
  ASSERT_GE(points.size(), 200u);
  std::cout << "crash points: " << points.size() << " of " << total_writes << " writes\n";
  int crashed = 0;
  uint64_t recovered = 0;
  for (uint64_t k : points) {
    std::string context = "seed " + std::to_string(seed) + (kill ? " killed" : " power cut") +
                          " after write " + std::to_string(k);
    domain = test::UniqueName("cut");
    Format(Geometry());
    PrepareDirs();
    Mount(Options(domain, k, kill));
    Status s = Workload(seed, &window);
    crashed += !s.ok();
    fs_.reset();  // the process "dies"; its unmount fails on the dead devices
    ResetPowerDomain(domain);
    Mount();
    recovered += fs_->Stats().recovered_tail_bytes;
    if (HasFailure()) break;
    ExpectClean();
    Verify(window, context);
    // The recovered filesystem keeps working.
    WriteFile("/after-crash", "ok");
    EXPECT_EQ(ReadFile("/after-crash"), "ok");
    Remount();
    ExpectClean();
    if (HasFailure()) {
      ADD_FAILURE() << context;
      break;
    }
  }
  EXPECT_GE(crashed, 200);
  std::cout << "unsynced bytes recovered from write pointers: " << recovered << "\n";
  if (kill) {
    EXPECT_GT(recovered, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, CrashPointTest, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Kill" : "PowerCut"; });

TEST_F(CrashTest, TornJournalTailIsRolledPast) {
  Format(Geometry());
  WriteFile("/a", "first");
  std::string domain = test::UniqueName("torn");
  // Cut on the next write: the journal batch of /b's sync never lands whole.
  Mount(Options(domain, 1));
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/b", WriteMode::kTruncate, &w));
  ASSERT_OK(w->Append("second"));
  EXPECT_FALSE(w->Sync().ok());
  w.reset();
  fs_.reset();
  ResetPowerDomain(domain);
  Mount();
  EXPECT_EQ(ReadFile("/a"), "first");
  WriteFile("/c", "third");
  Remount();
  EXPECT_EQ(ReadFile("/c"), "third");
  ExpectClean();
}

// Tail recovery: whole blocks a writer sent to its zone are recovered after a
// crash even though it never synced them, and never attributed wrongly.
class TailRecoveryTest : public CrashTest {
 protected:
  void SetUp() override {
    CrashTest::SetUp();
    Format(Geometry());
    domain_ = test::UniqueName("tail");
    MountOptions o = Options(domain_, 0);
    o.write_buffer_bytes = 1 << 20;
    Mount(o);
  }
  // The process dies: every write so far stays on the devices.
  void KillAndRemount() {
    PowerDomain(domain_, FaultPlan())->Kill();
    fs_.reset();
    ResetPowerDomain(domain_);
    Mount();
  }
  std::string domain_;
};

TEST_F(TailRecoveryTest, FlushedBlocksSurviveAKill) {
  std::mt19937_64 rng(1);
  std::string data = Random(&rng, 50000);
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/wal", WriteMode::kTruncate, &w));
  ASSERT_OK(w->Append(data.substr(0, 1000)));
  ASSERT_OK(w->Sync());  // 1000 bytes synced: they ride in the journal
  ASSERT_OK(w->Append(data.substr(1000)));
  ASSERT_OK(w->Flush());  // whole blocks reach the zone, unsynced
  w.release();  // the process dies with the file open
  KillAndRemount();
  std::string got = ReadFile("/wal");
  EXPECT_EQ(got.size(), 50000u / 4096 * 4096);
  EXPECT_EQ(got, data.substr(0, got.size()));
  EXPECT_EQ(fs_->Stats().recovered_tail_bytes, got.size());
  ExpectClean();
}

// A stream of appends that crosses zones commits nothing: the zone owner
// records wait for the next commit. Blocks written out before it are not
// recovered after a kill, and nothing else of the file is touched.
TEST_F(TailRecoveryTest, AppendsAcrossZonesCommitNothingUntilAFlush) {
  fs_.reset();
  MountOptions o = Options(domain_, 0);
  o.write_buffer_bytes = 16 << 10;  // appends reach the zones as they come
  Mount(o);
  std::mt19937_64 rng(4);
  std::string body = Random(&rng, 300000);
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/stream", WriteMode::kTruncate, &w));
  ASSERT_OK(w->Sync());  // the file exists, empty
  uint64_t commits = fs_->Stats().journal_commits;
  for (size_t off = 0; off < body.size(); off += 7000) ASSERT_OK(w->Append(body.substr(off, 7000)));
  FileStat st;
  ASSERT_OK(fs_->Stat("/stream", &st));
  ASSERT_GE(st.extents.size(), 3u) << "the appends must reach several zones";
  EXPECT_EQ(fs_->Stats().journal_commits, commits);
  w.release();
  KillAndRemount();
  EXPECT_EQ(ReadFile("/stream"), "");
  EXPECT_EQ(fs_->Stats().recovered_tail_bytes, 0u);
  ExpectClean();
}

TEST_F(TailRecoveryTest, SyncedTailSurvivesWithoutPadding) {
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/log", WriteMode::kTruncate, &w));
  std::string expect;
  for (int i = 0; i < 50; i++) {
    std::string rec = "record " + std::to_string(i) + "\n";
    ASSERT_OK(w->Append(rec));
    ASSERT_OK(w->Sync());
    expect += rec;
  }
  FileStat st;
  ASSERT_OK(fs_->Stat("/log", &st));
  EXPECT_TRUE(st.extents.empty()) << "50 small syncs must not pad 50 blocks";
  w.release();
  KillAndRemount();
  EXPECT_EQ(ReadFile("/log"), expect);
  ExpectClean();
}

TEST_F(TailRecoveryTest, ZoneReusedByAnotherFileIsNotRecoveredIntoTheFirst) {
  std::mt19937_64 rng(2);
  std::string a = Random(&rng, 20000), b = Random(&rng, 30000);
  WriteFile("/a", a);  // synced, closed: its zone is released durably
  ASSERT_OK(fs_->Unlink("/a"));
  std::unique_ptr<FileWriter> w;
  ASSERT_OK(fs_->OpenWriter("/b", WriteMode::kTruncate, &w));
  ASSERT_OK(w->Append(b));
  ASSERT_OK(w->Flush());
  w.release();
  KillAndRemount();
  FileStat st;
  Status s = fs_->Stat("/a", &st);
  if (s.ok()) {
    EXPECT_EQ(ReadFile("/a"), a);  // the unlink was not committed
  }
  s = fs_->Stat("/b", &st);
  if (s.ok()) {
    std::string got = ReadFile("/b");
    EXPECT_EQ(got, b.substr(0, got.size()));
  }
  ExpectClean();
}

TEST_F(TailRecoveryTest, TruncatedFileIsNotExtendedWithOldBlocks) {
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
  std::string got = ReadFile("/t");
  std::string truncated = data.substr(0, 8192) + more;
  bool old_state = got == data.substr(0, 40000 / 4096 * 4096) || got == data;
  bool new_state = got.size() >= 8192 && got == truncated.substr(0, got.size());
  EXPECT_TRUE(old_state || new_state) << "recovered " << got.size() << " bytes of neither state";
  ExpectClean();
}

}  // namespace
}  // namespace hintfs
