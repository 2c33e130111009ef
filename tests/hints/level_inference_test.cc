// Level inference from the I/O pattern, with a clock the test moves.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "hints/file_tag.h"
#include "hints/level_inference.h"
#include "tests/hints/hints_of_kind.h"

namespace hintfs {
namespace {

class LevelInferenceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bus_->Subscribe([this](const Hint& h) {
      if (h.reason == "inferred") inferred_.push_back(h);
    });
    inference_ = std::make_unique<LevelInference>(bus_, nullptr, [this] { return now_; });
    // What the MANIFEST said about the tables already there.
    Known("/db/000010.sst", 0);
    Known("/db/000011.sst", 1);
    Known("/db/000012.sst", 2);
  }

  void Known(const std::string& path, int level) {
    Hint h;
    h.kind = Hint::Kind::kTableFileCreation;
    h.path = path;
    h.level = level;
    h.reason = "compaction";
    bus_->Publish(h);
  }

  // Reads path from start to end in 4 KiB pieces, as a compaction does.
  void Scan(const std::string& path, int reads = 4) {
    for (int i = 0; i < reads; i++) inference_->OnRead(path, i * 4096ull, 4096, 0);
  }

  // Creates a table the way a store does and returns the level published
  // at its first append (-100: none).
  int NewTable(const std::string& path, int lifetime) {
    inference_->OnCreate(path, ZoneRole::kData);
    if (lifetime) inference_->OnLifetimeHint(path, lifetime);
    return FirstBytes(path);
  }

  // The first bytes of a table created earlier reach us; the level published.
  int FirstBytes(const std::string& path) {
    inferred_.clear();
    inference_->OnAppend(path, "first bytes");
    inference_->OnAppend(path, "more bytes");  // one guess per table
    std::vector<Hint> created;
    for (const Hint& h : inferred_) {
      if (h.kind == Hint::Kind::kTableFileCreation) created.push_back(h);
    }
    if (created.empty()) return -100;
    EXPECT_EQ(created.size(), 1u);
    EXPECT_EQ(created[0].path, path);
    return created[0].level;
  }

  // The inferred hints of kind published by the last NewTable.
  std::vector<Hint> Of(Hint::Kind kind) const { return test::HintsOfKind(inferred_, kind); }

  uint64_t now_ = 1000000000;
  std::shared_ptr<HintBus> bus_ = std::make_shared<HintBus>();
  std::unique_ptr<LevelInference> inference_;
  std::vector<Hint> inferred_;
};

TEST_F(LevelInferenceTest, NoScanMeansAFlush) {
  EXPECT_EQ(NewTable("/db/000020.sst", 3), 0);  // RocksDB "medium"
  EXPECT_EQ(NewTable("/db/000021.ldb", 0), 0);  // LevelDB: no lifetime hint
  EXPECT_EQ(NewTable("/db/000022.sst", 5), 3);  // "extreme" is L3 or deeper
  EXPECT_EQ(NewTable("/db/OPTIONS-000005", 3), -100) << "not a table";
}

TEST_F(LevelInferenceTest, AScanOfL0MakesAMediumTableL1) {
  Scan("/db/000010.sst");
  Scan("/db/000011.sst");
  EXPECT_EQ(NewTable("/db/000030.sst", 3), 1);
  EXPECT_EQ(NewTable("/db/000031.sst", 0), 1);  // shallowest input + 1
  // Once the scan is over (no read for longer than the window), a medium
  // table is a flush again.
  now_ += 2 * LevelInference::kScanWindowNs;
  EXPECT_EQ(NewTable("/db/000032.sst", 3), 0);
}

TEST_F(LevelInferenceTest, DeeperCompactionsAndFlushesDuringThem) {
  Scan("/db/000011.sst");
  Scan("/db/000012.sst");
  EXPECT_EQ(NewTable("/db/000040.ldb", 0), 2);  // L1 + L2 inputs write L2
  EXPECT_EQ(NewTable("/db/000041.sst", 3), 0) << "medium while L1 -> L2 runs is a flush";
  EXPECT_EQ(NewTable("/db/000042.sst", 4), 2);
  now_ += 2 * LevelInference::kScanWindowNs;
  Known("/db/000050.sst", 4);
  Scan("/db/000050.sst");
  EXPECT_EQ(NewTable("/db/000051.sst", 5), 5);
}

