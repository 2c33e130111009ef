// Readahead: the sequential streams of one open file, read ahead in growing
// windows, so that a reader walking a file in small pieces pays the device's
// access latency once per window instead of once per piece.
//
// LevelDB's compactions read their input tables one 4 KiB block at a time,
// interleaving several inputs, and so does RocksDB without
// compaction_readahead_size: on an HDD every block paid a seek (LevelDB's
// load ran at 713 operations/s, its HDD busy half the time with 8 KiB reads,
// docs/benchmarks.md). A kernel filesystem gives every program readahead
// through the page cache; hintfs reads zones directly, so each handle keeps
// its own.
//
// Sized as Linux sizes it: a stream is a run of reads each beginning where
// the last ended, and it reads ahead from its third read on (two reads in a
// row are common among point reads: eight threads reading the hot blocks of
// one table through one handle turned thousands of a hotspot workload's
// 1 KiB reads into windows of 64 KiB, most of them cold bytes on the slow
// tier, docs/benchmarks.md). A stream that began at the file's start reads
// an eighth of max_window, then max_window: a reader walking a file from its
// first byte is most often reading it whole (a compaction's input; Linux too
// takes a read at offset 0 for the start of a sequential one), and on the
// HDD each window of the ramp below cost a seek: 27-37% of the
// HDD's time in a LevelDB load. Not max_window at once, since a range scan
// that crosses into the next table also reads it from its start and waited
// behind 2 MiB reads (YCSB E ran 23-29% slower; docs/benchmarks.md).
// Where the file's start lies on a device that takes longer to reach it
// than to transfer that first window (a disk: 8.7 ms against 1.2 ms), a
// read at offset 0 reads the window at once instead of at the third read:
// the compaction's other inputs read in between, so each of the first two
// reads of an input was a seek of its own, half of a LevelDB load's HDD
// seeks (docs/benchmarks.md). Such a window serves only the read that
// continues it until one does (later reads of a table's first block by
// Gets still reach the file, and block tiering sees them), and windows
// waiting so hold at most a quarter of the pool (a point read of each
// table's first block would otherwise leave one with every handle). Any other stream's
// first window is four times the read (at least 64 KiB) and doubles each
// time the reader goes past it, up to max_window, so the bytes read ahead
// and never used stay about what the stream itself read (a short range scan
// wastes little). A read that crosses the end of a window (LevelDB's blocks
// are not aligned to anything) takes what the buffer holds and reads the
// next window from the buffer's end, so the device's reads follow one
// another (on a disk one starting behind the last one's end is another
// seek). Up to four streams per handle (a compaction and a scan of the same
// table, through one shared LevelDB handle). Reads of max_window or more, and
// reads that continue no stream, go straight to the file.
//
// Buffers hold bytes of one data version of the file (truncation changes it;
// a read that sees another version drops them) and were checksum-verified
// when read. Their memory comes from a ReadaheadPool shared by the handles of
// a filesystem; a stream that finds the pool spent reads without readahead,
// and a buffer is released when its stream is replaced, when its reader
// reaches the end of the file through it, and when the handle closes; one
// of 256 KiB or more read past seven eighths of keeps only its unread
// bytes (a reader stopping short of the end would hold it until then).
//
// Thread safe: LevelDB reads one table handle from many threads at once.
// The device reads happen outside the lock.
#ifndef HINTFS_FS_READAHEAD_H_
#define HINTFS_FS_READAHEAD_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "fs/status.h"

namespace hintfs {

struct ReadaheadStats {
  uint64_t reads_served = 0;   // reads answered from a buffer
  uint64_t fetches = 0;        // window reads from the file
  uint64_t bytes_fetched = 0;  // bytes those returned
};

// Memory for the buffers of every handle of one filesystem, and their stats.
class ReadaheadPool {
 public:
  // limit_bytes: the most all buffers together may hold; max_window: the
  // largest window (0 turns readahead off).
  ReadaheadPool(uint64_t limit_bytes, size_t max_window);

  size_t max_window() const { return max_window_; }
  // Reserves bytes for a buffer; false if the pool has not that much left.
  bool Take(uint64_t bytes);
  void Give(uint64_t bytes);
  uint64_t used() const { return used_.load(); }

  // Take for a window read at a file's first read, before any read has
  // continued it: false also when such windows hold a quarter of the pool.
  bool TakeUnconfirmed(uint64_t bytes);
  // Those bytes' window was continued, released or failed (Give them too
  // when released).
  void Confirm(uint64_t bytes) { unconfirmed_.fetch_sub(bytes); }

