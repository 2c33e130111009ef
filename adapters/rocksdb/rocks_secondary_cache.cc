// RocksDB's SecondaryCache over the mount's SSD block cache.
#include <rocksdb/secondary_cache.h>

#include "adapters/common/mount_registry.h"
#include "adapters/rocksdb/hintfs_rocksdb.h"
#include "cache/caching_filesystem.h"

namespace hintfs {

namespace {

class ReadyHandle : public rocksdb::SecondaryCacheResultHandle {
 public:
  ReadyHandle(void* value, size_t size) : value_(value), size_(size) {}
  bool IsReady() override { return true; }
  void Wait() override {}
  void* Value() override { return value_; }
  size_t Size() override { return size_; }

 private:
  void* value_;
  size_t size_;
};

class HintSecondaryCache : public rocksdb::SecondaryCache {
 public:
  HintSecondaryCache(std::shared_ptr<Filesystem> fs, CachingFilesystem* caching)
      : fs_(std::move(fs)), caching_(caching) {
    caching_->set_file_admission(false);  // RocksDB hints its evictions itself
  }
  ~HintSecondaryCache() override { caching_->set_file_admission(true); }

  const char* Name() const override { return "HintfsSecondaryCache"; }

  // A block RocksDB evicted from its block cache: HHZS's cache hint. Only
  // blocks read from the slow tier are kept (CachingFilesystem::ExpectRead).
  rocksdb::Status Insert(const rocksdb::Slice& key, void* value,
                         const rocksdb::Cache::CacheItemHelper* helper) override {
    if (helper == nullptr || helper->size_cb == nullptr || helper->saveto_cb == nullptr) {
      return rocksdb::Status::OK();  // nothing we could store
    }
    if (!caching_->TakeReadFromSlowTier(key.ToString())) return rocksdb::Status::OK();
    size_t size = helper->size_cb(value);
    std::string buf(size, '\0');
    rocksdb::Status s = helper->saveto_cb(value, 0, size, &buf[0]);
    if (!s.ok()) return s;
    caching_->cache()->Offer(key.ToString(), buf);
    return rocksdb::Status::OK();
  }

  std::unique_ptr<rocksdb::SecondaryCacheResultHandle> Lookup(const rocksdb::Slice& key,
                                                               const rocksdb::Cache::CreateCallback& create_cb,
                                                               bool /*wait*/, bool /*advise_erase*/,
                                                               bool& is_in_sec_cache) override {
    is_in_sec_cache = false;
    std::string k = key.ToString();
    BlockCache* cache = caching_->cache();
    std::string buf;
    if (!cache->Lookup(k, &buf)) {
      cache->RecordAccess(k, caching_->cache()->options().block_bytes);
      caching_->ExpectRead(k);  // RocksDB reads the block from its table next
      return nullptr;
    }
    cache->RecordAccess(k, buf.size());
    void* obj = nullptr;
    size_t charge = 0;
    if (!create_cb(buf.data(), buf.size(), &obj, &charge).ok()) return nullptr;
    is_in_sec_cache = true;  // it stays: FIFO zones evict, not lookups
    return std::make_unique<ReadyHandle>(obj, charge);
  }

  bool SupportForceErase() const override { return true; }
  void Erase(const rocksdb::Slice& key) override { caching_->cache()->Erase(key.ToString()); }
  void WaitAll(std::vector<rocksdb::SecondaryCacheResultHandle*>) override {}

  std::string GetPrintableOptions() const override { return caching_->cache()->StatsJson(); }

 private:
  std::shared_ptr<Filesystem> fs_;  // keeps the mount (and its cache) alive
  CachingFilesystem* caching_;
};

}  // namespace

rocksdb::Status NewHintSecondaryCache(const std::string& spec, std::shared_ptr<rocksdb::SecondaryCache>* cache) {
  std::shared_ptr<Filesystem> fs;
  Status s = AcquireMount(spec, &fs);
  if (!s.ok()) return rocksdb::Status::InvalidArgument(spec, s.ToString());
  auto* caching = CachingLayerOf(fs.get());
  if (caching == nullptr) {
    return rocksdb::Status::InvalidArgument(spec, "the mount runs no block cache (use policy hhzs or ?cache=all)");
  }
  *cache = std::make_shared<HintSecondaryCache>(fs, caching);
  return rocksdb::Status::OK();
}

}  // namespace hintfs