// Without hints nothing else says a store removed a log (placement counts
// the live ones); a table's deletion is left to the MANIFEST, which knows
// its level.
TEST_F(LevelInferenceTest, DeletedLogsAreAnnouncedAndTablesLeftToTheManifest) {
  inference_->OnCreate("/db/000007.log", ZoneRole::kData);
  inference_->OnDelete("/db/000007.log");
  inference_->OnDelete("/db/000010.sst");
  std::vector<Hint> deleted = Of(Hint::Kind::kFileDeleted);
  ASSERT_EQ(deleted.size(), 1u);
  EXPECT_EQ(deleted[0].path, "/db/000007.log");
}

TEST_F(LevelInferenceTest, RandomReadsAndDeletedTablesAreNoScan) {
  // A table opened and read at random (index, filter, point lookups).
  for (uint64_t off : {9000000ull, 4096ull, 8192000ull, 1228800ull, 0ull, 6553600ull}) {
    inference_->OnRead("/db/000010.sst", off, 4096, 0);
  }
  EXPECT_EQ(NewTable("/db/000060.sst", 3), 0);
  Scan("/db/000010.sst");
  Hint gone;
  gone.kind = Hint::Kind::kFileDeleted;
  gone.path = "/db/000010.sst";
  bus_->Publish(gone);
  EXPECT_EQ(NewTable("/db/000061.sst", 3), 0);
}

TEST_F(LevelInferenceTest, ASmallTableReadWholeInTwoRequestsIsAScan) {
  // Through the kernel a small table arrives in one or two large reads: too
  // few for a run, but front to back over (nearly) the bytes written to it.
  inference_->OnCreate("/db/000030.ldb", ZoneRole::kData);
  inference_->OnAppend("/db/000030.ldb", std::string(200000, 't'));
  Known("/db/000030.ldb", 0);
  now_ += 1000;
  inference_->OnRead("/db/000030.ldb", 0, 131072, 0);
  EXPECT_EQ(NewTable("/db/000031.ldb", 3), 0);  // half read: not yet a scan, a flush
  inference_->OnRead("/db/000030.ldb", 131072, 68928, 0);
  EXPECT_EQ(NewTable("/db/000032.ldb", 3), 1);  // L0 input: the output is L1
  // A lookup that reads one block at the front of a table is no scan.
  now_ += 2 * LevelInference::kScanWindowNs;
  inference_->OnCreate("/db/000033.ldb", ZoneRole::kData);
  inference_->OnAppend("/db/000033.ldb", std::string(200000, 't'));
  Known("/db/000033.ldb", 0);
  inference_->OnRead("/db/000033.ldb", 0, 4096, 0);
  inference_->OnRead("/db/000033.ldb", 190000, 10000, 0);
  EXPECT_EQ(NewTable("/db/000034.ldb", 3), 0);
}

// LevelDB merges its L0 tables block by block: its first output may begin
// after one block of each. Without lifetime hints and without a log switch
// (so no flush), reads from the tables' first bytes name the inputs.
TEST_F(LevelInferenceTest, WithoutHintsReadsFromTheFirstByteStartACompaction) {
  Known("/db/000070.ldb", 0);
  Known("/db/000071.ldb", 0);
  inference_->OnRead("/db/000070.ldb", 20000, 500, 0);  // the index, at the end
  inference_->OnRead("/db/000070.ldb", 0, 880, 0);
  inference_->OnRead("/db/000071.ldb", 0, 870, 0);
  EXPECT_EQ(NewTable("/db/000072.ldb", 0), 1);
  ASSERT_EQ(Of(Hint::Kind::kCompactionBegin).size(), 1u);
  EXPECT_EQ(Of(Hint::Kind::kCompactionBegin)[0].count, 2u);
  // After a log switch the next table is the flush, whatever was read.
  inference_->OnCreate("/db/000073.log", ZoneRole::kData);
  inference_->OnRead("/db/000070.ldb", 0, 880, 0);
  EXPECT_EQ(NewTable("/db/000074.ldb", 0), 0);
}

