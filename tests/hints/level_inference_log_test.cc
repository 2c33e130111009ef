// Level inference from a store's info LOG (LevelDB's), with a clock the
// test moves: the LOG's word decides where reads would mislead.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hints/level_inference.h"
#include "tests/hints/hints_of_kind.h"

namespace hintfs {
namespace {

class LevelInferenceLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bus_->Subscribe([this](const Hint& h) {
      if (h.reason == "inferred") inferred_.push_back(h);
    });
    inference_ = std::make_unique<LevelInference>(bus_, nullptr, [this] { return now_; });
    Recorded("/db/000010.ldb", 0, "a", "z");
    Recorded("/db/000011.ldb", 1, "a", "h");
    Recorded("/db/000012.ldb", 1, "i", "z");
    Recorded("/db/000013.ldb", 2, "a", "d");
    Recorded("/db/000014.ldb", 2, "e", "k");
    Recorded("/db/000015.ldb", 2, "l", "z");
  }

  // A table the MANIFEST recorded with its key range.
  void Recorded(const std::string& path, int level, const std::string& smallest, const std::string& largest) {
    Hint h;
    h.kind = Hint::Kind::kCompactionOutput;
    h.path = path, h.level = level, h.reason = "compaction";
    h.smallest_key = smallest, h.largest_key = largest;
    bus_->Publish(h);
  }

  // A read of a table's first 64 KiB: a compaction's first, or a lookup's
  // with the kernel's readahead around its block.
  void Read(const std::string& path) {
    now_ += 1000;
    inference_->OnRead(path, 0, 65536, 0);
  }

  void Log(const std::string& text) {
    now_ += 1000;
    inference_->OnAppend("/db/LOG", text);
  }

  // Creates a table as LevelDB does (no lifetime hint) and returns the
  // level published at its first append.
  int NewTable(const std::string& path) {
    now_ += 1000;
    inference_->OnCreate(path, ZoneRole::kData);
    inferred_.clear();
    inference_->OnAppend(path, "first bytes");
    for (const Hint& h : inferred_) {
      if (h.kind == Hint::Kind::kTableFileCreation) return h.level;
    }
    return -100;
  }

  std::vector<Hint> Of(Hint::Kind kind) const { return test::HintsOfKind(inferred_, kind); }

  static std::vector<std::string> Paths(const std::vector<HintFile>& files) {
    std::vector<std::string> paths;
    for (const HintFile& f : files) paths.push_back(f.path);
    return paths;
  }

  uint64_t now_ = 1000000000;
  std::shared_ptr<HintBus> bus_ = std::make_shared<HintBus>();
  std::unique_ptr<LevelInference> inference_;
  std::vector<Hint> inferred_;
};

// On the mount the kernel may serve a compaction's L0 input from its page
// cache: only L1 is seen read, which the reads alone take for L1 -> L2.
TEST_F(LevelInferenceLogTest, ALoggedCompactionWritesTheLevelTheLogSays) {
  Log("2026/11/29-22:03:55.884146 140 Compacting 1@0 + 2@1 files\n");
  for (int i = 0; i < 4; i++) inference_->OnRead("/db/000011.ldb", i * 4096ull, 4096, 0);
  EXPECT_EQ(NewTable("/db/000020.ldb"), 1);
  std::vector<Hint> begin = Of(Hint::Kind::kCompactionBegin);
  ASSERT_EQ(begin.size(), 1u);
  EXPECT_EQ(begin[0].level, 1);
  EXPECT_EQ(begin[0].count, 3u);
  EXPECT_EQ(Paths(begin[0].inputs),
            (std::vector<std::string>{"/db/000010.ldb", "/db/000011.ldb", "/db/000012.ldb"}));
  // The next output joins it; a flush the LOG announces meanwhile does not.
  EXPECT_EQ(NewTable("/db/000021.ldb"), 1);
  EXPECT_TRUE(Of(Hint::Kind::kCompactionBegin).empty());
  Log("2026/11/29-22:03:56.1 140 Level-0 table #22: started\n");
  EXPECT_EQ(NewTable("/db/000022.ldb"), 0);
  EXPECT_LT(Of(Hint::Kind::kTableFileCreation)[0].job, 0);
  // Its end line ends the job.
  inferred_.clear();
  Log("2026/11/29-22:03:57.1 140 Compacted 1@0 + 2@1 files => 4000000 bytes\n");
  ASSERT_EQ(Of(Hint::Kind::kCompactionEnd).size(), 1u);
  EXPECT_EQ(Of(Hint::Kind::kCompactionEnd)[0].job, begin[0].job);
  EXPECT_EQ(Of(Hint::Kind::kCompactionOutput).size(), 1u) << "its last output";
}

