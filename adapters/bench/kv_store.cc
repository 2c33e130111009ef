#include "adapters/bench/kv_store.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <sstream>
#include <thread>

#include <leveldb/cache.h>
#include <leveldb/db.h>
#include <leveldb/env.h>
#include <leveldb/filter_policy.h>
#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/secondary_cache.h>
#include <rocksdb/table.h>

#include "adapters/bench/leveldb_tables.h"
#include "adapters/common/mount_registry.h"
#include "adapters/leveldb/hintfs_leveldb.h"
#include "adapters/rocksdb/hintfs_rocksdb.h"
#include "fs/uri.h"

namespace hintfs {
namespace {

// A benchmark that counts failures must also say why: the first failed
// operation's status goes to stderr (once per process).
template <typename StatusT>
bool Checked(const StatusT& s, const char* what) {
  static std::atomic<bool> reported{false};
  if (!s.ok() && !s.IsNotFound() && !reported.exchange(true)) {
    std::fprintf(stderr, "hintfs-ycsb: %s failed: %s (further failures are only counted)\n", what,
                 s.ToString().c_str());
  }
  return s.ok() || s.IsNotFound();
}

class RocksDbStore : public KvStore {
 public:
  RocksDbStore(std::unique_ptr<rocksdb::Env> env, std::shared_ptr<Filesystem> fs, bool sync)
      : env_(std::move(env)), fs_(std::move(fs)) {
    write_options_.sync = sync;
  }
  ~RocksDbStore() override { Close(); }

  bool Open(const rocksdb::Options& options, const std::string& path, std::string* error) {
    rocksdb::DB* raw = nullptr;
    rocksdb::Status s = rocksdb::DB::Open(options, path, &raw);
    if (!s.ok()) {
      *error = "open " + path + ": " + s.ToString();
      return false;
    }
    db_.reset(raw);
    return true;
  }