TEST_F(LevelInferenceTest, WithoutLifetimeHintsAFlushGoesWhereTheLastOneWent) {
  Hint h;  // LevelDB put its last flushed table straight into L2
  h.kind = Hint::Kind::kTableFileCreation;
  h.path = "/db/000080.ldb";
  h.level = 2;
  h.reason = "flush";
  bus_->Publish(h);
  EXPECT_EQ(NewTable("/db/000081.ldb", 0), 2);
  EXPECT_EQ(NewTable("/db/000082.sst", 3), 0) << "RocksDB flushes always write L0";
  Scan("/db/000011.sst");
  EXPECT_EQ(NewTable("/db/000083.ldb", 0), 2);
}

TEST_F(LevelInferenceTest, TheFirstTableAfterALogSwitchIsTheFlush) {
  Scan("/db/000010.sst");  // an L0 -> L1 compaction runs
  inference_->OnCreate("/db/000090.log", kWalClass);
  EXPECT_EQ(NewTable("/db/000091.sst", 3), 0) << "the flush of the old log's memtable";
  EXPECT_EQ(NewTable("/db/000092.sst", 3), 1) << "the compaction's output";
  inference_->OnCreate("/db/000093.log", kWalClass);
  EXPECT_EQ(NewTable("/db/000094.sst", 4), 2) << "a long-lived table is no flush";
  EXPECT_EQ(NewTable("/db/000095.ldb", 0), 0) << "the flush, still pending";
}

TEST_F(LevelInferenceTest, NoGuessForATableTheStoreAnnounced) {
  Known("/db/000070.sst", 2);  // a listener's hint before the first byte
  inference_->OnCreate("/db/000070.sst", ZoneRole::kData);
  EXPECT_EQ(NewTable("/db/000070.sst", 3), -100);
}

// A table the MANIFEST recorded with its key range.
void Recorded(HintBus* bus, const std::string& path, int level, const std::string& smallest,
              const std::string& largest) {
  Hint h;
  h.kind = Hint::Kind::kCompactionOutput;
  h.path = path, h.level = level, h.reason = "compaction";
  h.smallest_key = smallest, h.largest_key = largest;
  bus->Publish(h);
}

TEST_F(LevelInferenceTest, ACompactionIsAnnouncedBeforeItsFirstOutput) {
  Recorded(bus_.get(), "/db/000013.ldb", 1, "a", "m");
  Recorded(bus_.get(), "/db/000014.ldb", 2, "a", "f");
  Recorded(bus_.get(), "/db/000015.ldb", 2, "g", "p");
  Recorded(bus_.get(), "/db/000016.ldb", 2, "q", "z");
  Scan("/db/000013.ldb");
  Scan("/db/000014.ldb");  // the store reads the next L2 table only later
  EXPECT_EQ(NewTable("/db/000040.ldb", 0), 2);
  std::vector<Hint> begin = Of(Hint::Kind::kCompactionBegin);
  ASSERT_EQ(begin.size(), 1u);
  ASSERT_EQ(inferred_[0].kind, Hint::Kind::kCompactionBegin) << "before the output's creation";
  EXPECT_EQ(begin[0].level, 2);
  EXPECT_GE(begin[0].job, LevelInference::kInferredJobBase);
  std::vector<std::string> inputs;
  for (const HintFile& f : begin[0].inputs) inputs.push_back(f.path);
  // 000015 overlaps 000013's range; 000016 does not.
  EXPECT_EQ(inputs, (std::vector<std::string>{"/db/000013.ldb", "/db/000014.ldb", "/db/000015.ldb"}));
  EXPECT_EQ(begin[0].count, 3u);
  EXPECT_EQ(Of(Hint::Kind::kTableFileCreation)[0].job, begin[0].job);
  // The next output joins the job, and the first is then written.
  Scan("/db/000015.ldb");
  EXPECT_EQ(NewTable("/db/000041.ldb", 0), 2);
  EXPECT_TRUE(Of(Hint::Kind::kCompactionBegin).empty());
  ASSERT_EQ(Of(Hint::Kind::kCompactionOutput).size(), 1u);
  EXPECT_EQ(Of(Hint::Kind::kCompactionOutput)[0].path, "/db/000040.ldb");
  EXPECT_EQ(Of(Hint::Kind::kTableFileCreation)[0].job, begin[0].job);
  // The store commits the compaction: the MANIFEST drops its inputs, which
  // may have been another compaction's (the job goes on), then records its
  // outputs, which ends it.
  inferred_.clear();
  Hint dropped;
  dropped.kind = Hint::Kind::kFileDeleted, dropped.path = "/db/000013.ldb", dropped.level = 1;
  bus_->Publish(dropped);
  EXPECT_TRUE(Of(Hint::Kind::kCompactionEnd).empty());
  Recorded(bus_.get(), "/db/000040.ldb", 2, "a", "h");
  ASSERT_EQ(Of(Hint::Kind::kCompactionOutput).size(), 1u);
  EXPECT_EQ(Of(Hint::Kind::kCompactionOutput)[0].path, "/db/000041.ldb");
  ASSERT_EQ(Of(Hint::Kind::kCompactionEnd).size(), 1u);
  EXPECT_EQ(Of(Hint::Kind::kCompactionEnd)[0].job, begin[0].job);
  // A flush announces no compaction.
  now_ += 2 * LevelInference::kScanWindowNs;
  EXPECT_EQ(NewTable("/db/000042.ldb", 0), 0);
  EXPECT_TRUE(Of(Hint::Kind::kCompactionBegin).empty());
}

