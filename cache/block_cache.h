// BlockCache: HHZS's application-hinted SSD cache (§3.5). Blocks that live
// on the slow tier are kept, when the admission policy calls them hot, in
// cache zones on the fast tier, so a later read is served from there.
//
// Space: the fast tier keeps a budget shared by the WAL and the cache (the
// hhzs policy holds it back from tables); the cache may use what the WAL does
// not, and the WAL always wins: before opening a new cache zone, and every few
// hundred admissions, the cache gives back zones the WAL has grown into,
// oldest first.
//
// Layout: a cache zone is a file of exactly one fast zone under
// kCacheDirectory, whose files the filesystem keeps on the fast tier in
// their own class (kCacheClass, Filesystem::KeepOnFastTier). Blocks are appended to the newest; a mapping
// table (key -> zone, offset, length, CRC32C) and a FIFO of zones find them;
// evicting the oldest zone drops its keys and deletes its file. The cache is
// volatile: its contents and mappings start empty at every mount. Every hit is
// checked against the block's CRC32C, so a damaged cache block is a miss.
//
// Keys are opaque: the FS-level reader uses (file, version, offset, length),
// the RocksDB secondary cache RocksDB's own block keys, which are unique to a
// table file, so a deleted or rewritten file's blocks are never asked for.
// Thread safe.
#ifndef HINTFS_CACHE_BLOCK_CACHE_H_
#define HINTFS_CACHE_BLOCK_CACHE_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cache/admission.h"
#include "fs/filesystem.h"

namespace hintfs {

// The cache's files, one per cache zone; hidden from listings of the mount.
constexpr char kCacheDirectory[] = "/.hintfs-cache";

struct BlockCacheOptions {
  std::string admission = "all";  // see admission.h
  uint64_t budget_bytes = 0;      // fast bytes shared by the WAL and the cache
  uint64_t block_bytes = 4096;    // the typical block (sizes the admission policy)
};

struct BlockCacheStats {
  uint64_t lookups = 0, hits = 0, misses = 0;
  uint64_t offered = 0, admitted = 0, rejected = 0;  // rejected: not hot, or no room
  uint64_t evicted_zones = 0, evicted_blocks = 0;
  uint64_t bad_blocks = 0;  // hits whose bytes failed their checksum (served as misses)
  uint64_t blocks = 0, bytes = 0, zones = 0;  // held now
  uint64_t bytes_served = 0;
};

class BlockCache {
 public:
  // Clears what an earlier mount's cache left and opens an empty cache.
  // InvalidArgument without a fast device, NotFound for an unknown
  // admission policy; the filesystem's errors for its directory.
  static Status Open(Filesystem* fs, const BlockCacheOptions& options, std::unique_ptr<BlockCache>* cache);
  ~BlockCache();  // Close()

  // On a hit copies the block into *value.
  bool Lookup(const std::string& key, std::string* value);
  // Tells the admission policy that key was accessed (missed the store's cache).
  void RecordAccess(const std::string& key, uint64_t size);
  // Offers a block; kept if the admission policy calls it hot and there is
  // room within the budget. True if kept (or already held).
  bool Offer(const std::string& key, std::string_view value);
  void Erase(const std::string& key);

  BlockCacheStats stats() const;
  // {"admission":..,"hits":..,"misses":..,"hit_ratio":..,"admitted":..,...}
  std::string StatsJson() const;
  const BlockCacheOptions& options() const { return options_; }

  // Saves the statistics as the filesystem attribute "cache" and deletes the
  // cache's files. Idempotent; the cache is empty afterwards. Returns the
  // attribute write's status (the files are removed best effort).
  Status Close();

 private:
  struct Location {
    uint64_t zone_seq = 0;
    uint64_t offset = 0;
    uint32_t length = 0;
    uint32_t crc = 0;
  };
  struct Zone {
    uint64_t seq = 0;
    std::string path;
    uint64_t size = 0;
    std::vector<std::string> keys;
    std::unique_ptr<FileWriter> writer;  // the newest zone only
  };

  BlockCache(Filesystem* fs, const BlockCacheOptions& options, std::unique_ptr<AdmissionPolicy> policy,
             uint64_t zone_bytes);
  // The cache's share of the budget now, in zones (from the WAL's zones).
  uint64_t AllowedZonesLocked();
  void EvictOldestLocked();
  // Evicts the oldest zones until at most zones are left.
  void KeepAtMostLocked(uint64_t zones);
  bool OpenZoneLocked();

  Filesystem* fs_;
  BlockCacheOptions options_;
  std::unique_ptr<AdmissionPolicy> policy_;
  const uint64_t zone_bytes_;

  mutable std::mutex mu_;
  std::unordered_map<std::string, Location> map_;
  std::deque<Zone> zones_;  // oldest first
  uint64_t next_seq_ = 1;
  uint64_t offers_since_check_ = 0;
  bool closed_ = false;
  BlockCacheStats stats_;
};

}  // namespace hintfs

#endif  // HINTFS_CACHE_BLOCK_CACHE_H_