  bool Put(const std::string& key, const std::string& value) override {
    return Checked(db_->Put(write_options_, key, value), "put");
  }
  bool Get(const std::string& key, std::string* value) override {
    return Checked(db_->Get(rocksdb::ReadOptions(), key, value), "get");
  }
  bool Scan(const std::string& key, uint64_t n) override {
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
    it->Seek(key);
    for (uint64_t i = 0; i < n && it->Valid(); i++) it->Next();
    return it->status().ok();
  }
  bool Close() override {
    if (!db_) return true;
    bool ok = Checked(db_->Close(), "close");
    db_.reset();
    return ok;
  }
  bool WaitForCompactions(double timeout_seconds) override {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
    int quiet = 0;  // polls in a row with nothing running, pending or unflushed
    while (std::chrono::steady_clock::now() < deadline) {
      uint64_t pending = 1, running = 1, flushes = 1;
      db_->GetIntProperty("rocksdb.compaction-pending", &pending);
      db_->GetIntProperty("rocksdb.num-running-compactions", &running);
      db_->GetIntProperty("rocksdb.num-running-flushes", &flushes);
      quiet = pending == 0 && running == 0 && flushes == 0 ? quiet + 1 : 0;
      if (quiet >= 3) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
  Filesystem* hintfs() override { return fs_.get(); }

 private:
  std::unique_ptr<rocksdb::Env> env_;  // outlives db_
  std::shared_ptr<Filesystem> fs_;
  rocksdb::WriteOptions write_options_;
  std::unique_ptr<rocksdb::DB> db_;
};

class LevelDbStore : public KvStore {
 public:
  LevelDbStore(std::unique_ptr<leveldb::Env> env, std::shared_ptr<Filesystem> fs, bool sync)
      : env_(std::move(env)), fs_(std::move(fs)) {
    write_options_.sync = sync;
  }
  ~LevelDbStore() override { Close(); }

  bool Open(leveldb::Options options, uint64_t block_cache, int bloom_bits, bool open_tables,
            const std::string& path, std::string* error) {
    cache_.reset(leveldb::NewLRUCache(block_cache));
    options.block_cache = cache_.get();
    if (bloom_bits > 0) {
      filter_.reset(leveldb::NewBloomFilterPolicy(bloom_bits));
      options.filter_policy = filter_.get();
    }
    if (env_) options.env = env_.get();
    leveldb::DB* raw = nullptr;
    leveldb::Status s = leveldb::DB::Open(options, path, &raw);
    if (!s.ok()) {
      *error = "open " + path + ": " + s.ToString();
      return false;
    }
    db_.reset(raw);
    if (open_tables) {
      auto t0 = std::chrono::steady_clock::now();
      int tables = OpenEveryLevelDbTable(db_.get());
      std::printf("open      %d LevelDB tables opened before the first phase in %.1f s\n", tables,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return true;
  }

  bool Put(const std::string& key, const std::string& value) override {
    return Checked(db_->Put(write_options_, key, value), "put");
  }
  bool Get(const std::string& key, std::string* value) override {
    return Checked(db_->Get(leveldb::ReadOptions(), key, value), "get");
  }
  bool Scan(const std::string& key, uint64_t n) override {
    std::unique_ptr<leveldb::Iterator> it(db_->NewIterator(leveldb::ReadOptions()));
    it->Seek(key);
    for (uint64_t i = 0; i < n && it->Valid(); i++) it->Next();
    return it->status().ok();
  }
  bool Close() override {
    db_.reset();
    return true;
  }
  bool WaitForCompactions(double) override { return true; }
  Filesystem* hintfs() override { return fs_.get(); }

 private:
  std::unique_ptr<leveldb::Env> env_;  // null: the default Env
  std::shared_ptr<Filesystem> fs_;
  std::unique_ptr<leveldb::Cache> cache_;
  std::unique_ptr<const leveldb::FilterPolicy> filter_;
  leveldb::WriteOptions write_options_;
  std::unique_ptr<leveldb::DB> db_;  // last: closed before the cache and filter go
};

// Mounts (or shares the mount of) the hintfs a spec names.
bool MountOf(const std::string& spec, std::shared_ptr<Filesystem>* fs, std::string* device, std::string* error) {
  DeviceUri parsed;
  Status s = DeviceUri::Parse(spec, &parsed);
  if (s.ok()) {
    *device = parsed.scheme + ":" + parsed.path;
    s = AcquireMount(*device, fs);
  }
  if (!s.ok()) *error = s.ToString();
  return s.ok();
}

// LevelDB has no options string: the few options a benchmark sets.
bool ParseLevelDbOptions(const std::string& text, leveldb::Options* o, std::string* error) {
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ';');) {
    if (item.empty()) continue;
    size_t eq = item.find('=');
    uint64_t value = 0;
    if (eq == std::string::npos || !ParseSize(item.substr(eq + 1), &value).ok()) {
      *error = "--db-options: '" + item + "' is not name=size";
      return false;
    }
    std::string name = item.substr(0, eq);
    if (name == "write_buffer_size") o->write_buffer_size = value;
    else if (name == "max_file_size") o->max_file_size = value;
    else if (name == "block_size") o->block_size = value;
    else if (name == "max_open_files") o->max_open_files = static_cast<int>(value);
    else {
      *error = "--db-options: LevelDB option '" + name +
               "' (known: write_buffer_size, max_file_size, block_size, max_open_files)";
      return false;
    }
  }
  return true;
}

bool OpenRocksDb(const KvStoreOptions& a, std::unique_ptr<KvStore>* store, std::string* error,
                 bool* usage_error) {
  rocksdb::ConfigOptions cfg;
  std::unique_ptr<rocksdb::Env> env;
  std::shared_ptr<Filesystem> fs;
  std::shared_ptr<rocksdb::SecondaryCache> secondary;
  rocksdb::Options o;
  o.create_if_missing = true;
  o.compression = rocksdb::kNoCompression;
  if (!a.db_options.empty()) {
    rocksdb::Status rs = rocksdb::GetOptionsFromString(cfg, o, a.db_options, &o);
    if (!rs.ok()) {
      *error = "--db-options: " + rs.ToString();
      *usage_error = true;
      return false;
    }
  }
  if (!a.hintfs_spec.empty()) {
    RegisterHintfsWithRocksDb();
    std::shared_ptr<rocksdb::FileSystem> rfs;
    rocksdb::Status rs = rocksdb::FileSystem::CreateFromString(cfg, std::string(kRocksDbScheme) + a.hintfs_spec, &rfs);
    if (!rs.ok()) {
      *error = rs.ToString();
      return false;
    }
    std::string device;
    if (!MountOf(a.hintfs_spec, &fs, &device, error)) return false;
    env = rocksdb::NewCompositeEnv(rfs);
    o.env = env.get();
    if (a.listener) o.listeners.push_back(NewHintRocksListener());
    if (a.secondary_cache) {
      rs = NewHintSecondaryCache(device, &secondary);
      if (!rs.ok()) {
        *error = rs.ToString();
        return false;
      }
    }
  } else if (a.secondary_cache) {
    *error = "--secondary-cache needs a hintfs target (--uri)";
    *usage_error = true;
    return false;
  }
  rocksdb::LRUCacheOptions lru(a.block_cache_bytes, -1, false, 0.5);
  lru.secondary_cache = secondary;
  // Table options --db-options set (block_based_table_factory={block_size=..})
  // are kept; the block cache and the filter are this program's.
  rocksdb::BlockBasedTableOptions t;
  if (const auto* given = o.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>()) t = *given;
  t.block_cache = rocksdb::NewLRUCache(lru);
  if (a.bloom_bits > 0) t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(a.bloom_bits));
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  auto rocks = std::make_unique<RocksDbStore>(std::move(env), std::move(fs), a.sync_writes);
  if (!rocks->Open(o, a.hintfs_spec.empty() ? a.host_dir : a.db_path, error)) return false;
  *store = std::move(rocks);
  return true;
}

bool OpenLevelDb(const KvStoreOptions& a, std::unique_ptr<KvStore>* store, std::string* error,
                 bool* usage_error) {
  leveldb::Options o;
  o.create_if_missing = true;
  o.compression = leveldb::kNoCompression;
  if (!ParseLevelDbOptions(a.db_options, &o, error)) {
    *usage_error = true;
    return false;
  }
  if (a.secondary_cache) {
    *error = "--secondary-cache is RocksDB's; LevelDB on hintfs uses the file-level cache";
    *usage_error = true;
    return false;
  }
  std::unique_ptr<leveldb::Env> env;
  std::shared_ptr<Filesystem> fs;
  if (!a.hintfs_spec.empty()) {
    leveldb::Status ls = NewHintLevelDbEnv(a.hintfs_spec, &env);
    if (!ls.ok()) {
      *error = ls.ToString();
      return false;
    }
    std::string device;
    if (!MountOf(a.hintfs_spec, &fs, &device, error)) return false;
  }
  auto level = std::make_unique<LevelDbStore>(std::move(env), std::move(fs), a.sync_writes);
  const std::string& path = a.hintfs_spec.empty() ? a.host_dir : a.db_path;
  if (!level->Open(o, a.block_cache_bytes, a.bloom_bits, a.open_tables, path, error)) return false;
  *store = std::move(level);
  return true;
}

}  // namespace

bool OpenKvStore(const KvStoreOptions& options, std::unique_ptr<KvStore>* store, std::string* error,
                 bool* usage_error) {
  *usage_error = false;
  if (options.hintfs_spec.empty() == options.host_dir.empty()) {
    *error = "give exactly one target: --uri (hintfs) or --dir (host filesystem)";
    *usage_error = true;
    return false;
  }
  if (options.engine == "rocksdb") return OpenRocksDb(options, store, error, usage_error);
  if (options.engine == "leveldb") return OpenLevelDb(options, store, error, usage_error);
  *error = "unknown engine '" + options.engine + "' (rocksdb, leveldb)";
  *usage_error = true;
  return false;
}

}  // namespace hintfs
