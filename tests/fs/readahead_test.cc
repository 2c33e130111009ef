// Readahead: every read returns the file's bytes, whatever was read ahead;
// sequential streams cost few window reads, random reads none extra; buffers
// follow the file's data version and give their memory back.
#include "fs/readahead.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace hintfs {
namespace {

constexpr size_t kMaxWindow = 1 << 20;

// An in-memory file whose reads are counted, as the filesystem's would be.
class FakeFile {
 public:
  explicit FakeFile(size_t size, char seed = 'a') { Fill(size, seed); }
  void Fill(size_t size, char seed) {
    data_.resize(size);
    for (size_t i = 0; i < size; i++) data_[i] = static_cast<char>(seed + (i * 131) % 251);
    version_++;
  }
  Readahead::Fetch fetch() {
    return [this](uint64_t offset, size_t n, char* dst, size_t* got) {
      std::lock_guard<std::mutex> l(mu_);
      if (fail_ || offset + n > bad_from_) return Status::IOError("injected");
      fetch_sizes_.push_back(n);
      fetch_offsets_.push_back(offset);
      *got = offset >= data_.size() ? 0 : std::min<size_t>(n, data_.size() - offset);
      std::memcpy(dst, data_.data() + std::min<uint64_t>(offset, data_.size()), *got);
      return Status::OK();
    };
  }
  Readahead::Version version() {
    return [this] { return version_; };
  }
  std::string Slice(uint64_t offset, size_t n) const {
    return offset >= data_.size() ? "" : data_.substr(offset, n);
  }
  size_t fetches() const { return fetch_sizes_.size(); }
  const std::vector<size_t>& fetch_sizes() const { return fetch_sizes_; }
  const std::vector<uint64_t>& fetch_offsets() const { return fetch_offsets_; }
  void set_fail(bool fail) { fail_ = fail; }
  void set_bad_from(uint64_t offset) { bad_from_ = offset; }

