#include "cache/caching_filesystem.h"

#include <atomic>
#include <cstring>

#include <fmt/format.h>

#include "hints/file_kind.h"

namespace hintfs {

namespace {

// Block maps kept; the oldest files' go first.
constexpr size_t kMaxTableMaps = 4096;

// The largest read that may be one data block with its trailer: stores'
// blocks are a few KiB (RocksDB's default 4 KiB, LevelDB's 4 KiB).
constexpr size_t kLargestCachedRead = 256 << 10;

// The alignment of direct I/O that RocksDB uses on a file system that is
// no block device (its default page size).
constexpr uint64_t kDirectIoPage = 4096;

// The key a thread's last missed lookup named, until its next table read.
struct ExpectedRead {
  const CachingFilesystem* fs = nullptr;
  std::string key;
};
thread_local ExpectedRead expected_read;

class CachingReader : public FileReader {
 public:
  CachingReader(CachingFilesystem* fs, std::string path, std::unique_ptr<FileReader> base)
      : fs_(fs), path_(std::move(path)), base_(std::move(base)) {}

  Status Read(uint64_t offset, size_t n, char* scratch, size_t* got) override {
    ReadLocation where = base_->Locate(offset, n);
    if (!fs_->file_admission()) {
      fs_->NoteHintedRead(where.slow);
      return base_->Read(offset, n, scratch, got);
    }
    // Reads larger than any data block (a compaction's readahead) are no
    // block's: they never cost the table's index a parse from the slow tier.
    if (!where.slow || n > kLargestCachedRead) return base_->Read(offset, n, scratch, got);
    std::shared_ptr<const TableMap> map = fs_->TableMapFor(path_, base_.get(), where);
    // Only whole data blocks (with their trailer), as the stores read them:
    // exactly, or rounded out to pages by direct I/O (RocksDB on the FUSE
    // mount with use_direct_reads; the kernel's own page-sized reads of
    // cached I/O are no block's). The key is the read, so either way a hit
    // returns exactly the bytes that were read.
    if (map == nullptr || map->BlockReadBy(offset, n, kDirectIoPage) < 0) return base_->Read(offset, n, scratch, got);
    // A read that starts where this file's last one ended is a scan's (or a
    // compaction's): it is served from the cache if there, but not offered,
    // since a scanned block is seldom read again and would take a point
    // read's place (YCSB E over a SATA SSD ran 6% slower with scans cached,
    // docs/benchmarks.md). Concurrent readers of one file interleave, so
    // this only ever errs toward offering.
    const bool sequential = last_end_.exchange(offset + n, std::memory_order_relaxed) == offset;
    std::string key = fs_->keys()->Key(path_, where, offset, n);
    BlockCache* cache = fs_->cache();
    std::string value;
    if (cache->Lookup(key, &value) && value.size() == n) {
      std::memcpy(scratch, value.data(), n);
      *got = n;
      return Status::OK();
    }
    Status s = base_->Read(offset, n, scratch, got);
    if (s.ok() && *got == n && !sequential) {
      cache->RecordAccess(key, n);
      cache->Offer(key, std::string_view(scratch, n));
    }
    return s;
  }
  uint64_t Size() const override { return base_->Size(); }
  ReadLocation Locate(uint64_t offset, size_t n) const override { return base_->Locate(offset, n); }

