// BlockIndexKeeper: builds the block index (block_index.h) of every table
// file when its writer closes it, and keeps the index durably in the
// filesystem, so that block-granular tiering knows every sealed table's
// blocks and key ranges without reading the table back.
//
// It is an I/O observer (fs/filesystem.h) in the mount's chain: while a table
// (hints/file_kind.h) is written it keeps the bytes it will parse, the
// table's first kHeadBytes (the first data block, for the table's first key)
// and its last kTailBytes (the last data block, index, filter, properties
// and footer). A table whose index is larger than that is read back once,
// which is the only case that reads a table.
//
// Storage: one file per table under kBlockIndexDirectory, named by the
// table's inode number in hex (renames keep it), holding the encoded index.
// An index file carries its table's write-life-time hint, as it lives
// exactly as long: under lifetime classes it shares the table's zones and
// dies with them (with no hint, the indexes of every level shared the zones
// of manifests and logs and kept them from being reset, docs/benchmarks.md).
// An index whose file size is not the table's is stale and ignored. Observers
// may not call into the filesystem, so a background thread parses and
// writes; deleting a table deletes its index there too. Attach (at mount)
// first removes index files whose table is gone; then, in the background, it
// loads the other tables' indexes into memory and indexes sealed tables that
// have none (a crash between a table's close and its index being written, or
// a filesystem older than the keeper).
//
// Thread safe. Statistics go to the filesystem attribute "block_index" at
// Detach (`hintfs info --json`).
#ifndef HINTFS_HINTS_BLOCK_INDEX_KEEPER_H_
#define HINTFS_HINTS_BLOCK_INDEX_KEEPER_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "fs/filesystem.h"
#include "hints/block_index.h"

namespace hintfs {

// Where the keeper keeps its files; hidden from listings of the mount.
constexpr char kBlockIndexDirectory[] = "/.hintfs-index";
// Whether path is one of the keeper's files (placement may keep them off a
// fast tier that has better uses for its room: they are read once per table
// and mount).
bool IsBlockIndexFile(std::string_view path);

struct BlockIndexStats {
  uint64_t indexed = 0;        // tables indexed from the bytes written
  uint64_t read_back = 0;      // tables whose index needed a read of the table
  uint64_t rebuilt = 0;        // tables indexed at mount (no index file)
  uint64_t unparsable = 0;     // tables that are not a supported table format
  uint64_t removed = 0;        // index files removed with their table or as orphans
  uint64_t bad_files = 0;      // index files that failed to decode (replaced)
  uint64_t write_errors = 0;   // index files that could not be written
  uint64_t index_bytes = 0;    // bytes of index files written
  uint64_t table_bytes = 0;    // bytes of the tables they index
};

class BlockIndexKeeper : public IoObserver {
 public:
  static constexpr size_t kHeadBytes = 64 << 10;
  static constexpr size_t kTailBytes = 4 << 20;
  // Indexes held in memory (least recently used dropped beyond it).
  static constexpr size_t kCachedIndexes = 4096;

  explicit BlockIndexKeeper(std::shared_ptr<IoObserver> next);
  ~BlockIndexKeeper() override;  // Detach()

  // Starts keeping indexes in fs (the filesystem this keeper observes,
  // mounted read-write): cleans up orphans, then starts the background
  // thread, which also indexes tables that have no index. Errors are the
  // filesystem's for the keeper's directory.
  Status Attach(Filesystem* fs);
  // Writes the indexes of the tables sealed so far and removes those of
  // deleted ones (loads and rebuilds still queued are left to the next
  // mount), saves the statistics, stops the thread. Idempotent.
  void Detach();
  // Blocks until everything queued so far is written (tests, fsck).
  void WaitIdle();

  // The index of the sealed table at path: NotFound if it has none (not a
  // table, still being written, not a supported format); Corruption if its
  // index file is damaged; the filesystem's errors.
  Status Get(const std::string& path, std::shared_ptr<const BlockIndex>* index);

