// Applying a hint trace to a real (memory-backed) filesystem: files are
// created, filled, closed after their last append and deleted as the trace
// says; hints reach the bus; a full filesystem or a damaged trace stops the
// replay with the error, never a crash.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "hints/trace_apply.h"
#include "tests/fs/fs_fixture.h"
#include "tests/hints/hint_recorder.h"

namespace hintfs {
namespace {

TraceEvent Event(TraceEvent::Type type, const std::string& path, uint64_t bytes = 0) {
  TraceEvent e;
  e.type = type;
  e.time_ns = 1;
  e.path = path;
  e.bytes = bytes;
  return e;
}

// The store's write-life-time hint for path.
TraceEvent StoreHint(const std::string& path, int hint) {
  TraceEvent e = Event(TraceEvent::Type::kLifetime, path);
  e.lifetime = hint;
  return e;
}

class TraceApplyTest : public test::FsTest {
 protected:
  void SetUp() override {
    FsTest::SetUp();
    Format();
  }

  // The trace of events, as a file and read back.
  std::unique_ptr<TraceReader> Trace(const std::vector<TraceEvent>& events) {
    std::unique_ptr<TraceWriter> w;
    EXPECT_OK(TraceWriter::Create(dir_.File("t"), &w));
    for (const TraceEvent& e : events) EXPECT_OK(w->Append(e));
    EXPECT_OK(w->Close());
    std::unique_ptr<TraceReader> r;
    EXPECT_OK(TraceReader::Open(dir_.File("t"), &r));
    return r;
  }

  // Remounts under a policy that records the hints files ask with.
  std::shared_ptr<test::HintRecorder> MountRecordingHints() {
    auto policy = std::make_shared<test::HintRecorder>();
    MountOptions opts;
    opts.policy = policy;
    Mount(opts);
    return policy;
  }

  uint64_t SizeOf(const std::string& path) {
    FileStat st;
    Status s = fs_->Stat(path, &st);
    return s.ok() ? st.size : UINT64_MAX;
  }

  test::ScratchDir dir_;
};

TEST_F(TraceApplyTest, FilesLiveAndDieAsTheTraceSays) {
  using T = TraceEvent::Type;
  TraceEvent begin;
  begin.type = T::kHint;
  begin.time_ns = 1;
  begin.hint.kind = Hint::Kind::kCompactionBegin;
  begin.hint.job = 4;
  begin.hint.level = 1;
  begin.hint.inputs = {{"/db/1.sst", 0}};
  std::vector<TraceEvent> events = {
      begin,
      Event(T::kCreate, "/db/1.sst"), StoreHint("/db/1.sst", 3), Event(T::kAppend, "/db/1.sst", 300 << 10),
      Event(T::kCreate, "/db/2.log"), Event(T::kAppend, "/db/2.log", 4000),
      Event(T::kAppend, "/db/1.sst", 5000),  // its last: closed here
      Event(T::kRead, "/db/1.sst", 4096), Event(T::kDelete, "/db/1.sst"),
      Event(T::kAppend, "/db/9.sst", 100),  // created before the trace began
      Event(T::kCreate, "/db/3.sst"), Event(T::kAppend, "/db/3.sst", 100),
      Event(T::kCreate, "/db/3.sst"), Event(T::kAppend, "/db/3.sst", 50),  // made again
      Event(T::kAppend, "/db/2.log", 6240),  // never deleted: closed at the end
  };
  std::vector<Hint> seen;
  HintBus bus;
  bus.Subscribe([&](const Hint& h) { seen.push_back(h); });
  std::unique_ptr<TraceReader> trace = Trace(events);
  TraceApplyResult r;
  uint64_t progress_calls = 0;
  ASSERT_OK(ApplyTrace(trace.get(), fs_.get(), &bus, TraceApplyOptions(), &r, [&](uint64_t, uint64_t) { progress_calls++; }));
  EXPECT_EQ(r.events, events.size());
  EXPECT_EQ(r.files_created, 4u);
  EXPECT_EQ(r.files_deleted, 1u);
  EXPECT_EQ(r.bytes_appended, (300u << 10) + 4000 + 5000 + 100 + 50 + 6240);
  EXPECT_EQ(r.hints_published, 1u);
  EXPECT_EQ(r.passed_over, 1u);
  EXPECT_GT(progress_calls, 0u);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].job, 4);
  EXPECT_EQ(SizeOf("/db/1.sst"), UINT64_MAX);
  EXPECT_EQ(SizeOf("/db/2.log"), 10240u);
  EXPECT_EQ(SizeOf("/db/3.sst"), 50u);
  // Every writer was closed: the files survive a remount whole.
  Remount();
  EXPECT_EQ(ReadFile("/db/2.log"), std::string(10240, '\x5a'));
  ExpectClean();
}