  void CountServed() { served_.fetch_add(1, std::memory_order_relaxed); }
  void CountFetch(uint64_t bytes);
  ReadaheadStats stats() const;

 private:
  const uint64_t limit_;
  const size_t max_window_;
  std::atomic<uint64_t> used_{0};
  std::atomic<uint64_t> unconfirmed_{0};
  std::atomic<uint64_t> served_{0};
  std::atomic<uint64_t> fetches_{0};
  std::atomic<uint64_t> bytes_fetched_{0};
};

class Readahead {
 public:
  // Reads [offset, offset + n) of the file into dst; *got is short only at
  // the end of the file.
  using Fetch = std::function<Status(uint64_t offset, size_t n, char* dst, size_t* got)>;
  // The file's data version now (FileStat-like: changes when written bytes change).
  using Version = std::function<uint64_t()>;
  // Whether reaching the file's first byte costs the device more than
  // transferring window bytes (asked only of a read at offset 0 that
  // continues no stream).
  using SeekOutweighs = std::function<bool(size_t window)>;

  // pool outlives this object.
  explicit Readahead(ReadaheadPool* pool);
  ~Readahead();  // returns the buffers' memory to the pool
  Readahead(const Readahead&) = delete;
  Readahead& operator=(const Readahead&) = delete;

  // Reads as fetch does, from a buffer when one holds the bytes, reading
  // ahead when the read continues a stream. Returns the errors of fetching
  // the bytes asked for: a window read that fails (a damaged block past
  // them) leaves no buffer, and the read is fetched alone.
  Status Read(uint64_t offset, size_t n, char* scratch, size_t* got, const Fetch& fetch,
              const Version& version, const SeekOutweighs& seek_outweighs = nullptr);

 private:
  static constexpr int kStreams = 4;
  static constexpr size_t kMinWindow = 64 << 10;
  // Reads in a row before the first window: the third read of a run.
  static constexpr uint32_t kReadsBeforeWindow = 3;
  // Buffers this large or larger give back what their reader has passed.
  static constexpr size_t kShrinkFrom = 256 << 10;

  struct Stream {
    uint64_t next = UINT64_MAX;  // where the stream's next read begins
    size_t window = 0;           // the last window read; 0: none yet
    uint32_t reads = 0;          // reads in a row so far, until the first window
    bool from_start = false;     // its first read began at offset 0
    bool ends_file = false;      // its window came back short: the buffer ends the file
    uint64_t buffer_offset = 0;
    std::string buffer;          // bytes from buffer_offset (short at the end of the file)
    size_t reserved = 0;         // pool bytes this buffer holds
    uint64_t last_use = 0;
    bool fetching = false;       // a window read is under way, outside the lock
    bool unconfirmed = false;    // its window came at its first read; no read has continued it yet
  };

  // The window of a stream's first window read.
  size_t FirstWindow(const Stream& s, size_t n) const;
  bool ServeFromBufferLocked(uint64_t offset, size_t n, char* scratch, size_t* got);
  Stream* ContinuedStreamLocked(uint64_t offset);
  Stream* TrackLocked(uint64_t offset, size_t n);  // a read that may start a stream: its slot
  void ReleaseLocked(Stream* s);
  void ReleaseIfReadToTheEndLocked(Stream* s);
  // Keeps only the unread bytes of a buffer read past seven eighths of.
  void ShrinkIfMostlyReadLocked(Stream* s);
  void DropAllLocked();
  // Whether s's buffer holds the byte at offset.
  static bool BuffersStartOf(const Stream& s, uint64_t offset);
  // A read continuing s that begins inside its buffer and ends past it.
  Status ReadAcrossBufferEnd(Stream* s, uint64_t offset, size_t n, char* scratch, size_t* got,
                             const Fetch& fetch, const Version& version,
                             std::unique_lock<std::mutex>* l);
  // unconfirmed: the stream's first read (TakeUnconfirmed's memory).
  Status ReadWindow(Stream* s, uint64_t offset, size_t n, char* scratch, size_t* got,
                    const Fetch& fetch, const Version& version, bool unconfirmed,
                    std::unique_lock<std::mutex>* lock);

  ReadaheadPool* const pool_;
  std::mutex mu_;
  Stream streams_[kStreams];
  uint64_t version_ = 0;
  uint64_t tick_ = 0;
};

}  // namespace hintfs

#endif  // HINTFS_FS_READAHEAD_H_
