// FilesystemWrapper: a Filesystem that forwards every call to another one,
// as LevelDB's EnvWrapper does for an Env. A decorating filesystem (the block
// cache's CachingFilesystem, a tiering layer) derives from it and overrides
// only what it changes; everything else, errors included, is the target's.
#ifndef HINTFS_FS_FILESYSTEM_WRAPPER_H_
#define HINTFS_FS_FILESYSTEM_WRAPPER_H_

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "fs/filesystem.h"

namespace hintfs {

class FilesystemWrapper : public Filesystem {
 public:
  explicit FilesystemWrapper(std::shared_ptr<Filesystem> target) : target_(std::move(target)) {}

  // The filesystem calls go to (never null).
  Filesystem* target() const { return target_.get(); }

  Status Unmount() override { return target_->Unmount(); }
  Status OpenWriter(const std::string& path, WriteMode mode, std::unique_ptr<FileWriter>* writer) override {
    return target_->OpenWriter(path, mode, writer);
  }
  Status OpenReader(const std::string& path, std::unique_ptr<FileReader>* reader) override {
    return target_->OpenReader(path, reader);
  }
  Status Stat(const std::string& path, FileStat* stat) override { return target_->Stat(path, stat); }
  Status ReadDir(const std::string& path, std::vector<DirEntry>* entries) override {
    return target_->ReadDir(path, entries);
  }
  Status Mkdir(const std::string& path) override { return target_->Mkdir(path); }
  Status Rmdir(const std::string& path) override { return target_->Rmdir(path); }
  Status Unlink(const std::string& path) override { return target_->Unlink(path); }
  Status Rename(const std::string& from, const std::string& to) override { return target_->Rename(from, to); }
  Status Link(const std::string& existing, const std::string& new_path) override {
    return target_->Link(existing, new_path);
  }
  Status Symlink(const std::string& target, const std::string& path) override {
    return target_->Symlink(target, path);
  }
  Status ReadLink(const std::string& path, std::string* target) override { return target_->ReadLink(path, target); }
  Status MakeSpecial(const std::string& path, uint32_t format, uint64_t rdev) override {
    return target_->MakeSpecial(path, format, rdev);
  }
  Status ReadSpecial(const std::string& path, uint32_t* format, uint64_t* rdev) override {
    return target_->ReadSpecial(path, format, rdev);
  }
  Status SetOwnership(const std::string& path, uint32_t mode, uint32_t uid, uint32_t gid) override {
    return target_->SetOwnership(path, mode, uid, gid);
  }
  Status Truncate(const std::string& path, uint64_t size) override { return target_->Truncate(path, size); }
  Status SetMtime(const std::string& path, int64_t mtime_ns) override { return target_->SetMtime(path, mtime_ns); }
  Status KeepOnFastTier(const std::string& dir, ZoneRole file_class) override {
    return target_->KeepOnFastTier(dir, file_class);
  }
  void SetZoneLender(ZoneRole lender_class, ZoneLender lender) override {
    target_->SetZoneLender(lender_class, std::move(lender));
  }
  Status SetTag(const std::string& path, const std::string& tag) override {
    return target_->SetTag(path, tag);
  }
  Status Lock(const std::string& path, std::unique_ptr<FileLock>* lock) override {
    return target_->Lock(path, lock);
  }
  Status SyncMetadata() override { return target_->SyncMetadata(); }
  Status SetAttribute(const std::string& name, const std::string& value) override {
    return target_->SetAttribute(name, value);
  }
  std::map<std::string, std::string> Attributes() override { return target_->Attributes(); }
  Status CollectGarbage(uint32_t max_zones, uint32_t* zones_freed) override {
    return target_->CollectGarbage(max_zones, zones_freed);
  }
  Status Usage(std::vector<DeviceUsage>* usage) override { return target_->Usage(usage); }
  Status Zones(std::vector<ZoneReport>* zones) override { return target_->Zones(zones); }
  FsStats Stats() override { return target_->Stats(); }
  const Superblock& superblock() const override { return target_->superblock(); }
  std::string policy_name() const override { return target_->policy_name(); }
  std::string PolicyStateJson() const override { return target_->PolicyStateJson(); }
  Status Check(bool deep, FsckReport* report, const ProgressFn& progress) override {
    return target_->Check(deep, report, progress);
  }
  Status MigrateFile(const std::string& path, Tier to, RateLimiter* limiter, MigrateResult* result) override {
    return target_->MigrateFile(path, to, limiter, result);
  }
  Status MigrateRange(const std::string& path, uint64_t offset, uint64_t length, Tier to, ZoneRole zone_class,
                      RateLimiter* limiter, MigrateResult* result) override {
    return target_->MigrateRange(path, offset, length, to, zone_class, limiter, result);
  }
  Status RelayoutFile(const std::string& path, Tier to, RateLimiter* limiter, MigrateResult* result) override {
    return target_->RelayoutFile(path, to, limiter, result);
  }
  Status MigrateRanges(const std::vector<RangeMove>& moves, Tier to, ZoneRole zone_class, RateLimiter* limiter,
                       std::vector<MigrateResult>* results) override {
    return target_->MigrateRanges(moves, to, zone_class, limiter, results);
  }

 private:
  std::shared_ptr<Filesystem> target_;
};

}  // namespace hintfs

#endif  // HINTFS_FS_FILESYSTEM_WRAPPER_H_
