// CachingFilesystem: the block cache at the filesystem level, for stores that
// send no cache hints (LevelDB, anything on the FUSE mount, RocksDB without
// the secondary cache). It wraps a mounted Filesystem; readers of table files
// (*.sst, *.ldb) look every read of a whole data block that lies on the slow
// tier up in the cache, and offer the blocks they read from the slow tier to
// it (the admission policy decides). Which reads are data blocks comes from
// the table's block index, as the mount's BlockIndexKeeper made it from the
// bytes written (UseBlockIndexes); without a keeper, from the table's block
// map (hints/table_map.h) parsed at its first slow-tier read. A table with
// neither is simply not cached.
//
// Blocks are keyed by (file, data version, offset, length): a rewritten or
// truncated file changes its version, a deleted file's id is never reused
// while the mount lives, and a file moved to the fast tier is no longer
// looked up, so the cache never serves stale bytes. Across mounts the keys
// are saved and checked by file identity (cache/file_block_keys.h).
//
// Every other call goes to the wrapped filesystem unchanged (FilesystemWrapper).
#ifndef HINTFS_CACHE_CACHING_FILESYSTEM_H_
#define HINTFS_CACHE_CACHING_FILESYSTEM_H_

#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>

#include "cache/block_cache.h"
#include "cache/file_block_keys.h"
#include "fs/filesystem_wrapper.h"
#include "hints/block_index_keeper.h"
#include "hints/table_map.h"

namespace hintfs {

class CachingFilesystem : public FilesystemWrapper {
 public:
  // keys: how blocks are keyed, the cache's key mapping if it is kept
  // across mounts (BlockCacheOptions::keys); null: a mapping of its own.
  CachingFilesystem(std::shared_ptr<Filesystem> base, std::shared_ptr<BlockCache> cache,
                    std::shared_ptr<FileBlockKeys> keys = nullptr);

  // When the store hints its evictions itself (RocksDB's secondary cache),
  // file-level admission stops so blocks are not cached twice.
  void set_file_admission(bool on) { file_admission_ = on; }
  bool file_admission() const { return file_admission_; }
  BlockCache* cache() const { return cache_.get(); }

  // HHZS caches only blocks read from the slow tier (§3.5): a block of a
  // fast-tier table is already on the SSD, and caching it would take the
  // place of one that saves an HDD read. A store that hints its evictions
  // names a block by its own cache key, not by file and offset, so the key is
  // tied to the read that follows its miss: after ExpectRead(key) (the
  // store's lookup of key missed), the next table read of the same thread
  // notes which tier served it; TakeReadFromSlowTier(key) then answers once
  // whether that was the slow tier (false for a key never read, or one
  // forgotten among more than kRememberedSlowReads newer ones).
  void ExpectRead(const std::string& key);
  bool TakeReadFromSlowTier(const std::string& key);
  // Called by table readers while file admission is off.
  void NoteHintedRead(bool slow);
  static constexpr size_t kRememberedSlowReads = 1 << 16;

  // Where block boundaries come from: the keeper's indexes, never a read of
  // the table. Parsing a table's index from the slow tier cost every table
  // several HDD seeks at its first read in each mount (RocksDB's load on the
  // mount made 2.6 times the small HDD reads of a mount without the cache,
  // docs/benchmarks.md). Call before the first read.
  void UseBlockIndexes(std::shared_ptr<BlockIndexKeeper> keeper) { keeper_ = std::move(keeper); }
  // The block map of the table file at path at its current version (kept
  // once known); nullptr if the file is no table the parser reads, or the
  // keeper has no index of it yet (asked again at the next read).
  std::shared_ptr<const TableMap> TableMapFor(const std::string& path, FileReader* reader,
                                              const ReadLocation& where);
  // How this layer keys the blocks it caches.
  FileBlockKeys* keys() const { return keys_.get(); }

  // Closes the cache, then unmounts the wrapped filesystem.
  Status Unmount() override;
  // Readers of table files go through the cache; other files are the base's.
  Status OpenReader(const std::string& path, std::unique_ptr<FileReader>* reader) override;

 private:
  std::shared_ptr<BlockCache> cache_;
  std::shared_ptr<BlockIndexKeeper> keeper_;
  std::shared_ptr<FileBlockKeys> keys_;
  std::atomic<bool> file_admission_{true};
  std::mutex maps_mu_;
  // (file id, data version) -> block map, or null for files that are no table.
  std::map<std::pair<uint64_t, uint64_t>, std::shared_ptr<const TableMap>> maps_;
  std::mutex slow_mu_;
  std::unordered_set<std::string> slow_reads_;  // keys whose block came from the slow tier
  std::deque<std::string> slow_order_;          // the same keys, oldest first
};

// The caching layer fs is, or null if it is none (a mount that runs no
// cache). The one place that asks: callers compiled without RTTI (a RocksDB
// ROCKSDB_PLUGINS build, rocksdb-plugin/) use it rather than dynamic_cast.
CachingFilesystem* CachingLayerOf(Filesystem* fs);

}  // namespace hintfs

#endif  // HINTFS_CACHE_CACHING_FILESYSTEM_H_