TEST_F(LevelInferenceTest, ACompactionThatGoesQuietEnds) {
  Scan("/db/000010.sst");
  EXPECT_EQ(NewTable("/db/000050.sst", 3), 1);
  ASSERT_EQ(Of(Hint::Kind::kCompactionBegin).size(), 1u);
  int64_t job = Of(Hint::Kind::kCompactionBegin)[0].job;
  // Without key ranges the inputs are the tables being scanned.
  EXPECT_EQ(Of(Hint::Kind::kCompactionBegin)[0].inputs.size(), 1u);
  now_ += LevelInference::kJobIdleNs + 1;
  EXPECT_EQ(NewTable("/db/000051.sst", 3), 0);
  ASSERT_EQ(Of(Hint::Kind::kCompactionEnd).size(), 1u);
  EXPECT_EQ(Of(Hint::Kind::kCompactionEnd)[0].job, job);
}

// Two stores on one mount: one's compaction says nothing about the other.
TEST_F(LevelInferenceTest, AnotherStoresScansDoNotCount) {
  Known("/other/000010.ldb", 1);
  Scan("/other/000010.ldb");
  EXPECT_EQ(NewTable("/db/000090.sst", 3), 0);
  EXPECT_TRUE(Of(Hint::Kind::kCompactionBegin).empty());
  EXPECT_EQ(NewTable("/other/000091.ldb", 0), 2);
}

// On the mount a table's first bytes may arrive long after its creation
// (the kernel's write-back): a compaction output created before later log
// switches is not their flush, and the reads under way at its creation
// name its inputs.
TEST_F(LevelInferenceTest, ATableIsJudgedByWhatRanWhenItWasCreated) {
  inference_->OnCreate("/db/000100.log", ZoneRole::kData);
  EXPECT_EQ(NewTable("/db/000101.ldb", 0), 0);  // the flush of that switch
  Scan("/db/000010.sst");                      // an L0 -> L1 compaction begins
  inference_->OnCreate("/db/000102.ldb", ZoneRole::kData);  // its output
  now_ += 2 * LevelInference::kScanWindowNs;     // its bytes are late
  inference_->OnCreate("/db/000103.log", ZoneRole::kData);  // meanwhile a log switch
  EXPECT_EQ(FirstBytes("/db/000102.ldb"), 1);
  ASSERT_EQ(Of(Hint::Kind::kCompactionBegin).size(), 1u);
  EXPECT_EQ(NewTable("/db/000104.ldb", 0), 0);  // the switch's flush
}

// A RocksDB table's first bytes: its first data block's first entry, the
// user key and its 8-byte tag (sequence number, value type 1), a value.
std::string FirstEntry(const std::string& user_key, uint64_t sequence) {
  std::string e;
  e.push_back(0);  // shared with nothing
  e.push_back(static_cast<char>(user_key.size() + 8));
  e.push_back(1);  // value length
  e += user_key;
  uint64_t tag = sequence << 8 | 1;
  for (int i = 0; i < 8; i++) e.push_back(static_cast<char>(tag >> (8 * i)));
  return e + "v";
}