// Above L0 the upper input is the table first read from its start after
// the line (a lookup read before it is no input), and the lower inputs
// are those its key range meets, read yet or not.
TEST_F(LevelInferenceLogTest, TheUpperInputIsTheTableReadFromItsStartAfterTheLine) {
  Read("/db/000011.ldb");  // a lookup, before
  Log("x 1 Compacting 1@1 + 2@2 files\n");
  Read("/db/000012.ldb");
  Read("/db/000015.ldb");
  Read("/db/000011.ldb");  // a lookup, after
  EXPECT_EQ(NewTable("/db/000030.ldb"), 2);
  std::vector<Hint> begin = Of(Hint::Kind::kCompactionBegin);
  ASSERT_EQ(begin.size(), 1u);
  EXPECT_EQ(Paths(begin[0].inputs),
            (std::vector<std::string>{"/db/000012.ldb", "/db/000014.ldb", "/db/000015.ldb"}));
  EXPECT_EQ(begin[0].count, 3u);
  // A new compaction line before an end line ends the first job.
  inferred_.clear();
  Log("x 1 Compacting 1@2 + 0@3 files\n");
  EXPECT_EQ(Of(Hint::Kind::kCompactionEnd).size(), 1u);
  EXPECT_EQ(NewTable("/db/000031.ldb"), 3);
}

// LevelDB widens a compaction's upper inputs to every table of their level
// within the range of all its inputs when no more tables below join; the
// page cache may serve all reads but the first one's, and the LOG's count
// says the widened set is meant.
TEST_F(LevelInferenceLogTest, UpperInputsWidenToTheLogsCount) {
  Recorded("/db/000016.ldb", 3, "a", "k");
  Recorded("/db/000017.ldb", 3, "l", "z");
  Log("x 1 Compacting 2@2 + 1@3 files\n");
  Read("/db/000014.ldb");
  EXPECT_EQ(NewTable("/db/000030.ldb"), 3);
  std::vector<Hint> begin = Of(Hint::Kind::kCompactionBegin);
  ASSERT_EQ(begin.size(), 1u);
  EXPECT_EQ(Paths(begin[0].inputs),
            (std::vector<std::string>{"/db/000013.ldb", "/db/000014.ldb", "/db/000016.ldb"}));
  // Where the tables in range are not the LOG's count, only those read.
  Log("x 1 Compacted 2@2 + 1@3 files => 1 bytes\n");
  Log("x 1 Compacting 3@2 + 1@3 files\n");
  Read("/db/000014.ldb");
  EXPECT_EQ(NewTable("/db/000031.ldb"), 3);
  begin = Of(Hint::Kind::kCompactionBegin);
  ASSERT_EQ(begin.size(), 1u);
  EXPECT_EQ(Paths(begin[0].inputs), (std::vector<std::string>{"/db/000014.ldb", "/db/000016.ldb"}));
}

// Lines split over appends count once whole; without a LOG line the reads
// decide as before, and a table never announced is no flush of the LOG's.
TEST_F(LevelInferenceLogTest, SplitLinesCountAndUnloggedTablesFallBackToReads) {
  Log("x 1 Level-0 tab");
  Log("le #40: started\nx 1 Compac");
  EXPECT_EQ(NewTable("/db/000040.ldb"), 0);
  Log("ting 2@0 + 1@1 files\n");
  EXPECT_EQ(NewTable("/db/000041.ldb"), 1);
  Log("x 1 Compacted 2@0 + 1@1 files => 1 bytes\n");
  for (int i = 0; i < 4; i++) inference_->OnRead("/db/000013.ldb", i * 4096ull, 4096, 0);
  EXPECT_EQ(NewTable("/db/000042.ldb"), 3) << "L2 read: L2 -> L3, from the reads";
  EXPECT_EQ(Of(Hint::Kind::kCompactionBegin).size(), 1u);
}

}  // namespace
}  // namespace hintfs