 private:
  CachingFilesystem* fs_;
  const std::string path_;  // as opened (a rename later leaves the keeper's answer NotFound: not cached)
  std::unique_ptr<FileReader> base_;
  std::atomic<uint64_t> last_end_{~0ull};  // where the last whole-block read of the slow tier ended
};

// The block map of the sealed table at path from its block index, or null if
// the keeper has none of a table of file_size bytes (still being written, no
// supported format, renamed since, or damaged).
std::shared_ptr<const TableMap> MapFromBlockIndex(BlockIndexKeeper* keeper, const std::string& path,
                                                  uint64_t file_size) {
  std::shared_ptr<const BlockIndex> index;
  if (!keeper->Get(path, &index).ok() || index->file_size != file_size) return nullptr;
  auto map = std::make_shared<TableMap>();
  map->rocksdb = index->rocksdb;
  map->file_size = index->file_size;
  map->data_blocks.reserve(index->blocks.size());
  for (const IndexedBlock& b : index->blocks) {
    if (b.size < TableMap::kBlockTrailer) return nullptr;  // no block a store reads
    map->data_blocks.push_back(TableBlockHandle{b.offset, b.size - TableMap::kBlockTrailer});
  }
  return map;
}

}  // namespace

CachingFilesystem::CachingFilesystem(std::shared_ptr<Filesystem> base, std::shared_ptr<BlockCache> cache,
                                     std::shared_ptr<FileBlockKeys> keys)
    : FilesystemWrapper(base), cache_(std::move(cache)), keys_(std::move(keys)) {
  if (keys_ == nullptr) keys_ = std::make_shared<FileBlockKeys>(base.get());
}

std::shared_ptr<const TableMap> CachingFilesystem::TableMapFor(const std::string& path, FileReader* reader,
                                                               const ReadLocation& where) {
  auto key = std::make_pair(where.file_id, where.data_version);
  {
    std::lock_guard<std::mutex> l(maps_mu_);
    auto it = maps_.find(key);
    if (it != maps_.end()) return it->second;
  }
  std::shared_ptr<const TableMap> result;
  if (keeper_ != nullptr) {
    result = MapFromBlockIndex(keeper_.get(), path, reader->Size());
    if (result == nullptr) return nullptr;  // none yet: asked again at the next read
  } else {
    auto map = std::make_shared<TableMap>();
    Status s = ParseTable(reader->Size(), [&](uint64_t offset, size_t n, std::string* out) {
      out->resize(n);
      size_t got = 0;
      Status rs = reader->Read(offset, n, &(*out)[0], &got);
      if (rs.ok() && got != n) rs = Status::Corruption("table shorter than its footer says");
      return rs;
    }, map.get());
    if (s.ok()) result = map;
  }
  std::lock_guard<std::mutex> l(maps_mu_);
  if (maps_.size() >= kMaxTableMaps) maps_.erase(maps_.begin());
  maps_[key] = result;
  return result;
}

void CachingFilesystem::ExpectRead(const std::string& key) {
  expected_read.fs = this;
  expected_read.key = key;
}

void CachingFilesystem::NoteHintedRead(bool slow) {
  if (expected_read.fs != this) return;
  expected_read.fs = nullptr;
  if (!slow) return;
  std::lock_guard<std::mutex> l(slow_mu_);
  if (!slow_reads_.insert(expected_read.key).second) return;
  slow_order_.push_back(std::move(expected_read.key));
  while (slow_order_.size() > kRememberedSlowReads) {
    slow_reads_.erase(slow_order_.front());
    slow_order_.pop_front();
  }
}

bool CachingFilesystem::TakeReadFromSlowTier(const std::string& key) {
  std::lock_guard<std::mutex> l(slow_mu_);
  // The key stays in slow_order_ until it ages out; erasing it there too
  // would cost a search, and a stale entry there only erases nothing.
  return slow_reads_.erase(key) > 0;
}

Status CachingFilesystem::OpenReader(const std::string& path, std::unique_ptr<FileReader>* reader) {
  std::unique_ptr<FileReader> base;
  Status s = target()->OpenReader(path, &base);
  if (!s.ok()) return s;
  if (IsTableFile(path)) {
    reader->reset(new CachingReader(this, path, std::move(base)));
  } else {
    *reader = std::move(base);
  }
  return Status::OK();
}

Status CachingFilesystem::Unmount() {
  cache_->Close();
  return target()->Unmount();
}

CachingFilesystem* CachingLayerOf(Filesystem* fs) { return dynamic_cast<CachingFilesystem*>(fs); }

}  // namespace hintfs
