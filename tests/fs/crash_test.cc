// Crash safety: a random workload runs until the power is cut (both devices at
// once, dropping any unflushed suffix of each zone) or the process is killed
// after its Nth device write, then the filesystem is remounted and checked
// against a model: everything synced before a power cut, and everything any
// returned call handed over before a kill, is intact; nothing appears that
// was never written, a rename is all or nothing, and fsck is clean. Crash
// points cover every write of the workload when there are few enough, so they
// fall inside journal rolls, garbage collection and zone resets too.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <tuple>

#include "fs/device/fault_injection.h"
#include "tests/fs/crash_fixture.h"

namespace hintfs {
namespace {

using test::FsGeometry;
using test::FsTest;

struct FileModel {
  std::string all;    // every byte written; all of them flushed, so a kill keeps them
  size_t synced = 0;  // bytes known durable across a power cut
  bool pending = false;  // closed since the last commit: durable at the next one
};
using Model = std::map<std::string, FileModel>;

struct StepWindow {
  Model before, after;
  std::string renamed_from, renamed_to;
};

class CrashTest : public test::CrashFixture {
 protected:
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
        if (s.ok()) s = w->Flush();  // flushed bytes survive a kill from here on
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

  // kill: every byte of the files before the failing step must be there
  // (each step flushed or closed what it wrote); otherwise the synced ones.
  void Verify(const StepWindow& w, bool kill, const std::string& context) {
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
      size_t kept = 0;  // what must have survived
      if (b != w.before.end()) kept = kill ? b->second.all.size() : b->second.synced;
      check_content(name, longest.all, kept);
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

// Parameters: killed (else a power cut), with the host log (else unflushed
// device batches carry what must survive a kill).
class CrashPointTest : public CrashTest, public ::testing::WithParamInterface<std::tuple<bool, bool>> {};

TEST_P(CrashPointTest, SyncedDataSurvivesAStopAtAnyWrite) {
  const bool kill = std::get<0>(GetParam());
  host_log_ = std::get<1>(GetParam());
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
    recovered += fs_->Stats().recovered_bytes;
    if (HasFailure()) break;
    ExpectClean();
    Verify(window, kill, context);
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
  std::cout << "unsynced bytes recovered from unflushed journal batches: " << recovered << "\n";
  if (kill) {
    EXPECT_GT(recovered, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, CrashPointTest, ::testing::Combine(::testing::Bool(), ::testing::Bool()),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param) ? "Kill" : "PowerCut") +
                                  (std::get<1>(info.param) ? "HostLog" : "DeviceBatches");
                         });

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

}  // namespace
}  // namespace hintfs
