// Replay: deterministic, and it applies the policy the way the store would.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "placement/replay.h"
#include "tests/fs/test_util.h"

namespace hintfs {
namespace {

// A little LSM life: a WAL, two flushes to L0, a compaction to L2.
std::string MakeTrace(const std::string& path) {
  std::unique_ptr<TraceWriter> w;
  EXPECT_TRUE(TraceWriter::Create(path, &w).ok());
  uint64_t t = 0;
  auto io = [&](TraceEvent::Type type, const std::string& p, uint64_t bytes) {
    TraceEvent e;
    e.type = type;
    e.time_ns = ++t * 1000;
    e.path = p;
    e.bytes = bytes;
    w->Append(e);
  };
  auto hint = [&](Hint::Kind kind, int64_t job, const std::string& p, int level, uint32_t count) {
    TraceEvent e;
    e.type = TraceEvent::Type::kHint;
    e.time_ns = ++t * 1000;
    e.hint.kind = kind;
    e.hint.job = job;
    e.hint.path = p;
    e.hint.level = level;
    e.hint.count = count;
    e.hint.reason = level == 0 ? "flush" : "compaction";
    w->Append(e);
  };
  io(TraceEvent::Type::kCreate, "/db/000003.log", 0);
  io(TraceEvent::Type::kAppend, "/db/000003.log", 3 << 20);
  for (int f = 0; f < 2; f++) {
    std::string table = "/db/00001" + std::to_string(f) + ".sst";
    hint(Hint::Kind::kFlushBegin, f, "", 0, 0);
    hint(Hint::Kind::kTableFileCreation, f, table, -1, 0);
    io(TraceEvent::Type::kCreate, table, 0);
    io(TraceEvent::Type::kAppend, table, 4 << 20);
    hint(Hint::Kind::kCompactionOutput, f, table, 0, 0);
  }
  hint(Hint::Kind::kCompactionBegin, 9, "", 2, 2);
  hint(Hint::Kind::kTableFileCreation, 9, "/db/000020.sst", -1, 0);
  io(TraceEvent::Type::kCreate, "/db/000020.sst", 0);
  io(TraceEvent::Type::kAppend, "/db/000020.sst", 8 << 20);
  io(TraceEvent::Type::kRead, "/db/000020.sst", 4096);
  w->Close();
  return path;
}

nlohmann::json ReplayJson(const std::string& trace, const std::string& policy) {
  std::unique_ptr<TraceReader> r;
  EXPECT_TRUE(TraceReader::Open(trace, &r).ok());
  ReplayOptions o;
  o.policy = policy;
  o.ssd_zones = 8;
  o.hdd_zones = 64;
  o.zone_capacity = 4 << 20;
  ReplayResult result;
  Status s = ReplayTrace(r.get(), o, &result, nullptr);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return nlohmann::json::parse(result.ToJson());
}

TEST(Replay, DeterministicAndFaithfulToThePolicy) {
  test::ScratchDir dir;
  std::string trace = MakeTrace(dir.File("t"));
  EXPECT_EQ(ReplayJson(trace, "hhzs").dump(), ReplayJson(trace, "hhzs").dump());
  auto b1 = ReplayJson(trace, "b1");
  EXPECT_EQ(b1["per_level"]["wal"]["fast_bytes"], 3u << 20);
  EXPECT_EQ(b1["per_level"]["L0"]["fast_bytes"], 8u << 20);
  EXPECT_EQ(b1["per_level"]["L2"]["slow_bytes"], 8u << 20);
  EXPECT_EQ(b1["read"]["slow_bytes"], 4096);
  auto fast = ReplayJson(trace, "all-fast");
  EXPECT_EQ(fast["per_level"]["L2"]["fast_bytes"], 8u << 20);
  auto slow = ReplayJson(trace, "all-slow");
  EXPECT_EQ(slow["written"]["fast_bytes"], 0);
  EXPECT_EQ(slow["ssd_utilization"], 0.0);
  EXPECT_GT(fast["ssd_utilization"].get<double>(), 0.0);
  EXPECT_GT(slow["modeled_seconds"].get<double>(), fast["modeled_seconds"].get<double>());
}

// An L2 table takes the SSD while it is empty; then a compaction into L1
// claims every slot, so capacity migration must move the table out.
std::string MakeMigrationTrace(const std::string& path) {
  std::unique_ptr<TraceWriter> w;
  EXPECT_TRUE(TraceWriter::Create(path, &w).ok());
  auto io = [&](uint64_t ms, TraceEvent::Type type, const std::string& p, uint64_t bytes) {
    TraceEvent e;
    e.type = type;
    e.time_ns = ms * 1000000;
    e.path = p;
    e.bytes = bytes;
    w->Append(e);
  };
  auto hint = [&](uint64_t ms, Hint::Kind kind, int64_t job, const std::string& p, int level, uint32_t count) {
    TraceEvent e;
    e.type = TraceEvent::Type::kHint;
    e.time_ns = ms * 1000000;
    e.hint.kind = kind;
    e.hint.time_ns = e.time_ns;
    e.hint.job = job;
    e.hint.path = p;
    e.hint.level = level;
    e.hint.count = count;
    e.hint.reason = "compaction";
    w->Append(e);
  };
  io(1, TraceEvent::Type::kCreate, "/db/000003.log", 0);
  io(2, TraceEvent::Type::kAppend, "/db/000003.log", 1 << 20);
  hint(3, Hint::Kind::kCompactionBegin, 1, "", 2, 1);
  hint(4, Hint::Kind::kTableFileCreation, 1, "/db/000100.sst", -1, 0);
  io(5, TraceEvent::Type::kCreate, "/db/000100.sst", 0);
  io(6, TraceEvent::Type::kAppend, "/db/000100.sst", 4 << 20);
  hint(7, Hint::Kind::kCompactionOutput, 1, "/db/000100.sst", 2, 0);
  hint(8, Hint::Kind::kCompactionEnd, 1, "", 2, 0);
  hint(10, Hint::Kind::kCompactionBegin, 2, "", 1, 7);
  // The WAL goes on; the planner sees the table sealed after a second, and
  // the move takes a second at 4 MiB/s.
  for (uint64_t ms = 100; ms <= 3000; ms += 100) io(ms, TraceEvent::Type::kAppend, "/db/000003.log", 4096);
  w->Close();
  return path;
}

TEST(Replay, CapacityMigrationMovesADeeperTableOffTheSsd) {
  test::ScratchDir dir;
  std::string trace = MakeMigrationTrace(dir.File("m"));
  auto with = ReplayJson(trace, "hhzs:table_bytes=4MiB,wal_budget=4MiB");
  EXPECT_EQ(with["per_level"]["L2"]["fast_bytes"], 4u << 20) << "written while the SSD was empty";
  EXPECT_EQ(with["migration"]["capacity"], 1);
  EXPECT_EQ(with["migration"]["to_slow_bytes"], 4u << 20);
  EXPECT_EQ(with["resident"]["L2"]["slow_bytes"], 4u << 20);
  EXPECT_EQ(with["resident"]["L2"]["fast_bytes"], 0);
  EXPECT_EQ(with.dump(), ReplayJson(trace, "hhzs:table_bytes=4MiB,wal_budget=4MiB").dump());
  auto without = ReplayJson(trace, "hhzs:table_bytes=4MiB,wal_budget=4MiB,migration=off");
  EXPECT_EQ(without["migration"]["capacity"], 0);
  EXPECT_EQ(without["resident"]["L2"]["fast_bytes"], 4u << 20);
  // Slower than the trace is long: the move never finishes.
  auto slow = ReplayJson(trace, "hhzs:table_bytes=4MiB,wal_budget=4MiB,migration_rate=1MiB");
  EXPECT_EQ(slow["migration"]["to_slow_bytes"], 0);
  EXPECT_EQ(slow["resident"]["L2"]["fast_bytes"], 4u << 20);
}

TEST(Replay, RejectsBadOptionsAndTraces) {
  test::ScratchDir dir;
  std::string trace = MakeTrace(dir.File("t"));
  std::unique_ptr<TraceReader> r;
  ASSERT_TRUE(TraceReader::Open(trace, &r).ok());
  ReplayOptions o;
  o.policy = "nope";
  ReplayResult result;
  EXPECT_TRUE(ReplayTrace(r.get(), o, &result, nullptr).IsNotFound());
  o.policy = "b2";
  o.fast_profile = "floppy";
  EXPECT_FALSE(ReplayTrace(r.get(), o, &result, nullptr).ok());
  TraceReader bad("not a trace at all, not even close to one");
  o.fast_profile = "zn540";
  Status s = ReplayTrace(&bad, o, &result, nullptr);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("at byte"), std::string::npos);
}

}  // namespace
}  // namespace hintfs