class SequenceNumberTest : public LevelInferenceTest {
 protected:
  // A table the MANIFEST recorded with its key and number ranges.
  void Recorded(const std::string& path, int level, const std::string& smallest, const std::string& largest,
                uint64_t smallest_seqno, uint64_t largest_seqno) {
    Hint h;
    h.kind = Hint::Kind::kCompactionOutput;
    h.path = path, h.level = level, h.reason = "compaction";
    h.smallest_key = smallest, h.largest_key = largest;
    h.smallest_seqno = smallest_seqno, h.largest_seqno = largest_seqno;
    bus_->Publish(h);
  }
  // A new table (no lifetime hint: the mount) whose first entry is key,
  // sequence; the level published.
  int NewTableStarting(const std::string& path, const std::string& key, uint64_t sequence) {
    inference_->OnCreate(path, ZoneRole::kData);
    inferred_.clear();
    inference_->OnAppend(path, FirstEntry(key, sequence));
    std::vector<Hint> created = Of(Hint::Kind::kTableFileCreation);
    return created.size() == 1 ? created[0].level : -100;
  }

  void SetUp() override {
    LevelInferenceTest::SetUp();
    Recorded("/r/000100.sst", 0, "a", "z", 101, 200);
    Recorded("/r/000101.sst", 1, "a", "z", 1, 100);
    Recorded("/r/000102.sst", 2, "ca", "cz", 1, 50);
    Recorded("/r/000103.sst", 3, "cb", "cx", 1, 40);
  }
};

// Keys numbered above every recorded table's are a flush's, however many
// flushes follow one log switch (RocksDB merges memtables) or none.
TEST_F(SequenceNumberTest, OnlyAFlushWritesKeysNewerThanEveryTable) {
  EXPECT_EQ(NewTableStarting("/r/000110.sst", "m", 201), 0);
  EXPECT_EQ(NewTableStarting("/r/000111.sst", "b", 350), 0) << "a second flush, no log switch";
  inference_->OnCreate("/r/000112.log", kWalClass);
  EXPECT_EQ(NewTableStarting("/r/000113.sst", "m", 150), 1)
      << "created after a log switch, but its keys are L0's: a compaction's";
  EXPECT_EQ(NewTableStarting("/r/000114.sst", "q", 400), 0);
  EXPECT_EQ(NewTable("/r/000115.sst", 0), 0) << "no entry to read and nothing scanned: a flush";
}

// L0 -> L1 and L2 -> L3 at once: an output goes below the compaction whose
// tables hold its first key and number, the narrowest-ranged one if several.
TEST_F(SequenceNumberTest, TwoCompactionsAtOnceAreToldApartByTheirKeys) {
  for (const char* t : {"/r/000100.sst", "/r/000101.sst", "/r/000102.sst", "/r/000103.sst"}) Scan(t);
  EXPECT_EQ(NewTableStarting("/r/000120.sst", "m", 150), 1) << "an L0 key";
  EXPECT_EQ(NewTableStarting("/r/000121.sst", "m", 30), 1) << "an L1 key outside L2's range";
  EXPECT_EQ(NewTableStarting("/r/000122.sst", "cc", 30), 3) << "in L1's ranges too, but L2's are narrower";
  EXPECT_EQ(NewTableStarting("/r/000123.sst", "cc", 150), 1) << "numbered as L0's keys, which L2 holds none of";
  EXPECT_EQ(NewTableStarting("/r/000124.sst", "cc", 0), 3) << "the bottom level's keys are numbered 0";
  EXPECT_EQ(NewTableStarting("/r/000125.sst", "zz", 30), 1) << "held by none: below the shallowest";
  // Announced as two compactions.
  EXPECT_EQ(NewTableStarting("/r/000126.sst", "cd", 20), 3);
  std::set<int> levels;
  for (const Hint& h : Of(Hint::Kind::kCompactionOutput)) levels.insert(h.level);
  EXPECT_EQ(levels, std::set<int>{3}) << "the previous L3 output, written";
}

