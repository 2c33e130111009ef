#include "hints/manifest_watcher.h"

#include <algorithm>

#include "hints/file_kind.h"

namespace hintfs {

namespace {
std::string Dir(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}
std::string Base(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}
}  // namespace

ManifestWatcher::ManifestWatcher(std::shared_ptr<HintBus> bus, std::shared_ptr<IoObserver> next)
    : bus_(std::move(bus)), next_(std::move(next)) {}

void ManifestWatcher::OnCreate(const std::string& path, ZoneRole role) {
  std::string base = Base(path);
  if (base.size() > 4 && base.compare(base.size() - 4, 4, ".ldb") == 0) {
    std::lock_guard<std::mutex> l(mu_);
    ext_by_dir_[Dir(path)] = ".ldb";  // LevelDB names its tables *.ldb
  }
  if (next_) next_->OnCreate(path, role);
}

void ManifestWatcher::OnLifetimeHint(const std::string& path, int lifetime) {
  if (next_) next_->OnLifetimeHint(path, lifetime);
}

void ManifestWatcher::OnClose(const std::string& path, uint64_t size) {
  if (next_) next_->OnClose(path, size);
}

void ManifestWatcher::OnAppend(const std::string& path, std::string_view data) {
  if (next_) next_->OnAppend(path, data);
  if (!IsManifestFile(path)) return;
  std::vector<Hint> hints;
  {
    std::lock_guard<std::mutex> l(mu_);
    Watched& w = manifests_[path];
    if (w.broken) return;
    std::vector<VersionEdit> edits;
    if (!w.reader.Feed(data, &edits).ok()) w.broken = true;
    for (const VersionEdit& e : edits) {
      std::vector<Hint> h = HintsFromEdit(e, Dir(path), TableExtensionLocked(Dir(path), e));
      hints.insert(hints.end(), h.begin(), h.end());
    }
  }
  for (Hint& h : hints) bus_->Publish(std::move(h));  // outside our lock
}

std::string ManifestWatcher::TableExtensionLocked(const std::string& dir, const VersionEdit& edit) {
  auto known = ext_by_dir_.find(dir);
  if (known != ext_by_dir_.end()) return known->second;
  // LevelDB records no sequence numbers for its tables, RocksDB always
  // does. After a remount LevelDB rewrites its MANIFEST before it creates
  // any table, so its names cannot be learnt from a creation first.
  bool leveldb = !edit.new_files.empty() &&
                 std::none_of(edit.new_files.begin(), edit.new_files.end(),
                              [](const ManifestFile& f) { return f.largest_seqno.has_value(); });
  if (!leveldb) return ".sst";
  ext_by_dir_[dir] = ".ldb";
  return ".ldb";
}

void ManifestWatcher::OnDelete(const std::string& path) {
  if (IsManifestFile(path)) {
    std::lock_guard<std::mutex> l(mu_);
    manifests_.erase(path);
  }
  if (next_) next_->OnDelete(path);
}

void ManifestWatcher::OnRead(const std::string& path, uint64_t offset, uint64_t bytes, uint64_t slow_bytes) {
  if (next_) next_->OnRead(path, offset, bytes, slow_bytes);
}

}  // namespace hintfs
