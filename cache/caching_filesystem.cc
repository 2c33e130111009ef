#include "cache/caching_filesystem.h"

#include <cstring>

#include <fmt/format.h>

#include "hints/level_inference.h"

namespace hintfs {

namespace {

// Block maps kept; the oldest files' go first.
constexpr size_t kMaxTableMaps = 4096;

class CachingReader : public FileReader {
 public:
  CachingReader(CachingFilesystem* fs, std::unique_ptr<FileReader> base) : fs_(fs), base_(std::move(base)) {}

  Status Read(uint64_t offset, size_t n, char* scratch, size_t* got) override {
    ReadLocation where = base_->Locate(offset, n);
    if (!where.slow || !fs_->file_admission()) return base_->Read(offset, n, scratch, got);
    std::shared_ptr<const TableMap> map = fs_->TableMapFor(base_.get(), where);
    // Only whole data blocks (with their trailer), as the stores read them.
    int64_t block = map ? map->FindBlock(offset) : -1;
    if (block < 0 || map->data_blocks[block].size + TableMap::kBlockTrailer != n) {
      return base_->Read(offset, n, scratch, got);
    }
    std::string key = fmt::format("f{}.{}@{}+{}", where.file_id, where.data_version, offset, n);
    BlockCache* cache = fs_->cache();
    std::string value;
    if (cache->Lookup(key, &value) && value.size() == n) {
      std::memcpy(scratch, value.data(), n);
      *got = n;
      return Status::OK();
    }
    Status s = base_->Read(offset, n, scratch, got);
    if (s.ok() && *got == n) {
      cache->RecordAccess(key, n);
      cache->Offer(key, std::string_view(scratch, n));
    }
    return s;
  }
  uint64_t Size() const override { return base_->Size(); }
  ReadLocation Locate(uint64_t offset, size_t n) const override { return base_->Locate(offset, n); }

 private:
  CachingFilesystem* fs_;
  std::unique_ptr<FileReader> base_;
};

}  // namespace

CachingFilesystem::CachingFilesystem(std::shared_ptr<Filesystem> base, std::shared_ptr<BlockCache> cache)
    : base_(std::move(base)), cache_(std::move(cache)) {}

std::shared_ptr<const TableMap> CachingFilesystem::TableMapFor(FileReader* reader, const ReadLocation& where) {
  auto key = std::make_pair(where.file_id, where.data_version);
  {
    std::lock_guard<std::mutex> l(maps_mu_);
    auto it = maps_.find(key);
    if (it != maps_.end()) return it->second;
  }
  auto map = std::make_shared<TableMap>();
  Status s = ParseTable(reader->Size(), [&](uint64_t offset, size_t n, std::string* out) {
    out->resize(n);
    size_t got = 0;
    Status rs = reader->Read(offset, n, &(*out)[0], &got);
    if (rs.ok() && got != n) rs = Status::Corruption("table shorter than its footer says");
    return rs;
  }, map.get());
  std::shared_ptr<const TableMap> result = s.ok() ? map : nullptr;
  std::lock_guard<std::mutex> l(maps_mu_);
  if (maps_.size() >= kMaxTableMaps) maps_.erase(maps_.begin());
  maps_[key] = result;
  return result;
}

Status CachingFilesystem::OpenReader(const std::string& path, std::unique_ptr<FileReader>* reader) {
  std::unique_ptr<FileReader> base;
  Status s = base_->OpenReader(path, &base);
  if (!s.ok()) return s;
  if (LevelInference::IsTableFile(path)) {
    reader->reset(new CachingReader(this, std::move(base)));
  } else {
    *reader = std::move(base);
  }
  return Status::OK();
}

Status CachingFilesystem::Unmount() {
  cache_->Close();
  return base_->Unmount();
}

Status CachingFilesystem::OpenWriter(const std::string& path, WriteMode mode, std::unique_ptr<FileWriter>* writer) {
  return base_->OpenWriter(path, mode, writer);
}
Status CachingFilesystem::Stat(const std::string& path, FileStat* stat) { return base_->Stat(path, stat); }
Status CachingFilesystem::ReadDir(const std::string& path, std::vector<DirEntry>* entries) {
  return base_->ReadDir(path, entries);
}
Status CachingFilesystem::Mkdir(const std::string& path) { return base_->Mkdir(path); }
Status CachingFilesystem::Rmdir(const std::string& path) { return base_->Rmdir(path); }
Status CachingFilesystem::Unlink(const std::string& path) { return base_->Unlink(path); }
Status CachingFilesystem::Rename(const std::string& from, const std::string& to) { return base_->Rename(from, to); }
Status CachingFilesystem::Link(const std::string& existing, const std::string& new_path) {
  return base_->Link(existing, new_path);
}
Status CachingFilesystem::Truncate(const std::string& path, uint64_t size) { return base_->Truncate(path, size); }
Status CachingFilesystem::SetMtime(const std::string& path, int64_t mtime_ns) { return base_->SetMtime(path, mtime_ns); }
Status CachingFilesystem::SetHints(const std::string& path, const FileHints& hints) {
  return base_->SetHints(path, hints);
}
Status CachingFilesystem::Lock(const std::string& path, std::unique_ptr<FileLock>* lock) {
  return base_->Lock(path, lock);
}
Status CachingFilesystem::SyncMetadata() { return base_->SyncMetadata(); }
Status CachingFilesystem::SetAttribute(const std::string& name, const std::string& value) {
  return base_->SetAttribute(name, value);
}
std::map<std::string, std::string> CachingFilesystem::Attributes() { return base_->Attributes(); }
Status CachingFilesystem::CollectGarbage(uint32_t max_zones, uint32_t* zones_freed) {
  return base_->CollectGarbage(max_zones, zones_freed);
}
Status CachingFilesystem::Usage(std::vector<DeviceUsage>* usage) { return base_->Usage(usage); }
Status CachingFilesystem::Zones(std::vector<ZoneReport>* zones) { return base_->Zones(zones); }
FsStats CachingFilesystem::Stats() { return base_->Stats(); }
const Superblock& CachingFilesystem::superblock() const { return base_->superblock(); }
std::string CachingFilesystem::policy_name() const { return base_->policy_name(); }
std::string CachingFilesystem::PolicyStateJson() const { return base_->PolicyStateJson(); }
Status CachingFilesystem::Check(bool deep, FsckReport* report, const ProgressFn& progress) {
  return base_->Check(deep, report, progress);
}
Status CachingFilesystem::MigrateFile(const std::string& path, Tier to, RateLimiter* limiter, MigrateResult* result) {
  return base_->MigrateFile(path, to, limiter, result);
}

}  // namespace hintfs