 private:
  std::mutex mu_;
  std::string data_;
  uint64_t version_ = 0;
  bool fail_ = false;
  uint64_t bad_from_ = UINT64_MAX;  // reads reaching past here fail (a damaged block)
  std::vector<size_t> fetch_sizes_;
  std::vector<uint64_t> fetch_offsets_;
};

std::string ReadAt(Readahead* ra, FakeFile* f, uint64_t offset, size_t n, Status* status = nullptr) {
  std::string buf(n, '\0');
  size_t got = 0;
  Status s = ra->Read(offset, n, &buf[0], &got, f->fetch(), f->version());
  if (status != nullptr) *status = s;
  EXPECT_TRUE(status != nullptr || s.ok()) << s.ToString();
  buf.resize(got);
  return buf;
}

// ReadAt on a file whose first byte lies on a disk: reaching it costs more
// than transferring any window.
std::string ReadAtOnDisk(Readahead* ra, FakeFile* f, uint64_t offset, size_t n) {
  std::string buf(n, '\0');
  size_t got = 0;
  Status s = ra->Read(offset, n, &buf[0], &got, f->fetch(), f->version(), [](size_t) { return true; });
  EXPECT_TRUE(s.ok()) << s.ToString();
  buf.resize(got);
  return buf;
}

// Reads file in 4 KiB pieces from offset from to its end through one
// handle, checking every piece, and closes the handle.
void WalkToTheEnd(ReadaheadPool* pool, FakeFile* file, uint64_t from, uint64_t size) {
  Readahead ra(pool);
  for (uint64_t off = from; off < size; off += 4096) {
    ASSERT_EQ(ReadAt(&ra, file, off, 4096), file->Slice(off, 4096)) << off;
  }
}

TEST(ReadaheadTest, ASequentialWalkFromTheStartReadsWholeWindows) {
  ReadaheadPool pool(64 << 20, kMaxWindow);
  FakeFile file(8 << 20);
  WalkToTheEnd(&pool, &file, 0, 8 << 20);
  // 2,048 reads from the file's start: the first two alone, then a window
  // of an eighth of max_window, then windows of max_window (the file walked
  // whole, as a compaction does).
  ASSERT_EQ(file.fetches(), 2u + 1u + 8u);
  EXPECT_EQ(file.fetch_sizes()[0], 4096u);
  EXPECT_EQ(file.fetch_sizes()[1], 4096u);
  EXPECT_EQ(file.fetch_sizes()[2], kMaxWindow / 8);
  for (size_t i = 3; i < file.fetches(); i++) EXPECT_EQ(file.fetch_sizes()[i], kMaxWindow) << i;
  EXPECT_EQ(pool.used(), 0u) << "the handle gave its buffers back";
  EXPECT_GT(pool.stats().reads_served, 2000u);
}

// On a disk the window of a walk from the start comes at its first read:
// a compaction's inputs interleave, and each read that went alone was a seek.
TEST(ReadaheadTest, OnADiskAWalkFromTheStartReadsAheadAtItsFirstRead) {
  ReadaheadPool pool(64 << 20, kMaxWindow);
  FakeFile file(8 << 20);
  {
    Readahead ra(&pool);
    for (uint64_t off = 0; off < (8u << 20); off += 4096) {
      ASSERT_EQ(ReadAtOnDisk(&ra, &file, off, 4096), file.Slice(off, 4096)) << off;
    }
  }
  // An eighth of max_window at once, then windows of max_window.
  ASSERT_EQ(file.fetches(), 1u + 8u);
  EXPECT_EQ(file.fetch_sizes()[0], kMaxWindow / 8);
  for (size_t i = 1; i < file.fetches(); i++) EXPECT_EQ(file.fetch_sizes()[i], kMaxWindow) << i;
  EXPECT_EQ(pool.used(), 0u);
}

// LevelDB's blocks (4 KiB and a 5-byte trailer) cross window ends: the next
// window begins where the last one ended, so a disk reads on without a seek.
TEST(ReadaheadTest, OnADiskWindowsFollowOneAnotherUnderUnalignedReads) {
  ReadaheadPool pool(64 << 20, kMaxWindow);
  const uint64_t size = 8 << 20;
  FakeFile file(size);
  {
    Readahead ra(&pool);
    for (uint64_t off = 0; off < size; off += 4101) {
      ASSERT_EQ(ReadAtOnDisk(&ra, &file, off, 4101), file.Slice(off, 4101)) << off;
    }
  }
  ASSERT_EQ(file.fetches(), 1u + 8u);
  for (size_t i = 1; i < file.fetches(); i++) {
    EXPECT_EQ(file.fetch_offsets()[i], file.fetch_offsets()[i - 1] + file.fetch_sizes()[i - 1]) << i;
  }
  EXPECT_EQ(pool.used(), 0u);
}

// A Get of a table's first block reads the window too, but reads of that
// block again are no continuation: they reach the file (where block tiering
// counts them), and the windows no read continued hold at most a quarter
// of the pool however many handles read their first block.
TEST(ReadaheadTest, OnADiskRereadsOfAFirstBlockReachTheFile) {
  ReadaheadPool pool(1 << 20, kMaxWindow);  // a quarter: two windows of kMaxWindow / 8
  FakeFile file(4 << 20);
  {
    Readahead ra(&pool);
    for (int i = 0; i < 5; i++) ASSERT_EQ(ReadAtOnDisk(&ra, &file, 0, 4096), file.Slice(0, 4096));
    EXPECT_EQ(file.fetches(), 5u) << "every re-read reached the file";
    EXPECT_LE(pool.used(), (1u << 20) / 4);
  }
  ASSERT_EQ(pool.used(), 0u);
  std::vector<std::unique_ptr<Readahead>> handles;
  for (int h = 0; h < 3; h++) {
    handles.push_back(std::make_unique<Readahead>(&pool));
    ASSERT_EQ(ReadAtOnDisk(handles.back().get(), &file, 0, 4096), file.Slice(0, 4096));
  }
  EXPECT_EQ(pool.used(), (1u << 20) / 4) << "first blocks' windows hold a quarter of the pool";
  EXPECT_EQ(file.fetch_sizes().back(), 4096u) << "the third handle's read went alone";
  // A window that a read continues is a stream's like any other.
  const size_t fetches = file.fetches();
  ASSERT_EQ(ReadAtOnDisk(handles[0].get(), &file, 4096, 4096), file.Slice(4096, 4096));
  ASSERT_EQ(ReadAtOnDisk(handles[0].get(), &file, 0, 4096), file.Slice(0, 4096));
  EXPECT_EQ(file.fetches(), fetches) << "a continued window serves any read inside it";
  handles.clear();
  EXPECT_EQ(pool.used(), 0u);
  // Its memory no longer counts among the unconfirmed: two handles get windows again.
  for (int h = 0; h < 2; h++) {
    handles.push_back(std::make_unique<Readahead>(&pool));
    ASSERT_EQ(ReadAtOnDisk(handles.back().get(), &file, 0, 4096), file.Slice(0, 4096));
    EXPECT_EQ(file.fetch_sizes().back(), kMaxWindow / 8) << h;
  }
}

TEST(ReadaheadTest, AStreamFromTheMiddleGrowsItsWindows) {
  ReadaheadPool pool(64 << 20, kMaxWindow);
  FakeFile file(8 << 20);
  WalkToTheEnd(&pool, &file, 4096, 8 << 20);
  // A range scan from a seek: the first two alone, then windows of 64 KiB
  // doubling to 1 MiB, so a short scan reads little ahead.
  EXPECT_LT(file.fetches(), 16u);
  EXPECT_EQ(file.fetch_sizes()[0], 4096u);
  EXPECT_EQ(file.fetch_sizes()[1], 4096u);
  EXPECT_EQ(file.fetch_sizes()[2], 64u << 10);
  EXPECT_EQ(file.fetch_sizes()[3], 128u << 10);
  EXPECT_EQ(file.fetch_sizes().back(), kMaxWindow);
  EXPECT_EQ(pool.used(), 0u);
}

TEST(ReadaheadTest, RandomReadsReadNothingAhead) {
  ReadaheadPool pool(64 << 20, kMaxWindow);
  FakeFile file(4 << 20);
  Readahead ra(&pool);
  std::mt19937 rng(7);
  for (int i = 0; i < 500; i++) {
    uint64_t off = (rng() % 1000) * 4096 + 1;  // never where the last read ended
    ASSERT_EQ(ReadAt(&ra, &file, off, 100), file.Slice(off, 100));
  }
  ASSERT_EQ(file.fetches(), 500u);
  for (size_t n : file.fetch_sizes()) EXPECT_EQ(n, 100u);
  EXPECT_EQ(pool.stats().fetches, 0u);
}

// Point reads of neighbouring blocks (Gets of many threads on one table)
// continue one another now and then; a pair of them is no stream.
TEST(ReadaheadTest, PairsOfNeighbouringReadsReadNothingAhead) {
  ReadaheadPool pool(64 << 20, kMaxWindow);
  FakeFile file(4 << 20);
  Readahead ra(&pool);
  std::mt19937 rng(11);
  for (int i = 0; i < 200; i++) {
    uint64_t block = rng() % 300 * 3;  // a pair never continues the one before
    ASSERT_EQ(ReadAt(&ra, &file, block * 1029, 1029), file.Slice(block * 1029, 1029));
    ASSERT_EQ(ReadAt(&ra, &file, (block + 1) * 1029, 1029), file.Slice((block + 1) * 1029, 1029));
  }
  ASSERT_EQ(file.fetches(), 400u);
  for (size_t n : file.fetch_sizes()) EXPECT_EQ(n, 1029u);
  EXPECT_EQ(pool.stats().fetches, 0u);
}

TEST(ReadaheadTest, InterleavedStreamsAndPointReadsOnOneHandle) {
  ReadaheadPool pool(64 << 20, kMaxWindow);
  FakeFile file(4 << 20);
  Readahead ra(&pool);
  uint64_t a = 0, b = 2 << 20;
  for (int i = 0; i < 256; i++) {
    ASSERT_EQ(ReadAt(&ra, &file, a, 4096), file.Slice(a, 4096));
    ASSERT_EQ(ReadAt(&ra, &file, b, 4096), file.Slice(b, 4096));
    uint64_t point = (i * 7919) % 1000 * 4096 + 17;
    ASSERT_EQ(ReadAt(&ra, &file, point, 50), file.Slice(point, 50));
    a += 4096;
    b += 4096;
  }
  // 768 reads: 256 point reads alone, the two streams in a few windows each.
  EXPECT_LT(file.fetches(), 256u + 20u);
}

// Once a stream reads ahead, point reads in between do not take its place.
TEST(ReadaheadTest, BurstsOfPointReadsLeaveAStreamReadingAhead) {
  ReadaheadPool pool(64 << 20, kMaxWindow);
  FakeFile file(4 << 20);
  Readahead ra(&pool);
  uint64_t scan = 0;
  for (int i = 0; i < 128; i++) {
    ASSERT_EQ(ReadAt(&ra, &file, scan, 4096), file.Slice(scan, 4096));
    scan += 4096;
    if (i < 2) continue;  // the scan has started reading ahead
    for (int p = 0; p < 8; p++) {  // more point reads than the handle has streams
      uint64_t point = ((i * 8 + p) * 7919) % 1000 * 4096 + 33;
      ASSERT_EQ(ReadAt(&ra, &file, point, 60), file.Slice(point, 60));
    }
  }
  // 1,008 point reads alone; the scan's 128 reads in a few windows.
  EXPECT_LT(file.fetches(), 1008u + 10u);
}

// A reader that stops short of the end (a compaction reads a table's data
// blocks, not its index after them) keeps only the unread bytes.
TEST(ReadaheadTest, AReaderStoppingShortOfTheEndKeepsLittle) {
  ReadaheadPool pool(64 << 20, kMaxWindow);
  FakeFile file(4 << 20);
  Readahead ra(&pool);
  // Windows from 8 KiB: an eighth of max_window, then max_window twice, the
  // last ending at 2 MiB + 136 KiB.
  const uint64_t window_end = (2 << 20) + 8192 + kMaxWindow / 8;
  const uint64_t stop = (2 << 20) + (64 << 10);
  for (uint64_t off = 0; off < stop; off += 4096) {
    ASSERT_EQ(ReadAt(&ra, &file, off, 4096), file.Slice(off, 4096)) << off;
  }
  ASSERT_EQ(file.fetches(), 2u + 3u);
  EXPECT_LT(pool.used(), kMaxWindow / 8) << "only the last eighth of the window may be kept";
  EXPECT_GE(pool.used(), window_end - stop) << "its unread bytes are";
  // What is left still serves its reads, and the stream goes on.
  for (uint64_t off = stop; off < window_end; off += 4096) {
    ASSERT_EQ(ReadAt(&ra, &file, off, 4096), file.Slice(off, 4096)) << off;
  }
  EXPECT_EQ(file.fetches(), 2u + 3u);
  EXPECT_EQ(ReadAt(&ra, &file, window_end, 4096), file.Slice(window_end, 4096));
  EXPECT_EQ(file.fetches(), 2u + 4u) << "a new window";
  EXPECT_EQ(file.fetch_sizes().back(), kMaxWindow);
}

TEST(ReadaheadTest, ReadsAtTheEndAndPastItAreShort) {
  ReadaheadPool pool(64 << 20, kMaxWindow);
  FakeFile file(100000);
  Readahead ra(&pool);
  uint64_t off = 0;
  std::string all;
  for (;;) {
    std::string piece = ReadAt(&ra, &file, off, 4096);
    all += piece;
    off += piece.size();
    if (piece.size() < 4096) break;
  }
  EXPECT_EQ(all, file.Slice(0, 100000));
  EXPECT_EQ(ReadAt(&ra, &file, 100000, 10), "");
  EXPECT_EQ(pool.used(), 0u) << "a stream read to the end keeps no buffer";
}

TEST(ReadaheadTest, ANewDataVersionIsNeverServedFromOldBuffers) {
  ReadaheadPool pool(64 << 20, kMaxWindow);
  FakeFile file(1 << 20, 'a');
  Readahead ra(&pool);
  ReadAt(&ra, &file, 0, 4096);
  ReadAt(&ra, &file, 4096, 4096);
  ReadAt(&ra, &file, 8192, 4096);  // reads a window ahead
  ASSERT_GT(pool.used(), 0u);
  file.Fill(1 << 20, 'q');  // truncated and written again
  EXPECT_EQ(ReadAt(&ra, &file, 12288, 4096), file.Slice(12288, 4096));
}

TEST(ReadaheadTest, WithoutMemoryReadsStillReturnTheFile) {
  ReadaheadPool pool(16 << 10, kMaxWindow);  // less than the first window
  FakeFile file(1 << 20);
  Readahead ra(&pool);
  for (uint64_t off = 0; off < (1u << 20); off += 4096) {
    ASSERT_EQ(ReadAt(&ra, &file, off, 4096), file.Slice(off, 4096));
  }
  for (size_t n : file.fetch_sizes()) EXPECT_EQ(n, 4096u);
  EXPECT_EQ(pool.used(), 0u);
}

TEST(ReadaheadTest, LargeReadsAndAZeroWindowGoStraightThrough) {
  FakeFile file(8 << 20);
  {
    ReadaheadPool pool(64 << 20, kMaxWindow);
    Readahead ra(&pool);
    for (uint64_t off = 0; off < (8u << 20); off += kMaxWindow) ReadAt(&ra, &file, off, kMaxWindow);
    EXPECT_EQ(file.fetches(), 8u);
  }
  ReadaheadPool off(64 << 20, 0);
  Readahead ra(&off);
  for (uint64_t o = 0; o < 64 * 4096; o += 4096) ASSERT_EQ(ReadAt(&ra, &file, o, 4096), file.Slice(o, 4096));
  EXPECT_EQ(file.fetches(), 8u + 64u);
}

TEST(ReadaheadTest, AFailedWindowReadReturnsItsErrorAndKeepsNothing) {
  ReadaheadPool pool(64 << 20, kMaxWindow);
  FakeFile file(1 << 20);
  Readahead ra(&pool);
  ReadAt(&ra, &file, 0, 4096);
  ReadAt(&ra, &file, 4096, 4096);
  file.set_fail(true);
  Status s;
  ReadAt(&ra, &file, 8192, 4096, &s);  // its window read fails
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_EQ(pool.used(), 0u);
  file.set_fail(false);
  EXPECT_EQ(ReadAt(&ra, &file, 12288, 4096), file.Slice(12288, 4096));
}

TEST(ReadaheadTest, ADamagedBlockAheadIsNotTheErrorOfReadsBeforeIt) {
  ReadaheadPool pool(64 << 20, kMaxWindow);
  FakeFile file(1 << 20);
  file.set_bad_from(40960);
  Readahead ra(&pool);
  for (uint64_t off = 0; off < 40960; off += 4096) {
    ASSERT_EQ(ReadAt(&ra, &file, off, 4096), file.Slice(off, 4096)) << off;
  }
  Status s;
  ReadAt(&ra, &file, 40960, 4096, &s);
  EXPECT_TRUE(s.IsIOError()) << "the damaged block's own read fails";
}

TEST(ReadaheadTest, ConcurrentReadersOfOneHandleGetTheirBytes) {
  ReadaheadPool pool(64 << 20, kMaxWindow);
  FakeFile file(4 << 20);
  Readahead ra(&pool);
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; t++) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      uint64_t off = static_cast<uint64_t>(t) << 20;
      for (int i = 0; i < 2000; i++) {
        bool point = t % 2 == 1 && i % 3 == 0;
        uint64_t at = point ? rng() % (4 << 20) : off;
        size_t n = point ? 1 + rng() % 9000 : 4096;
        std::string buf(n, '\0');
        size_t got = 0;
        if (!ra.Read(at, n, &buf[0], &got, file.fetch(), file.version()).ok()) wrong++;
        buf.resize(got);
        if (buf != file.Slice(at, n)) wrong++;
        if (!point) off = (off + 4096) % (4 << 20);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace hintfs
