// Registration with RocksDB's object registry, run when the library loads.
#include <cstring>
#include <mutex>

#include <rocksdb/utilities/object_registry.h>

#include "adapters/rocksdb/hintfs_rocksdb.h"

namespace hintfs {

void RegisterHintfsWithRocksDb() {
  static std::once_flag once;
  std::call_once(once, [] { AddHintfsFactories(*rocksdb::ObjectLibrary::Default()); });
}

int AddHintfsFactories(rocksdb::ObjectLibrary& library) {
  // The spec may be empty here, so that "hintfs://" alone gets our error
  // rather than RocksDB's handling of an unknown URI (a crash in 7.8).
  library.AddFactory<rocksdb::FileSystem>(
      rocksdb::ObjectLibrary::PatternEntry("hintfs", false).AddSeparator("://", false),
      [](const std::string& uri, std::unique_ptr<rocksdb::FileSystem>* guard,
         std::string* errmsg) -> rocksdb::FileSystem* {
        std::shared_ptr<rocksdb::FileSystem> fs;
        std::string spec = uri.substr(std::strlen(kRocksDbScheme));
        if (spec.empty()) {
          *errmsg = "hintfs:// needs a member device, e.g. hintfs://file:/var/lib/db/ssd.img";
          return nullptr;
        }
        rocksdb::IOStatus s = NewHintRocksFileSystem(spec, &fs);
        if (!s.ok()) {
          *errmsg = s.ToString();
          return nullptr;
        }
        // The registry wants sole ownership; the mount itself stays shared.
        struct Holder : rocksdb::FileSystemWrapper {
          explicit Holder(std::shared_ptr<rocksdb::FileSystem> t) : FileSystemWrapper(std::move(t)) {}
          const char* Name() const override { return target()->Name(); }
        };
        guard->reset(new Holder(fs));
        return guard->get();
      });
  library.AddFactory<rocksdb::SecondaryCache>(
      rocksdb::ObjectLibrary::PatternEntry("hintfs", false).AddSeparator("://", true),
      [](const std::string& uri, std::unique_ptr<rocksdb::SecondaryCache>* guard,
         std::string* errmsg) -> rocksdb::SecondaryCache* {
        std::shared_ptr<rocksdb::SecondaryCache> cache;
        rocksdb::Status s = NewHintSecondaryCache(uri.substr(std::strlen(kRocksDbScheme)), &cache);
        if (!s.ok()) {
          *errmsg = s.ToString();
          return nullptr;
        }
        // The registry wants sole ownership; the cache itself is shared.
        struct Holder : rocksdb::SecondaryCache {
          explicit Holder(std::shared_ptr<rocksdb::SecondaryCache> t) : t_(std::move(t)) {}
          const char* Name() const override { return t_->Name(); }
          rocksdb::Status Insert(const rocksdb::Slice& k, void* v, const rocksdb::Cache::CacheItemHelper* h) override {
            return t_->Insert(k, v, h);
          }
          std::unique_ptr<rocksdb::SecondaryCacheResultHandle> Lookup(const rocksdb::Slice& k,
                                                                       const rocksdb::Cache::CreateCallback& cb,
                                                                       bool wait, bool advise_erase,
                                                                       bool& in_sec) override {
            return t_->Lookup(k, cb, wait, advise_erase, in_sec);
          }
          bool SupportForceErase() const override { return t_->SupportForceErase(); }
          void Erase(const rocksdb::Slice& k) override { t_->Erase(k); }
          void WaitAll(std::vector<rocksdb::SecondaryCacheResultHandle*> hs) override { t_->WaitAll(hs); }
          std::string GetPrintableOptions() const override { return t_->GetPrintableOptions(); }
          std::shared_ptr<rocksdb::SecondaryCache> t_;
        };
        guard->reset(new Holder(cache));
        return guard->get();
      });
  library.AddFactory<rocksdb::EventListener>(
      kRocksDbListenerName,
      [](const std::string&, std::unique_ptr<rocksdb::EventListener>* guard, std::string*) {
        *guard = MakeHintRocksListener();
        return guard->get();
      });
  return 3;
}

namespace {
// Loading the library (LD_PRELOAD, dlopen, or linking) is all it takes.
const int kRegistered = (RegisterHintfsWithRocksDb(), 0);
}  // namespace

}  // namespace hintfs

extern "C" int hintfs_register_rocksdb(rocksdb::ObjectLibrary& library, const std::string&) {
  return hintfs::AddHintfsFactories(library);
}
