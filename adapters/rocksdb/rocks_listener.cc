// HintfsEventListener: turns RocksDB's events into hints on the bus of the
// hintfs mount that holds the DB, and records each finished table's level,
// job and reason in its file hints (durable, shown by `hintfs ls -l`).
//
// OnTableFileCreationStarted fires before the table is opened; joined with
// the job's flush or compaction, it tells placement the table's level before
// its first byte.
#include <map>
#include <mutex>

#include <rocksdb/db.h>
#include <rocksdb/listener.h>

#include "adapters/common/mount_registry.h"
#include "adapters/rocksdb/hintfs_rocksdb.h"
#include "hints/file_tag.h"

namespace hintfs {

namespace {

std::string Parent(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos || slash == 0 ? "/" : path.substr(0, slash);
}

const char* ReasonName(rocksdb::TableFileCreationReason r) {
  switch (r) {
    case rocksdb::TableFileCreationReason::kFlush: return "flush";
    case rocksdb::TableFileCreationReason::kCompaction: return "compaction";
    case rocksdb::TableFileCreationReason::kRecovery: return "recovery";
    default: return "other";
  }
}

// Publishes on every mount whose namespace holds the directory of path.
void Publish(const std::string& path, const Hint& hint) {
  std::string dir = Parent(path);
  ForEachMount([&](const std::string&, Filesystem* fs, HintBus* bus) {
    FileStat st;
    if (fs->Stat(dir, &st).ok()) bus->Publish(hint);
  });
}

class HintRocksListener : public rocksdb::EventListener {
 public:
  static const char* kClassName() { return kRocksDbListenerName; }
  const char* Name() const override { return kClassName(); }

  void OnFlushBegin(rocksdb::DB*, const rocksdb::FlushJobInfo& info) override {
    Remember(info.job_id, 0);
    Hint h;
    h.kind = Hint::Kind::kFlushBegin;
    h.job = info.job_id;
    h.level = 0;
    Publish(info.file_path, h);
  }

  void OnCompactionBegin(rocksdb::DB*, const rocksdb::CompactionJobInfo& info) override {
    Remember(info.job_id, info.output_level);
    Hint h;
    h.kind = Hint::Kind::kCompactionBegin;
    h.job = info.job_id;
    h.level = info.output_level;
    h.count = static_cast<uint32_t>(info.input_files.size());
    for (size_t i = 0; i < info.input_files.size(); i++) {
      int level = i < info.input_file_infos.size() ? info.input_file_infos[i].level : -1;
      h.inputs.push_back({info.input_files[i], level});
    }
    if (!info.input_files.empty()) Publish(info.input_files[0], h);
  }

  void OnTableFileCreationStarted(const rocksdb::TableFileCreationBriefInfo& info) override {
    Hint h;
    h.kind = Hint::Kind::kTableFileCreation;
    h.job = info.job_id;
    h.path = info.file_path;
    h.reason = ReasonName(info.reason);
    h.level = LevelOfJob(info.job_id, info.reason);
    Publish(info.file_path, h);
  }

  void OnTableFileCreated(const rocksdb::TableFileCreationInfo& info) override {
    if (!info.status.ok()) return;
    FileTag tag;
    tag.job = static_cast<uint64_t>(info.job_id);
    tag.reason = ReasonName(info.reason);
    tag.level = LevelOfJob(info.job_id, info.reason);
    const std::string encoded = EncodeFileTag(tag);
    ForEachMount([&](const std::string&, Filesystem* fs, HintBus* bus) {
      if (!fs->SetTag(info.file_path, encoded).ok()) return;
      Hint h;
      h.kind = Hint::Kind::kCompactionOutput;
      h.job = info.job_id;
      h.path = info.file_path;
      h.level = tag.level;
      h.bytes = info.file_size;
      h.reason = tag.reason;
      bus->Publish(h);
    });
  }

  void OnFlushCompleted(rocksdb::DB*, const rocksdb::FlushJobInfo& info) override {
    Forget(info.job_id);
    Hint h;
    h.kind = Hint::Kind::kCompactionEnd;
    h.job = info.job_id;
    h.level = 0;
    h.reason = "flush";
    h.outputs.push_back({info.file_path, 0});
    Publish(info.file_path, h);
  }

  void OnCompactionCompleted(rocksdb::DB*, const rocksdb::CompactionJobInfo& info) override {
    Forget(info.job_id);
    Hint h;
    h.kind = Hint::Kind::kCompactionEnd;
    h.job = info.job_id;
    h.level = info.output_level;
    h.reason = "compaction";
    for (const auto& f : info.output_files) h.outputs.push_back({f, info.output_level});
    if (!info.input_files.empty()) Publish(info.input_files[0], h);
  }

  void OnTableFileDeleted(const rocksdb::TableFileDeletionInfo& info) override {
    Hint h;
    h.kind = Hint::Kind::kFileDeleted;
    h.job = info.job_id;
    h.path = info.file_path;
    Publish(info.file_path, h);
  }

 private:
  int LevelOfJob(int job, rocksdb::TableFileCreationReason reason) {
    std::lock_guard<std::mutex> l(mu_);
    auto it = levels_.find(job);
    if (it != levels_.end()) return it->second;
    return reason == rocksdb::TableFileCreationReason::kFlush ||
                   reason == rocksdb::TableFileCreationReason::kRecovery
               ? 0
               : -1;
  }
  void Remember(int job, int level) {
    std::lock_guard<std::mutex> l(mu_);
    levels_[job] = level;
  }
  void Forget(int job) {
    std::lock_guard<std::mutex> l(mu_);
    levels_.erase(job);
  }

  std::mutex mu_;
  std::map<int, int> levels_;  // running job id -> output level
};

}  // namespace

std::unique_ptr<rocksdb::EventListener> MakeHintRocksListener() {
  return std::make_unique<HintRocksListener>();
}

std::shared_ptr<rocksdb::EventListener> NewHintRocksListener() { return MakeHintRocksListener(); }

}  // namespace hintfs
