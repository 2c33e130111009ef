#include "hints/trace_apply.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "fs/walk.h"

namespace hintfs {

namespace {

// What the replay needs to know ahead: where each file's writer closes, and
// (for oracle hints) how long each file lives.
struct TracePlan {
  std::vector<uint64_t> last_appends;               // event indexes, sorted
  std::unordered_map<uint64_t, int> oracle_hints;   // by the index of the file's create
};

// The write-life-time hint of a file that lived lifetime bytes of appends:
// 1 below unit, one more per doubling, at most 4; 5 for a file the trace
// never deletes.
int OracleHint(uint64_t lifetime, uint64_t unit, bool deleted) {
  if (!deleted) return 5;
  int hint = 1;
  for (uint64_t bound = unit; lifetime >= bound && hint < 4; bound *= 2) hint++;
  return hint;
}

Status PlanTrace(TraceReader* trace, const TraceApplyOptions& options, TracePlan* plan) {
  const uint64_t oracle_unit = options.oracle_lifetime_unit;
  struct Incarnation {
    uint64_t created = 0;  // event index
    uint64_t birth = 0;    // bytes appended to the trace's files before it was created
    int64_t last_append = -1;
    int level = -1;        // from its table-file-creation hint
  };
  std::unordered_map<std::string, Incarnation> open;
  std::unordered_map<std::string, int> announced_levels;  // of tables not created yet
  uint64_t clock = 0;
  auto end = [&](const std::string& path, bool deleted) {
    auto it = open.find(path);
    if (it == open.end()) return;
    if (it->second.last_append >= 0) plan->last_appends.push_back(static_cast<uint64_t>(it->second.last_append));
    const bool oracle = oracle_unit > 0 && (options.oracle_levels.empty() ||
                                            options.oracle_levels.count(it->second.level) > 0);
    if (oracle) plan->oracle_hints[it->second.created] = OracleHint(clock - it->second.birth, oracle_unit, deleted);
    open.erase(it);
  };
  for (uint64_t index = 0;; index++) {
    TraceEvent e;
    bool eof = false;
    Status s = trace->Next(&e, &eof);
    if (!s.ok()) return s;
    if (eof) break;
    if (e.type == TraceEvent::Type::kCreate) {
      end(e.path, /*deleted=*/true);  // made again: the old one is gone
      auto announced = announced_levels.find(e.path);
      open[e.path] = Incarnation{index, clock, -1, announced == announced_levels.end() ? -1 : announced->second};
      if (announced != announced_levels.end()) announced_levels.erase(announced);
    } else if (e.type == TraceEvent::Type::kDelete) {
      end(e.path, /*deleted=*/true);
    } else if (e.type == TraceEvent::Type::kAppend) {
      clock += e.bytes;
      auto it = open.find(e.path);
      if (it != open.end()) it->second.last_append = static_cast<int64_t>(index);
    } else if (e.type == TraceEvent::Type::kHint && e.hint.kind == Hint::Kind::kTableFileCreation) {
      // Comes just before the table's create (RocksDB's listener), or after.
      auto it = open.find(e.hint.path);
      if (it != open.end()) {
        it->second.level = e.hint.level;
      } else {
        announced_levels[e.hint.path] = e.hint.level;
      }
    }
  }
  while (!open.empty()) end(open.begin()->first, /*deleted=*/false);
  std::sort(plan->last_appends.begin(), plan->last_appends.end());
  return Status::OK();
}

class Applier {
 public:
  Applier(Filesystem* fs, HintBus* bus, const TracePlan* plan, TraceApplyResult* result)
      : fs_(fs), bus_(bus), plan_(plan), result_(result) {
    filler_.assign(1 << 20, '\x5a');
  }

  Status Apply(const TraceEvent& e, uint64_t index, bool last_append) {
    switch (e.type) {
      case TraceEvent::Type::kHint:
        if (bus_ != nullptr) {
          bus_->Publish(e.hint);
          result_->hints_published++;
        }
        return Status::OK();
      case TraceEvent::Type::kCreate: return Create(e.path, index);
      case TraceEvent::Type::kLifetime: {
        auto it = writers_.find(e.path);
        if (it != writers_.end() && oracle_hinted_.count(e.path) == 0) it->second->SetLifetimeHint(e.lifetime);
        return Status::OK();
      }
      case TraceEvent::Type::kAppend: return Append(e.path, e.bytes, last_append);
      case TraceEvent::Type::kDelete: return Delete(e.path);
      case TraceEvent::Type::kRead: return Status::OK();
    }
    return Status::OK();
  }

