// LevelTracker: its score of compactions the I/O pattern announced (reason
// "inferred") against what the MANIFEST records, and levels it follows.
#include "placement/level_tracker.h"

#include <gtest/gtest.h>

#include "hints/block_index_keeper.h"

namespace hintfs {
namespace {

Hint Make(Hint::Kind kind, int64_t job, const std::string& path, int level, const std::string& reason) {
  Hint h;
  h.kind = kind, h.job = job, h.path = path, h.level = level, h.reason = reason;
  return h;
}

TEST(LevelTracker, InferredCompactionsAreScoredAgainstTheManifest) {
  auto bus = std::make_shared<HintBus>();
  LevelTracker t(bus);
  const int64_t job = int64_t{1} << 48;
  Hint begin = Make(Hint::Kind::kCompactionBegin, job, "", 2, "inferred");
  begin.inputs = {{"/db/000011.ldb", 1}, {"/db/000012.ldb", 2}, {"/db/000013.ldb", 2}};
  begin.count = 3;
  bus->Publish(begin);
  EXPECT_TRUE(t.InRunningCompaction("/db/000012.ldb"));
  bus->Publish(Make(Hint::Kind::kTableFileCreation, job, "/db/000020.ldb", 2, "inferred"));
  bus->Publish(Make(Hint::Kind::kTableFileCreation, job, "/db/000021.ldb", 2, "inferred"));
  // An inferred output is no exact level.
  bus->Publish(Make(Hint::Kind::kCompactionOutput, job, "/db/000020.ldb", 2, "inferred"));
  EXPECT_EQ(t.KnownLevels().count("/db/000020.ldb"), 0u);
  // The MANIFEST edit: outputs (one at another level, one nobody announced),
  // then the inputs it drops; the inference ends its job after the first.
  bus->Publish(Make(Hint::Kind::kCompactionOutput, -1, "/db/000020.ldb", 2, "compaction"));
  bus->Publish(Make(Hint::Kind::kCompactionOutput, -1, "/db/000021.ldb", 3, "compaction"));
  bus->Publish(Make(Hint::Kind::kCompactionOutput, -1, "/db/000022.ldb", 2, "compaction"));
  bus->Publish(Make(Hint::Kind::kFileDeleted, -1, "/db/000011.ldb", 1, ""));
  bus->Publish(Make(Hint::Kind::kCompactionEnd, job, "", 2, "inferred"));
  EXPECT_FALSE(t.InRunningCompaction("/db/000012.ldb"));
  bus->Publish(Make(Hint::Kind::kFileDeleted, -1, "/db/000012.ldb", 2, ""));
  // 000013 was not an input after all; the next hint settles it.
  bus->Publish(Make(Hint::Kind::kTableFileCreation, 7, "/db/000030.ldb", 0, "flush"));
  LevelTracker::CompactionScore s = t.compaction_score();
  EXPECT_EQ(s.inferred, 1u);
  EXPECT_EQ(s.outputs_right, 1u);
  EXPECT_EQ(s.outputs_wrong, 1u);
  EXPECT_EQ(s.outputs_missed, 1u);
  EXPECT_EQ(s.inputs_right, 2u);
  EXPECT_EQ(s.inputs_wrong, 1u);
  bus->Publish(Make(Hint::Kind::kFileDeleted, -1, "/db/000014.ldb", 2, ""));  // an input nobody named
  bus->Publish(Make(Hint::Kind::kFileDeleted, -1, "/db/000015.log", -1, ""));  // an unlink
  EXPECT_EQ(t.compaction_score().inputs_missed, 1u);
  EXPECT_EQ(t.Stats()["inferred_inputs_wrong"], 1u);
}

// A listener tells of a trivial move only in the compaction's end: its
// outputs are its inputs, at the level they are now at.
TEST(LevelTracker, FollowsTrivialMovesAListenerReports) {
  auto bus = std::make_shared<HintBus>();
  LevelTracker t(bus);
  bus->Publish(Make(Hint::Kind::kTableFileCreation, 3, "/db/000040.sst", 1, "compaction"));
  ASSERT_EQ(t.LevelOf("/db/000040.sst", 0), 1);
  Hint end = Make(Hint::Kind::kCompactionEnd, 4, "", 2, "compaction");
  end.outputs = {{"/db/000040.sst", 2}};
  bus->Publish(end);
  EXPECT_EQ(t.LevelOf("/db/000040.sst", 0), 2);
  EXPECT_EQ(t.KnownLevels().at("/db/000040.sst"), 2);
}

// The MANIFEST's records of RocksDB's tables carry their keys' sequence
// numbers; LevelDB's do not, and a deleted table's are forgotten.
TEST(LevelTracker, KeepsTheSequenceNumbersTheManifestRecorded) {
  auto bus = std::make_shared<HintBus>();
  LevelTracker t(bus);
  Hint rocks = Make(Hint::Kind::kCompactionOutput, -1, "/db/000050.sst", 3, "compaction");
  rocks.smallest_seqno = 255795;
  rocks.largest_seqno = 399364;
  bus->Publish(rocks);
  bus->Publish(Make(Hint::Kind::kCompactionOutput, -1, "/db/000051.ldb", 3, "compaction"));
  uint64_t oldest = 0, newest = 0;
  ASSERT_TRUE(t.SequenceRange("/db/000050.sst", &oldest, &newest));
  EXPECT_EQ(oldest, 255795u);
  EXPECT_EQ(newest, 399364u);
  EXPECT_FALSE(t.SequenceRange("/db/000051.ldb", &oldest, &newest));
  bus->Publish(Make(Hint::Kind::kFileDeleted, -1, "/db/000050.sst", 3, ""));
  EXPECT_FALSE(t.SequenceRange("/db/000050.sst", &oldest, &newest));
}

// Without a hint naming its level, a file's write-life-time hint stands in
// for it; a block index file carries its table's hint but is no table.
TEST(LevelTracker, GuessesLevelsFromHintsButNotForBlockIndexFiles) {
  auto bus = std::make_shared<HintBus>();
  LevelTracker t(bus);
  EXPECT_EQ(t.LevelOf("/db/000050.sst", 3), 0);
  EXPECT_EQ(t.LevelOf("/db/000051.sst", 5), 3);
  EXPECT_EQ(t.LevelOf(std::string(kBlockIndexDirectory) + "/0000000000000032", 3), LevelTracker::kUnknown);
  EXPECT_EQ(t.LevelOf(std::string(kBlockIndexDirectory) + "/0000000000000033", 5), LevelTracker::kUnknown);
}

}  // namespace
}  // namespace hintfs
