// Level inference from the I/O pattern, with a clock the test moves.
#include <gtest/gtest.h>

#include <vector>

#include "hints/file_tag.h"
#include "hints/level_inference.h"

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
    for (int i = 0; i < reads; i++) inference_->OnRead(path, i * 4096ull, 4096);
  }

  // Creates a table the way a store does and returns the level published
  // at its first append (-100: none).
  int NewTable(const std::string& path, int lifetime) {
    inferred_.clear();
    inference_->OnCreate(path, ZoneRole::kData);
    if (lifetime) inference_->OnLifetimeHint(path, lifetime);
    inference_->OnAppend(path, "first bytes");
    inference_->OnAppend(path, "more bytes");  // one guess per table
    if (inferred_.empty()) return -100;
    EXPECT_EQ(inferred_.size(), 1u);
    EXPECT_EQ(inferred_[0].path, path);
    EXPECT_EQ(inferred_[0].kind, Hint::Kind::kTableFileCreation);
    return inferred_[0].level;
  }

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

TEST_F(LevelInferenceTest, RandomReadsAndDeletedTablesAreNoScan) {
  // A table opened and read at random (index, filter, point lookups).
  for (uint64_t off : {9000000ull, 4096ull, 8192000ull, 1228800ull, 0ull, 6553600ull}) {
    inference_->OnRead("/db/000010.sst", off, 4096);
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
  inference_->OnRead("/db/000030.ldb", 0, 131072);
  EXPECT_EQ(NewTable("/db/000031.ldb", 0), 0);  // half read: not yet a scan, a flush
  inference_->OnRead("/db/000030.ldb", 131072, 68928);
  EXPECT_EQ(NewTable("/db/000032.ldb", 0), 1);  // L0 input: the output is L1
  // A lookup that reads one block at the front of a table is no scan.
  now_ += 2 * LevelInference::kScanWindowNs;
  inference_->OnCreate("/db/000033.ldb", ZoneRole::kData);
  inference_->OnAppend("/db/000033.ldb", std::string(200000, 't'));
  Known("/db/000033.ldb", 0);
  inference_->OnRead("/db/000033.ldb", 0, 4096);
  inference_->OnRead("/db/000033.ldb", 190000, 10000);
  EXPECT_EQ(NewTable("/db/000034.ldb", 0), 0);
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

}  // namespace
}  // namespace hintfs
