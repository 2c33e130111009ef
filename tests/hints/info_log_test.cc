// The store's info LOG lines that name flushes and compactions.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hints/info_log.h"

namespace hintfs {
namespace {

using Kind = InfoLogEvent::Kind;

TEST(InfoLogTest, LevelDbsLinesNameFlushesAndCompactions) {
  InfoLogEvent e = ParseInfoLogLine("2026/11/29-22:03:55.884146 140507237840576 Compacting 2@0 + 8@1 files");
  EXPECT_EQ(e.kind, Kind::kCompactionBegin);
  EXPECT_EQ(e.input_tables, 2u);
  EXPECT_EQ(e.input_level, 0);
  EXPECT_EQ(e.lower_tables, 8u);
  EXPECT_EQ(e.lower_level, 1);
  EXPECT_EQ(e.output_level, 1);
  e = ParseInfoLogLine("2026/11/29-22:04:00.891097 140507237840576 Compacted 2@0 + 8@1 files => 9815506 bytes");
  EXPECT_EQ(e.kind, Kind::kCompactionEnd);
  e = ParseInfoLogLine("2026/11/29-22:04:00.891097 140507237840576 Compaction error: IO error: x");
  EXPECT_EQ(e.kind, Kind::kCompactionEnd);
  e = ParseInfoLogLine("2026/11/29-22:03:39.806564 140655123744448 Level-0 table #2722: started");
  EXPECT_EQ(e.kind, Kind::kFlushStarted);
  EXPECT_EQ(e.table_number, 2722u);
  // The line after the flush, and the summaries, are no events.
  for (const char* line : {"2026/11/29-22:03:39.8 1 Level-0 table #2722: 195046 bytes OK",
                           "2026/11/29-22:04:00.8 1 compacted to: files[ 0 10 57 159 0 0 0 ]",
                           "2026/11/29-22:04:00.8 1 Generated table #2724@0: 1834 keys, 1996542 bytes",
                           "2026/11/29-22:04:00.8 1 Moved #12 to level-2 2097152 bytes OK", ""}) {
    EXPECT_EQ(ParseInfoLogLine(line).kind, Kind::kNone) << line;
  }
}

TEST(InfoLogTest, RocksDbsFormsGiveTheOutputLevel) {
  InfoLogEvent e = ParseInfoLogLine("2026/11/29-22:03:55.884146 7f [db/compaction_job.cc:1995] [default] [JOB 3] "
                                    "Compacting 4@0 + 1@1 files to L1, score 1.00");
  EXPECT_EQ(e.kind, Kind::kCompactionBegin);
  EXPECT_EQ(e.output_level, 1);
  e = ParseInfoLogLine("x [default] [JOB 7] Compacting 3@0 files to L0, score 1.2");  // no second level
  EXPECT_EQ(e.kind, Kind::kNone);
  e = ParseInfoLogLine("x [default] [JOB 8] Compacting 1@2 + 3@4 files to L4, score 1.0");
  EXPECT_EQ(e.output_level, 4);
  e = ParseInfoLogLine("x [default] [JOB 2] Level-0 flush table #12: started");
  EXPECT_EQ(e.kind, Kind::kFlushStarted);
  EXPECT_EQ(e.table_number, 12u);
}

TEST(InfoLogTest, MalformedLinesAreNoEvents) {
  for (const char* line : {"Compacting ", "Compacting x@0 + 1@1 files", "Compacting 1@-1 + 1@0 files",
                           "Compacting 1@3 + 1@1 files", "Compacting 1@1 + 1@99 files", "Compacted 1@1",
                           "Level-0 table #: started", "Level-0 table #0: started", "Level-0 table #12 started"}) {
    EXPECT_EQ(ParseInfoLogLine(line).kind, Kind::kNone) << line;
  }
}

TEST(InfoLogTest, LinesAreWholeAcrossAppends) {
  std::string tail;
  std::vector<std::string> lines;
  auto collect = [&](std::string_view line) { lines.emplace_back(line); };
  ForEachInfoLogLine(&tail, "one\ntw", collect);
  ForEachInfoLogLine(&tail, "o\n", collect);
  ForEachInfoLogLine(&tail, "three", collect);
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "two"}));
  EXPECT_EQ(tail, "three");
  ForEachInfoLogLine(&tail, std::string(kMaxInfoLogLine, 'x'), collect);
  EXPECT_TRUE(tail.empty()) << "an overlong line is dropped";
  ForEachInfoLogLine(&tail, "xx\nfour\n", collect);
  EXPECT_EQ(lines.back(), "four");
}

TEST(InfoLogTest, TableNumbersComeFromFileNames) {
  EXPECT_EQ(TableNumberOf("/db/002722.ldb"), 2722u);
  EXPECT_EQ(TableNumberOf("000012.sst"), 12u);
  EXPECT_EQ(TableNumberOf("/db/LOG"), 0u);
  EXPECT_EQ(TableNumberOf("/db/.ldb"), 0u);
  EXPECT_EQ(TableNumberOf("/db/12"), 0u);
}

}  // namespace
}  // namespace hintfs