// L1 busy with L1 -> L2, RocksDB compacts L0 into itself: levels are paired
// from the deepest read up, L1 with L2, and L0 left alone writes L0.
TEST_F(SequenceNumberTest, L0LeftAloneIsCompactedIntoItself) {
  Scan("/r/000101.sst");  // L1 -> L2
  Scan("/r/000102.sst");
  Scan("/r/000100.sst");  // L0 -> L0
  EXPECT_EQ(NewTableStarting("/r/000130.sst", "m", 150), 0);
  std::vector<Hint> begun = Of(Hint::Kind::kCompactionBegin);
  ASSERT_EQ(begun.size(), 1u);
  EXPECT_EQ(begun[0].level, 0);
  ASSERT_EQ(begun[0].inputs.size(), 1u);
  EXPECT_EQ(begun[0].inputs[0].path, "/r/000100.sst");
  EXPECT_EQ(NewTableStarting("/r/000131.sst", "cc", 30), 2) << "the L1 -> L2 compaction's";
  EXPECT_EQ(NewTableStarting("/r/000132.sst", "d", 170), 0) << "the L0 compaction's again";
}

// A level read alone below L0 is a compaction's output level whose inputs
// above were read at its start and are read no more.
TEST_F(SequenceNumberTest, ALevelReadAloneIsAnOutputLevel) {
  Scan("/r/000103.sst");
  EXPECT_EQ(NewTableStarting("/r/000140.sst", "cc", 10), 3);
}

// Opening a table reads its footer, index and filter from its end,
// backwards, and perhaps its first block: no scan, so the L2 table opened
// does not pair with L1 and leave L0 to compact into itself.
TEST_F(SequenceNumberTest, ATableBeingOpenedIsNoCompactionsInput) {
  Scan("/r/000100.sst");
  Scan("/r/000101.sst");
  for (uint64_t off : {1985305ull, 1985217ull, 1984323ull, 1974648ull}) inference_->OnRead("/r/000102.sst", off, 90, 0);
  inference_->OnRead("/r/000102.sst", 0, 4132, 0);
  EXPECT_EQ(NewTableStarting("/r/000150.sst", "m", 150), 1);
}

// A compaction reads an input whole at its start and may run for seconds:
// a live table scanned that long ago is still one of its inputs (the store
// deletes it when it commits the compaction).
TEST_F(SequenceNumberTest, AnInputReadWholeSecondsAgoStillCounts) {
  Scan("/r/000101.sst");  // L1, read at the start of L0 -> L1
  now_ += 5 * LevelInference::kScanWindowNs;
  Scan("/r/000100.sst");  // L0, still being read
  EXPECT_EQ(NewTableStarting("/r/000160.sst", "m", 150), 1) << "not L0 compacted into itself";
  now_ += LevelInference::kInputWindowNs + 1;
  EXPECT_EQ(NewTableStarting("/r/000161.sst", "m", 150), 1) << "nothing read lately: the fallback, L1";
}

// A compaction's first output begins with its inputs' smallest key: an L1
// table with a smaller one being read is another compaction's input.
TEST_F(SequenceNumberTest, AFirstOutputRulesOutTablesWithSmallerKeys) {
  Recorded("/r/000170.sst", 0, "b", "y", 201, 300);
  Scan("/r/000170.sst");
  Scan("/r/000101.sst");  // L1, from "a"
  EXPECT_EQ(NewTableStarting("/r/000171.sst", "b", 250), 0) << "L0 compacted into itself";
  EXPECT_EQ(NewTableStarting("/r/000172.sst", "c", 250), 1) << "not a first output: L0 -> L1";
}

// L0 -> L1 outlives the window in which its L1 input was read: L0 still
// being read alone goes on writing L1, as the compaction inferred says.
TEST_F(SequenceNumberTest, LevelZeroReadAloneGoesWhereItsRunningCompactionWrites) {
  Scan("/r/000100.sst");
  Scan("/r/000101.sst");
  EXPECT_EQ(NewTableStarting("/r/000180.sst", "m", 150), 1);
  now_ += LevelInference::kInputWindowNs / 2 + 1;
  Scan("/r/000100.sst");
  now_ += LevelInference::kInputWindowNs / 2 + 1;
  EXPECT_EQ(NewTableStarting("/r/000181.sst", "n", 160), 1);
  // Beside it, RocksDB compacts the L0 tables it left into themselves.
  Recorded("/r/000182.sst", 0, "a", "z", 301, 400);
  Scan("/r/000182.sst");
  EXPECT_EQ(NewTableStarting("/r/000183.sst", "p", 350), 0);
  EXPECT_EQ(NewTableStarting("/r/000184.sst", "q", 170), 1) << "L0 -> L1's again";
}