  // Closes the writers of files the trace never deleted.
  Status CloseAll() {
    for (auto& [path, writer] : writers_) {
      Status s = writer->Close();
      if (!s.ok()) return s.Prefixed(path);
    }
    writers_.clear();
    return Status::OK();
  }

 private:
  Status Create(const std::string& path, uint64_t index) {
    Status s = Close(path);
    const size_t slash = path.rfind('/');
    if (s.ok() && slash != std::string::npos) s = MakeDirectories(fs_, path.substr(0, slash));
    std::unique_ptr<FileWriter> writer;
    if (s.ok()) s = fs_->OpenWriter(path, WriteMode::kTruncate, &writer);
    if (!s.ok()) return s.Prefixed(path);
    auto oracle = plan_->oracle_hints.find(index);
    if (oracle != plan_->oracle_hints.end()) {
      writer->SetLifetimeHint(oracle->second);
      oracle_hinted_.insert(path);  // the store's hint, when it comes, is not used
    } else {
      oracle_hinted_.erase(path);
    }
    writers_[path] = std::move(writer);
    result_->files_created++;
    return Status::OK();
  }

  Status Append(const std::string& path, uint64_t bytes, bool last_append) {
    auto it = writers_.find(path);
    if (it == writers_.end()) {
      result_->passed_over++;
      return Status::OK();
    }
    for (uint64_t left = bytes; left > 0;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(left, filler_.size()));
      Status s = it->second->Append(std::string_view(filler_.data(), n));
      if (!s.ok()) return s.Prefixed(path);
      left -= n;
    }
    result_->bytes_appended += bytes;
    return last_append ? Close(path) : Status::OK();
  }

  Status Delete(const std::string& path) {
    Status s = Close(path);
    if (!s.ok()) return s;
    s = fs_->Unlink(path);
    if (s.IsNotFound()) {
      result_->passed_over++;
      return Status::OK();
    }
    if (!s.ok()) return s.Prefixed(path);
    result_->files_deleted++;
    return Status::OK();
  }

  Status Close(const std::string& path) {
    auto it = writers_.find(path);
    if (it == writers_.end()) return Status::OK();
    Status s = it->second->Close();
    writers_.erase(it);
    oracle_hinted_.erase(path);
    return s.Prefixed(path);
  }

  Filesystem* fs_;
  HintBus* bus_;
  const TracePlan* plan_;
  TraceApplyResult* result_;
  std::string filler_;
  std::map<std::string, std::unique_ptr<FileWriter>> writers_;
  std::set<std::string> oracle_hinted_;  // open files whose hint is the oracle's
};

}  // namespace

Status ApplyTrace(TraceReader* trace, Filesystem* fs, HintBus* bus, const TraceApplyOptions& options,
                  TraceApplyResult* result, const ProgressFn& progress) {
  *result = TraceApplyResult();
  trace->Rewind();
  TracePlan plan;
  Status s = PlanTrace(trace, options, &plan);
  if (!s.ok()) return s;
  const std::vector<uint64_t>& last_appends = plan.last_appends;
  trace->Rewind();
  Applier applier(fs, bus, &plan, result);
  size_t next_last = 0;
  for (uint64_t index = 0;; index++) {
    TraceEvent e;
    bool eof = false;
    s = trace->Next(&e, &eof);
    if (!s.ok()) return s;
    if (eof) break;
    while (next_last < last_appends.size() && last_appends[next_last] < index) next_last++;
    const bool last_append = next_last < last_appends.size() && last_appends[next_last] == index;
    s = applier.Apply(e, index, last_append);
    if (!s.ok()) return s;
    result->events++;
    if (progress && result->events % 4096 == 0) progress(trace->offset(), trace->size());
  }
  s = applier.CloseAll();
  if (progress) progress(trace->size(), trace->size());
  return s;
}

}  // namespace hintfs