  // Called for each read of a table whose index is in memory, with the
  // block the read starts in and how many of its bytes the slow tier
  // served, on the I/O path outside the keeper's lock: must be quick and
  // must not call into the filesystem. Set before Attach.
  // wanted, if given, is asked first on each read: false skips the lookup
  // and the call (a listener that is off; the lookup was 5% of the CPU of a
  // read-mostly phase, docs/benchmarks.md).
  using BlockReadFn = std::function<void(const std::string& path, const BlockIndex& index, size_t block,
                                         uint64_t bytes, uint64_t slow_bytes)>;
  using BlockReadWantedFn = std::function<bool()>;
  void SetBlockReadListener(BlockReadFn fn, BlockReadWantedFn wanted = nullptr) {
    on_block_read_ = std::move(fn);
    block_read_wanted_ = std::move(wanted);
  }
  // Called from the keeper's thread each time a table written in this mount
  // gets its index (sealed), with the path it was created at. Set before
  // Attach.
  using IndexedFn = std::function<void(const std::string& path, std::shared_ptr<const BlockIndex> index)>;
  void SetIndexedListener(IndexedFn fn) { on_indexed_ = std::move(fn); }

  BlockIndexStats stats() const;
  std::string StatsJson() const;

  // IoObserver
  void OnCreate(const std::string& path, ZoneRole role) override;
  void OnLifetimeHint(const std::string& path, int lifetime) override;
  void OnAppend(const std::string& path, std::string_view data) override;
  void OnClose(const std::string& path, uint64_t size) override;
  void OnDelete(const std::string& path) override;
  void OnRead(const std::string& path, uint64_t offset, uint64_t bytes, uint64_t slow_bytes) override;

 private:
  // The bytes of a table being written that its index is parsed from.
  struct Capture {
    std::string head;
    std::string tail;
    uint64_t size = 0;  // bytes appended so far
    int lifetime_hint = 0;  // the table's (FileWriter::SetLifetimeHint; 0: not set)
  };
  struct Job {
    enum class Kind { kIndex, kRemove, kRebuild, kLoad } kind = Kind::kIndex;
    std::string path;
    std::unique_ptr<Capture> capture;  // kIndex
    uint64_t inode = 0;                // kRemove
  };

  void Run();
  void IndexTable(Job* job);
  void RemoveIndex(uint64_t inode);
  void QueueRebuilds(const std::string& dir);
  Status WriteIndex(uint64_t inode, const BlockIndex& index, int lifetime_hint);
  void Remember(uint64_t inode, std::shared_ptr<const BlockIndex> index);
  void Queue(Job job);

  std::shared_ptr<IoObserver> next_;
  Filesystem* fs_ = nullptr;

  mutable std::mutex mu_;
  std::condition_variable cv_, idle_cv_;
  std::unordered_map<std::string, std::unique_ptr<Capture>> writing_;  // by path
  std::unordered_map<std::string, uint64_t> inode_of_;  // indexed tables by the path they were created at
  BlockReadFn on_block_read_;
  BlockReadWantedFn block_read_wanted_;
  IndexedFn on_indexed_;
  std::unordered_set<std::string> pending_;                 // tables queued to be indexed
  std::unordered_set<std::string> deleted_while_pending_;   // ... and deleted meanwhile
  std::deque<Job> queue_;
  bool busy_ = false, stopping_ = false;
  std::thread thread_;
  BlockIndexStats stats_;
  // Most recently used first.
  std::list<std::pair<uint64_t, std::shared_ptr<const BlockIndex>>> lru_;
  std::unordered_map<uint64_t, decltype(lru_)::iterator> cached_;
};

// Checks every index file (fsck): it decodes, names a file that exists, and
// matches it in size. Damaged index files are errors; an index whose table
// is gone or changed is a warning (the next mount replaces or removes it).
void CheckBlockIndexes(Filesystem* fs, FsckReport* report);

}  // namespace hintfs

#endif  // HINTFS_HINTS_BLOCK_INDEX_KEEPER_H_
