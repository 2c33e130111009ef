// BlockCache: HHZS's application-hinted SSD cache (§3.5). Blocks that live
// on the slow tier are kept, when the admission policy calls them hot, in
// cache zones on the fast tier, so a later read is served from there.
//
// Space: the fast tier keeps a budget shared by the WAL and the cache (the
// hhzs policy holds it back from tables); the cache may use what the WAL does
// not, and the WAL always wins: a WAL writer that finds no zone gets a
// cache zone back at once (Filesystem::SetZoneLender), and before opening a
// new cache zone, and every few hundred admissions, the cache gives back
// zones the WAL has grown into (which zones: Eviction, below).
//
// Borrowing (BlockCacheOptions::borrow_free_zones): the cache also fills
// the fast tier's empty zones, all but kEmptyZonesLeft, and gives a zone
// back to any writer that finds none (a table, the WAL, moved
// blocks), so it never costs placement a zone: its blocks are copies, and a
// zone of them is dropped without a write. Borrowed room is what static
// placement leaves empty between compactions; under uniform keys no block
// is hotter than another, so any blocks there save slow reads in proportion
// to the room (HyperDB's setting, docs/benchmarks.md). Once the cache is
// full a block is admitted only if it missed recently too (a doorkeeper,
// cache/doorkeeper.h, of about as many keys as the cache holds blocks), so that a full cache is not
// rewritten at the slow tier's read rate for nothing.
//
// Layout: a cache zone is a file that fills exactly one fast zone (what a
// zone holds of files: its capacity less the checksum trailer) under
// kCacheDirectory, whose files the filesystem keeps on the fast tier in
// their own class (kCacheClass, Filesystem::KeepOnFastTier); a new one
// writes its first block at once, so that it holds its zone from then on
// (buffered, it would take one only at its close, when the fast tier may
// have none left). Blocks are appended to the newest; a mapping
// table (key -> zone, offset, length, CRC32C) and the zones in age order
// find them; evicting a zone drops its keys and deletes its file. Every hit
// is checked against the block's CRC32C, so a damaged cache block is a miss.
//
// Eviction: the oldest zone that served no read since the last eviction
// goes; older zones that did serve lose that mark as it passes them (a
// second chance, as CLOCK gives pages), and if every zone served, the
// oldest goes. With no reads in between this is FIFO. Blocks read again
// and again thus stay while a zone of blocks read once goes, which matters
// most for a cache kept across mounts (below): its blocks are what the
// last mount read, and only some of them are read again.
//
// Kept across mounts (BlockCacheOptions::keys): a clean Close pads the zone
// being filled and saves the mapping as kCacheIndexFile (docs/formats.md),
// each key in the form the key mapping says stays valid at a later mount;
// the next Open reads it, deletes it, and takes back every block whose key
// the mapping still finds valid, with its zone. Without the file (a killed
// process, a damaged or foreign one: it is checked whole) or without
// keys, the cache starts empty and deletes what an earlier mount left.
// While a kept zone has served no read in this mount, a full borrowing
// cache admits without its doorkeeper, so that new blocks replace kept ones
// nobody reads. A store restarted between runs of 1,953 YCSB C reads ran
// 1.06 times as fast after a restart with the cache kept (medians of nine
// pairs, 1.00-1.10; 20-30% of its slow-tier lookups hit it, 17-22% from an
// empty cache; docs/benchmarks.md, session 93; 1.11 on other loads with an
// earlier build, session 92).
//
// Keys are opaque: the FS-level reader uses (file, version, offset, length),
// the RocksDB secondary cache RocksDB's own block keys, which are unique to a
// table file, so a deleted or rewritten file's blocks are never asked for.
// Thread safe.
#ifndef HINTFS_CACHE_BLOCK_CACHE_H_
#define HINTFS_CACHE_BLOCK_CACHE_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "cache/admission.h"
#include "cache/doorkeeper.h"
#include "fs/filesystem.h"

