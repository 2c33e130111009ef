// The key-value stores hintfs-ycsb drives, behind one small interface:
// RocksDB or LevelDB, either on hintfs (a mount spec, through the RocksDB
// plugin or the LevelDB Env) or on a host directory with the store's own
// default Env, for comparisons with the host filesystem.
#ifndef HINTFS_ADAPTERS_BENCH_KV_STORE_H_
#define HINTFS_ADAPTERS_BENCH_KV_STORE_H_

#include <cstdint>
#include <memory>
#include <string>

namespace hintfs {

class Filesystem;

struct KvStoreOptions {
  std::string engine = "rocksdb";  // "rocksdb" or "leveldb"
  std::string hintfs_spec;         // mount spec of a hintfs member; empty: host_dir
  std::string host_dir;            // the database directory on the host filesystem
  std::string db_path = "/db";     // the database path inside hintfs
  // RocksDB: any options string ("name=value;..."); LevelDB: write_buffer_size,
  // max_file_size, block_size, max_open_files.
  std::string db_options;
  uint64_t block_cache_bytes = 8 << 20;
  // Bits per key of a Bloom filter in every table (0: none, both stores'
  // default; RocksDB's tuning guide suggests 10 for point lookups).
  int bloom_bits = 0;
  bool secondary_cache = false;  // RocksDB on hintfs: the SSD cache as secondary cache
  bool listener = true;          // RocksDB on hintfs: HintfsEventListener
  bool sync_writes = false;      // every Put with sync=true (the stores' default is false)
  // LevelDB: open every table when the store opens (leveldb_tables.h), as
  // RocksDB does with its default max_open_files=-1; LevelDB's own way is to
  // open a table at its first read. RocksDB: ignored.
  bool open_tables = false;
};

class KvStore {
 public:
  virtual ~KvStore() = default;
  // Each returns false on an error (a missing key is not one).
  virtual bool Put(const std::string& key, const std::string& value) = 0;
  virtual bool Get(const std::string& key, std::string* value) = 0;
  // Reads up to n records from the first key >= key.
  virtual bool Scan(const std::string& key, uint64_t n) = 0;
  virtual bool Close() = 0;
  // Waits until the store has no compaction running or pending (RocksDB;
  // LevelDB offers no way to ask and returns at once). False on timeout.
  virtual bool WaitForCompactions(double timeout_seconds) = 0;
  // The hintfs filesystem under the store (for per-tier figures), or null.
  virtual Filesystem* hintfs() = 0;
};

// Opens (creating if missing) the store options name. On failure returns
// false with a one-line reason in *error; bad options give *usage_error.
bool OpenKvStore(const KvStoreOptions& options, std::unique_ptr<KvStore>* store, std::string* error,
                 bool* usage_error);

}  // namespace hintfs

#endif  // HINTFS_ADAPTERS_BENCH_KV_STORE_H_
