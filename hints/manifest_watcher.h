// ManifestWatcher: the hint source for stores that send none. It watches the
// bytes appended to MANIFEST files through the core's IoObserver seam, reads
// their version edits as they are written, and publishes what they say:
// every table added (with its level; "flush" or "compaction") and every table
// deleted, named as the store names its tables (TableExtensionLocked). It
// passes every call on to the next observer (e.g. a trace recorder).
#ifndef HINTFS_HINTS_MANIFEST_WATCHER_H_
#define HINTFS_HINTS_MANIFEST_WATCHER_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "fs/filesystem.h"
#include "hints/hint_bus.h"
#include "hints/manifest.h"

namespace hintfs {

class ManifestWatcher : public IoObserver {
 public:
  ManifestWatcher(std::shared_ptr<HintBus> bus, std::shared_ptr<IoObserver> next);

  void OnCreate(const std::string& path, ZoneRole role) override;
  void OnLifetimeHint(const std::string& path, int lifetime) override;
  void OnAppend(const std::string& path, std::string_view data) override;
  void OnClose(const std::string& path, uint64_t size) override;
  void OnDelete(const std::string& path) override;
  void OnRead(const std::string& path, uint64_t offset, uint64_t bytes, uint64_t slow_bytes) override;

 private:
  struct Watched {
    ManifestReader reader;
    bool broken = false;             // a damaged MANIFEST is not read further
  };

  // What the tables of the store in dir are called: ".ldb" once a LevelDB
  // table was created there or an edit adds tables without sequence numbers
  // (LevelDB's MANIFEST), else RocksDB's ".sst". Old LevelDB releases named
  // their tables ".sst"; such tables, still live in a store a newer LevelDB
  // writes, get the wrong name in hints and stay unknown to placement.
  std::string TableExtensionLocked(const std::string& dir, const VersionEdit& edit);

  std::shared_ptr<HintBus> bus_;
  std::shared_ptr<IoObserver> next_;
  mutable std::mutex mu_;
  std::map<std::string, Watched> manifests_;
  std::map<std::string, std::string> ext_by_dir_;  // what table files are called in a directory
};

}  // namespace hintfs

#endif  // HINTFS_HINTS_MANIFEST_WATCHER_H_