namespace hintfs {

// The cache's files, one per cache zone; hidden from listings of the mount.
constexpr char kCacheDirectory[] = "/.hintfs-cache";

// The saved mapping (kept across a clean unmount, see above).
constexpr char kCacheIndexFile[] = "/.hintfs-cache/index";

// A key as saved: what it names (a group many keys share, such as a file
// and what shows it unchanged), saved once, and the rest of the key.
struct KeptKey {
  std::string group;  // "": not kept
  std::string item;
  bool operator==(const KeptKey& o) const { return group == o.group && item == o.item; }
};

// How the keys of a cache kept across mounts are saved: the layer that
// makes the keys knows what they name and whether it changed.
class CacheKeyMapping {
 public:
  virtual ~CacheKeyMapping() = default;
  // For each key, the form to save at a clean close: one a later mount can
  // check; an empty group for a key not worth keeping (what it names is
  // gone or changed). One call for all, so that each group is checked once.
  virtual std::vector<KeptKey> ToKept(const std::vector<std::string>& keys) = 0;
  // For each saved key, the key it is looked up by at this mount; "" if
  // what it names changed since it was saved (its block is dropped).
  virtual std::vector<std::string> FromKept(const std::vector<KeptKey>& kept) = 0;
};

struct BlockCacheOptions {
  std::string admission = "all";  // see admission.h
  uint64_t budget_bytes = 0;      // fast bytes shared by the WAL and the cache
  uint64_t block_bytes = 4096;    // the typical block (sizes the admission policy)
  bool borrow_free_zones = false;  // fill empty fast zones too, giving them back on demand
  std::shared_ptr<CacheKeyMapping> keys;  // set: the cache is kept across clean unmounts
};

struct BlockCacheStats {
  uint64_t lookups = 0, hits = 0, misses = 0;
  uint64_t offered = 0, admitted = 0, rejected = 0;  // rejected: not hot, or no room
  uint64_t evicted_zones = 0, evicted_blocks = 0;
  uint64_t given_back_zones = 0;  // evicted because a writer needed the zone
  uint64_t turned_away = 0;       // rejected by the doorkeeper of a full cache
  uint64_t bad_blocks = 0;  // hits whose bytes failed their checksum (served as misses)
  uint64_t blocks = 0, bytes = 0, zones = 0;  // held now
  uint64_t bytes_served = 0;
  uint64_t kept_blocks = 0;  // blocks the mount took back from the last one's saved mapping
};

class BlockCache {
 public:
  // Opens the cache: with options.keys, with the blocks an earlier mount's
  // clean close saved that are still valid; else (and for whatever else an
  // earlier mount left) empty. A missing or damaged saved mapping is no
  // error. InvalidArgument without a fast device, NotFound for an unknown
  // admission policy; the filesystem's errors for its directory.
  static Status Open(Filesystem* fs, const BlockCacheOptions& options, std::unique_ptr<BlockCache>* cache);
  ~BlockCache();  // Close()

  // On a hit copies the block into *value.
  bool Lookup(const std::string& key, std::string* value);
  // Tells the admission policy that key was accessed (missed the store's cache).
  void RecordAccess(const std::string& key, uint64_t size);
  // Offers a block; kept if the admission policy calls it hot and there is
  // room within the budget. The block is written by the cache's own thread,
  // so that no reader waits for a fast-tier write (or for another reader's):
  // True if it is held already or queued to be written (up to
  // kMaxQueuedBytes wait; past that offers are rejected).
  bool Offer(const std::string& key, std::string_view value);
  // Returns once every block queued so far is written or dropped (tests).
  void WaitForAdmissions();
  static constexpr uint64_t kMaxQueuedBytes = 8 << 20;
  void Erase(const std::string& key);

  BlockCacheStats stats() const;
  // {"admission":..,"hits":..,"misses":..,"hit_ratio":..,"admitted":..,...}
  std::string StatsJson() const;
  const BlockCacheOptions& options() const { return options_; }

  // The zone lender's call (Filesystem::SetZoneLender): evicts a zone
  // (EvictColdestLocked) for a writer of writer_class (any class while
  // borrowing, else the WAL only). A borrowing cache gives back the zone it
  // is filling too, when it holds no other: a few KiB of copies held a zone
  // a WAL or a table then missed (docs/benchmarks.md, session 96). False if
  // it holds no zone it can give (none, or one a block is being appended
  // to), is busy past a short wait, or lends nothing to that class.
  bool GiveBackZone(ZoneRole writer_class);

  // Empty fast zones a borrowing cache leaves to the filesystem's reserve
  // and the next writers, so that they seldom wait for a give-back.
  static constexpr uint64_t kEmptyZonesLeft = 2;