// A first output begins a new compaction, whatever compaction inferred
// earlier claimed its table: L0 tables read beside an L0 -> L1 one's may be
// taken for its inputs.
TEST_F(SequenceNumberTest, AFirstOutputBeginsANewCompaction) {
  Recorded("/r/000185.sst", 0, "b", "y", 301, 400);
  Scan("/r/000100.sst");
  Scan("/r/000101.sst");
  Scan("/r/000185.sst");
  EXPECT_EQ(NewTableStarting("/r/000186.sst", "m", 150), 1);  // L0 -> L1, claiming 185 too
  now_ += LevelInference::kInputWindowNs / 2 + 1;
  Scan("/r/000100.sst");
  Scan("/r/000185.sst");
  now_ += LevelInference::kInputWindowNs / 2 + 1;
  EXPECT_EQ(NewTableStarting("/r/000187.sst", "c", 350), 1) << "185's key, as that compaction's";
  EXPECT_EQ(NewTableStarting("/r/000188.sst", "b", 350), 0) << "185's smallest: its own compaction's first";
}

// The paths of a begun compaction's inputs.
std::set<std::string> InputsOf(const Hint& begin) {
  std::set<std::string> paths;
  for (const HintFile& f : begin.inputs) paths.insert(f.path);
  return paths;
}

// Two L2 -> L3 compactions at once: each output joins the compaction whose
// input holds its first entry, and each compaction has its own inputs.
TEST_F(SequenceNumberTest, EachOutputJoinsTheCompactionOfTheInputHoldingIt) {
  Recorded("/r/000200.sst", 2, "e", "f", 1, 50);
  Recorded("/r/000201.sst", 3, "e", "ez", 1, 40);
  Recorded("/r/000202.sst", 3, "f", "fz", 1, 40);
  Recorded("/r/000210.sst", 2, "m", "n", 1, 50);
  Recorded("/r/000211.sst", 3, "m", "mz", 1, 40);
  for (const char* t : {"/r/000200.sst", "/r/000201.sst", "/r/000210.sst", "/r/000211.sst"}) Scan(t);
  EXPECT_EQ(NewTableStarting("/r/000220.sst", "e", 30), 3);
  ASSERT_EQ(Of(Hint::Kind::kCompactionBegin).size(), 1u);
  const Hint first = Of(Hint::Kind::kCompactionBegin)[0];
  EXPECT_EQ(InputsOf(first), (std::set<std::string>{"/r/000200.sst", "/r/000201.sst", "/r/000202.sst"}))
      << "the L3 table 000202 meets 000200's range: an input, read yet or not";
  EXPECT_EQ(NewTableStarting("/r/000221.sst", "m", 30), 3);
  ASSERT_EQ(Of(Hint::Kind::kCompactionBegin).size(), 1u) << "another compaction's first output";
  const Hint second = Of(Hint::Kind::kCompactionBegin)[0];
  EXPECT_EQ(InputsOf(second), (std::set<std::string>{"/r/000210.sst", "/r/000211.sst"}));
  EXPECT_EQ(NewTableStarting("/r/000222.sst", "ea", 20), 3);
  EXPECT_TRUE(Of(Hint::Kind::kCompactionBegin).empty());
  EXPECT_EQ(Of(Hint::Kind::kTableFileCreation)[0].job, first.job);
  EXPECT_EQ(NewTableStarting("/r/000223.sst", "ma", 20), 3);
  EXPECT_EQ(Of(Hint::Kind::kTableFileCreation)[0].job, second.job);
  // The store commits the first: its inputs' deletions leave the job
  // running, the record of its outputs ends it.
  inferred_.clear();
  Hint dropped;
  dropped.kind = Hint::Kind::kFileDeleted, dropped.path = "/r/000200.sst", dropped.level = 2;
  bus_->Publish(dropped);
  EXPECT_TRUE(Of(Hint::Kind::kCompactionEnd).empty());
  Recorded("/r/000220.sst", 3, "e", "ez", 1, 50);
  ASSERT_EQ(Of(Hint::Kind::kCompactionEnd).size(), 1u);
  EXPECT_EQ(Of(Hint::Kind::kCompactionEnd)[0].job, first.job);
  ASSERT_EQ(Of(Hint::Kind::kCompactionOutput).size(), 1u);
  EXPECT_EQ(Of(Hint::Kind::kCompactionOutput)[0].path, "/r/000222.sst") << "its last output, now written";
}

