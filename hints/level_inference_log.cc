// LevelInference's reading of a store's info LOG (hints/info_log.h, and
// level_inference.h for what the events decide).
#include <algorithm>

#include "hints/level_inference.h"

namespace hintfs {

namespace {

// Flush announcements kept per store: LevelDB creates the table right after
// its line, so only a table that never came leaves one behind.
constexpr size_t kMaxLoggedFlushes = 64;

}  // namespace

void LevelInference::OnInfoLog(const std::string& path, std::string_view data) {
  std::vector<Hint> hints;
  {
    std::lock_guard<std::mutex> l(mu_);
    const uint64_t now = clock_();
    Store& store = stores_[DirOf(path)];
    auto end_logged = [&] {
      if (!store.logged) return;
      auto job = std::find_if(jobs_.begin(), jobs_.end(),
                              [&](const auto& j) { return j.second.logged_id == store.logged->id; });
      if (job != jobs_.end()) EndJobLocked(job->first, &hints);
      store.logged.reset();
    };
    ForEachInfoLogLine(&log_tails_[path], data, [&](std::string_view line) {
      InfoLogEvent e = ParseInfoLogLine(line);
      switch (e.kind) {
        case InfoLogEvent::Kind::kFlushStarted:
          store.logged_flushes.insert(e.table_number);
          if (store.logged_flushes.size() > kMaxLoggedFlushes) store.logged_flushes.erase(store.logged_flushes.begin());
          break;
        case InfoLogEvent::Kind::kCompactionBegin:
          end_logged();  // its end line never came
          store.logged = LoggedCompaction{next_logged_++, e, now};
          break;
        case InfoLogEvent::Kind::kCompactionEnd:
          end_logged();
          break;
        case InfoLogEvent::Kind::kNone:
          break;
      }
    });
  }
  Publish(&hints);
}

std::vector<HintFile> LevelInference::InputsFromLogLocked(const std::string& dir,
                                                          const LoggedCompaction& logged) const {
  const InfoLogEvent& e = logged.event;
  std::vector<std::pair<uint64_t, std::string>> upper;  // (order, path)
  for (const auto& [path, t] : tables_) {
    if (DirOf(path) != dir || t.level != e.input_level) continue;
    if (e.input_level == 0) {
      upper.emplace_back(t.recorded_ns, path);  // the store compacts its oldest L0 tables
      continue;
    }
    auto scan = scans_.find(path);
    if (scan != scans_.end() && scan->second.started_ns >= logged.since_ns) {
      upper.emplace_back(scan->second.started_ns, path);
    }
  }
  std::sort(upper.begin(), upper.end());
  if (upper.size() > e.input_tables) upper.resize(e.input_tables);
  std::vector<HintFile> inputs;
  for (const auto& [order, path] : upper) inputs.push_back(HintFile{path, e.input_level});
  if (e.lower_level == e.input_level || e.lower_tables == 0) return inputs;
  for (const auto& [path, t] : tables_) {
    if (DirOf(path) != dir || t.level != e.lower_level) continue;
    bool met = std::any_of(upper.begin(), upper.end(), [&](const auto& u) { return tables_.at(u.second).Meets(t); });
    if (met) inputs.push_back(HintFile{path, e.lower_level});
  }
  return inputs;
}

}  // namespace hintfs
