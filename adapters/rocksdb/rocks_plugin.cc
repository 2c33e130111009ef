// Registration with RocksDB's object registry, run when the library loads.
#include <cstring>
#include <mutex>

#include <rocksdb/utilities/object_registry.h>

#include "adapters/rocksdb/hintfs_rocksdb.h"

namespace hintfs {

void RegisterHintfsWithRocksDb() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto library = rocksdb::ObjectLibrary::Default();
    library->AddFactory<rocksdb::FileSystem>(
        rocksdb::ObjectLibrary::PatternEntry("hintfs", false).AddSeparator("://", true),
        [](const std::string& uri, std::unique_ptr<rocksdb::FileSystem>* guard,
           std::string* errmsg) -> rocksdb::FileSystem* {
          std::shared_ptr<rocksdb::FileSystem> fs;
          rocksdb::IOStatus s = NewHintRocksFileSystem(uri.substr(std::strlen(kRocksDbScheme)), &fs);
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
    library->AddFactory<rocksdb::EventListener>(
        kRocksDbListenerName,
        [](const std::string&, std::unique_ptr<rocksdb::EventListener>* guard, std::string*) {
          *guard = MakeHintRocksListener();
          return guard->get();
        });
  });
}

namespace {
// Loading the library (LD_PRELOAD, dlopen, or linking) is all it takes.
const int kRegistered = (RegisterHintfsWithRocksDb(), 0);
}  // namespace

}  // namespace hintfs