// Above L0 the store adds to the table it picked those of its level that
// lie within the range of the tables below that it takes; it reads them as
// the merge reaches them, so they are inputs before they are read.
TEST_F(SequenceNumberTest, TablesWithinTheRangeBelowAreInputsReadOrNot) {
  Recorded("/r/000300.sst", 1, "g", "h", 51, 100);
  Recorded("/r/000301.sst", 1, "h1", "h5", 51, 100);
  Recorded("/r/000302.sst", 1, "i", "j", 51, 100);
  Recorded("/r/000310.sst", 2, "g", "iz", 1, 50);
  Scan("/r/000300.sst");
  Scan("/r/000310.sst");
  EXPECT_EQ(NewTableStarting("/r/000320.sst", "g", 60), 2);
  ASSERT_EQ(Of(Hint::Kind::kCompactionBegin).size(), 1u);
  EXPECT_EQ(InputsOf(Of(Hint::Kind::kCompactionBegin)[0]),
            (std::set<std::string>{"/r/000300.sst", "/r/000301.sst", "/r/000310.sst"}))
      << "000302 reaches past 000310's range";
}

// An L0 -> L1 compaction takes every L0 table recorded when it begins; an
// L0 compaction that begins reading within the same second takes only
// tables recorded since.
TEST_F(SequenceNumberTest, TwoCompactionsOfLevelZeroAtOnceAreToldApartByTheirTables) {
  Recorded("/r/000400.sst", 0, "a", "z", 201, 300);
  Scan("/r/000100.sst");  // L0 -> L1 begins
  Scan("/r/000400.sst");
  now_ += 1000000;
  Recorded("/r/000401.sst", 0, "a", "z", 301, 400);
  Recorded("/r/000402.sst", 0, "a", "z", 401, 500);
  now_ += 1000000;
  Scan("/r/000401.sst");  // L0 -> L0 begins
  Scan("/r/000402.sst");
  EXPECT_EQ(NewTableStarting("/r/000410.sst", "b", 350), 0);
  ASSERT_EQ(Of(Hint::Kind::kCompactionBegin).size(), 1u);
  EXPECT_EQ(InputsOf(Of(Hint::Kind::kCompactionBegin)[0]),
            (std::set<std::string>{"/r/000401.sst", "/r/000402.sst"}));
}

// An L0 table whose scan had not shown when the compaction's first output
// came is still that compaction's: L0's tables overlap.
TEST_F(SequenceNumberTest, ALateLevelZeroInputJoinsTheCompactionItOverlaps) {
  Recorded("/r/000400.sst", 0, "a", "z", 201, 300);
  Recorded("/r/000401.sst", 0, "a", "z", 301, 400);
  for (const char* t : {"/r/000100.sst", "/r/000400.sst", "/r/000101.sst"}) Scan(t);
  EXPECT_EQ(NewTableStarting("/r/000600.sst", "b", 250), 1);
  ASSERT_EQ(Of(Hint::Kind::kCompactionBegin).size(), 1u);
  const Hint begin = Of(Hint::Kind::kCompactionBegin)[0];
  EXPECT_EQ(InputsOf(begin), (std::set<std::string>{"/r/000100.sst", "/r/000101.sst", "/r/000400.sst"}));
  Scan("/r/000401.sst");
  EXPECT_EQ(NewTableStarting("/r/000601.sst", "c", 350), 1);
  EXPECT_TRUE(Of(Hint::Kind::kCompactionBegin).empty());
  EXPECT_EQ(Of(Hint::Kind::kTableFileCreation)[0].job, begin.job);
}

// A compaction's readahead may read a table in two large requests: bytes
// read from its first byte past 256 KiB make a scan, however few the reads.
TEST_F(SequenceNumberTest, TwoLargeReadsFromTheFirstByteAreAScan) {
  EXPECT_EQ(NewTableStarting("/r/000500.sst", "cc", 30), 1) << "nothing read: the fallback";
  inference_->OnRead("/r/000102.sst", 0, 1 << 20, 0);
  inference_->OnRead("/r/000102.sst", 1 << 20, 1 << 20, 0);
  EXPECT_EQ(NewTableStarting("/r/000501.sst", "cc", 30), 2) << "L2 read alone: its output level";
}

}  // namespace
}  // namespace hintfs
