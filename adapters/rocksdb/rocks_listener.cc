// HintfsEventListener: remembers the output level of every flush and
// compaction job and records it, with the job and reason, in the hints of
// each table file the job creates.
#include <map>
#include <mutex>

#include <rocksdb/db.h>
#include <rocksdb/listener.h>

#include "adapters/common/mount_registry.h"
#include "adapters/rocksdb/hintfs_rocksdb.h"

namespace hintfs {

namespace {

class HintRocksListener : public rocksdb::EventListener {
 public:
  static const char* kClassName() { return kRocksDbListenerName; }
  const char* Name() const override { return kClassName(); }

  void OnFlushBegin(rocksdb::DB*, const rocksdb::FlushJobInfo& info) override {
    Remember(info.job_id, 0);
  }

  void OnCompactionBegin(rocksdb::DB*, const rocksdb::CompactionJobInfo& info) override {
    Remember(info.job_id, info.output_level);
  }

  void OnTableFileCreated(const rocksdb::TableFileCreationInfo& info) override {
    if (!info.status.ok()) return;
    FileHints hints;
    hints.job = static_cast<uint64_t>(info.job_id);
    switch (info.reason) {
      case rocksdb::TableFileCreationReason::kFlush: hints.reason = "flush"; hints.level = 0; break;
      case rocksdb::TableFileCreationReason::kCompaction: hints.reason = "compaction"; break;
      case rocksdb::TableFileCreationReason::kRecovery: hints.reason = "recovery"; hints.level = 0; break;
      default: hints.reason = "other"; break;
    }
    {
      std::lock_guard<std::mutex> l(mu_);
      auto it = levels_.find(info.job_id);
      if (it != levels_.end()) hints.level = it->second;
    }
    // The path names a file in whichever hintfs mount holds it.
    ForEachMount([&](const std::string&, Filesystem* fs) { fs->SetHints(info.file_path, hints); });
  }

  void OnFlushCompleted(rocksdb::DB*, const rocksdb::FlushJobInfo& info) override { Forget(info.job_id); }
  void OnCompactionCompleted(rocksdb::DB*, const rocksdb::CompactionJobInfo& info) override {
    Forget(info.job_id);
  }

 private:
  void Remember(int job, int level) {
    std::lock_guard<std::mutex> l(mu_);
    levels_[job] = level;
  }
  void Forget(int job) {
    std::lock_guard<std::mutex> l(mu_);
    levels_.erase(job);
  }

  std::mutex mu_;
  std::map<int, int> levels_;  // job id -> output level
};

}  // namespace

std::shared_ptr<rocksdb::EventListener> NewHintRocksListener() {
  return std::make_shared<HintRocksListener>();
}

}  // namespace hintfs