  // Saves the statistics as the filesystem attribute "cache"; with
  // options.keys saves the mapping (kCacheIndexFile) and keeps the zones
  // it names, else (or if saving fails) deletes the cache's files.
  // Idempotent: a second call (the destructor's, say) touches nothing, not
  // even the filesystem, which may be unmounted by then. The cache is empty
  // afterwards. Returns the attribute write's status (the files are
  // removed best effort).
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
    uint64_t hits = 0;  // reads it served since an eviction last passed it over
    bool kept = false;  // taken back from the last mount, and has served no read in this one
  };

  BlockCache(Filesystem* fs, const BlockCacheOptions& options, std::unique_ptr<AdmissionPolicy> policy,
             uint64_t zone_bytes);
  // The cache's share of the budget now, in zones (from the WAL's zones),
  // or while borrowing the zones it holds plus the empty ones it may take.
  uint64_t AllowedZonesLocked();
  // A zone kept from the last mount that has served no read in this one.
  bool HasIdleKeptZoneLocked() const;
  // Whether a full borrowing cache takes key: it missed recently too.
  bool PassesDoorkeeperLocked(const std::string& key);
  // The cache's writer thread: appends queued blocks to the newest zone.
  void AdmitLoop();
  // Writes one queued block (mu_ held on entry and exit; released for the
  // append itself, which no one else touches: writing_seq_ guards the zone).
  void AdmitLocked(std::unique_lock<std::mutex>* l, const std::string& key, const std::string& value);
  // Drops the blocks of the oldest zone that served no read since the last
  // eviction (older zones that did lose that mark), or of the oldest if
  // every zone did, and moves it to *dropped; never a zone an append is
  // under way in, and the zone being filled only if filling_too and no
  // other can go. False if no zone can go.
  bool EvictColdestLocked(std::vector<Zone>* dropped, bool filling_too = false);
  // Evicts zones (EvictColdestLocked) until at most zones are left.
  void KeepAtMostLocked(uint64_t zones, std::vector<Zone>* dropped);
  // Deletes the files of dropped zones (no lock held), and commits the
  // deletions if commit, so that their zones are reset at once.
  void DisposeZones(std::vector<Zone>* dropped, bool commit);
  // Closes the newest zone and opens a new one within the allowed zones,
  // evicting the oldest if need be; l (on mu_) is released for the I/O.
  // False if no zone is allowed or the file cannot be created.
  bool OpenZone(std::unique_lock<std::mutex>* l);

  // Takes back the zones and blocks kCacheIndexFile names (if options_.keys
  // and it is intact), then deletes every other file of old (the cache
  // directory's entries at open) and the index. The filesystem's errors.
  Status Restore(const std::vector<DirEntry>& old);
  // Parses a saved mapping into zones_ and map_ (a fresh cache: no lock
  // needed yet); Corruption for anything but a whole, intact one.
  Status ParseKept(std::string_view bytes);
  // Pads the zone being filled and saves the mapping (Close, after the
  // writer thread stopped); *kept: the zones it names. False if it could
  // not be saved.
  bool SaveKept(std::set<uint64_t>* kept);
  // A zone as SaveKept saves it.
  struct SavedZone {
    uint64_t seq = 0, size = 0;
    std::string path;
    std::vector<Location> blocks;  // in the order of their keys
  };
  // The saved mapping of saved (kept_keys: ToKept of their blocks' keys in
  // order); *kept: the zones it names. "" if it names none.
  std::string EncodeKept(const std::vector<SavedZone>& saved, const std::vector<KeptKey>& kept_keys,
                         std::set<uint64_t>* kept) const;
  // Writes the saved mapping's bytes as kCacheIndexFile, durably; on failure
  // removes what was written. NoSpace if the fast tier has no zone for it.
  Status WriteKept(const std::string& bytes);

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
  bool full_ = false;  // borrowing, and no empty zone left to take (rechecked every few hundred offers)
  std::deque<std::pair<std::string, std::string>> queue_;  // offered blocks to write, oldest first
  uint64_t queued_bytes_ = 0;
  uint64_t writing_seq_ = 0;  // the zone an append is under way in, never evicted meanwhile (0: none)
  bool admitting_ = false;    // the writer thread holds a block out of the queue
  std::condition_variable queue_cv_, idle_cv_;
  std::thread writer_thread_;
  Doorkeeper doorkeeper_{1024};  // keys that missed recently (sized to the blocks held)
  BlockCacheStats stats_;
};

}  // namespace hintfs

#endif  // HINTFS_CACHE_BLOCK_CACHE_H_