TEST_F(TraceApplyTest, AFullFilesystemStopsTheReplayNamingTheFile) {
  using T = TraceEvent::Type;
  // 10 MiB of devices; the trace writes 32 MiB into one file.
  std::unique_ptr<TraceReader> trace =
      Trace({Event(T::kCreate, "/db/big.sst"), Event(T::kAppend, "/db/big.sst", 32 << 20)});
  TraceApplyResult r;
  Status s = ApplyTrace(trace.get(), fs_.get(), nullptr, TraceApplyOptions(), &r, nullptr);
  EXPECT_TRUE(s.IsNoSpace()) << s.ToString();
  EXPECT_NE(s.message().find("/db/big.sst"), std::string::npos) << s.message();
}

TEST_F(TraceApplyTest, ADamagedTraceChangesNothing) {
  using T = TraceEvent::Type;
  Trace({Event(T::kCreate, "/db/1.sst"), Event(T::kAppend, "/db/1.sst", 100), Event(T::kDelete, "/db/1.sst")});
  std::ifstream in(dir_.File("t"), std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  std::string data = bytes.str();
  data.resize(data.size() - 3);  // the last event cut short
  TraceReader trace(data);
  TraceApplyResult r;
  Status s = ApplyTrace(&trace, fs_.get(), nullptr, TraceApplyOptions(), &r, nullptr);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_EQ(SizeOf("/db"), UINT64_MAX) << "the replay began before the whole trace was read";
}

TEST_F(TraceApplyTest, OracleHintsFollowEachFilesRealLifetime) {
  using T = TraceEvent::Type;
  std::shared_ptr<test::HintRecorder> policy = MountRecordingHints();
  std::unique_ptr<TraceReader> trace = Trace({
      Event(T::kCreate, "/db/a.sst"), StoreHint("/db/a.sst", 2), Event(T::kAppend, "/db/a.sst", 100 << 10),
      Event(T::kCreate, "/db/c.sst"), Event(T::kAppend, "/db/c.sst", 10 << 10), Event(T::kDelete, "/db/c.sst"),
      Event(T::kCreate, "/db/b.log"), Event(T::kAppend, "/db/b.log", 3 << 20),
      Event(T::kDelete, "/db/a.sst"),  // lived 100 KiB + 10 KiB + 3 MiB of appends
  });
  TraceApplyOptions o;
  o.oracle_lifetime_unit = 1 << 20;
  TraceApplyResult r;
  ASSERT_OK(ApplyTrace(trace.get(), fs_.get(), nullptr, o, &r, nullptr));
  EXPECT_EQ(policy->HintOf("/db/c.sst"), 1);  // under the unit
  EXPECT_EQ(policy->HintOf("/db/a.sst"), 3);  // 2-4 units; the store's hint (2) is not used
  EXPECT_EQ(policy->HintOf("/db/b.log"), 5);  // never deleted
}

TEST_F(TraceApplyTest, OracleHintsOnlyForTheLevelsAsked) {
  using T = TraceEvent::Type;
  std::shared_ptr<test::HintRecorder> policy = MountRecordingHints();
  auto creation = [](const std::string& path, int level) {
    TraceEvent e;
    e.type = T::kHint;
    e.time_ns = 1;
    e.hint.kind = Hint::Kind::kTableFileCreation;
    e.hint.path = path;
    e.hint.level = level;
    return e;
  };
  std::unique_ptr<TraceReader> trace = Trace({
      creation("/db/l2.sst", 2), Event(T::kCreate, "/db/l2.sst"), StoreHint("/db/l2.sst", 4),
      Event(T::kAppend, "/db/l2.sst", 4096),
      creation("/db/l0.sst", 0), Event(T::kCreate, "/db/l0.sst"), StoreHint("/db/l0.sst", 3),
      Event(T::kAppend, "/db/l0.sst", 4096),
      Event(T::kDelete, "/db/l2.sst"), Event(T::kDelete, "/db/l0.sst"),
  });
  TraceApplyOptions o;
  o.oracle_lifetime_unit = 1 << 20;
  o.oracle_levels = {2};
  TraceApplyResult r;
  ASSERT_OK(ApplyTrace(trace.get(), fs_.get(), nullptr, o, &r, nullptr));
  EXPECT_EQ(policy->HintOf("/db/l2.sst"), 1);  // lived 8 KiB: the oracle's
  EXPECT_EQ(policy->HintOf("/db/l0.sst"), 3);  // the store's
}

}  // namespace
}  // namespace hintfs
