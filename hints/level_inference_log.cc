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
  std::vector<std::pair<uint64_t, std::string>> order;  // (order, path) of the upper level's
  for (const auto& [path, t] : tables_) {
    if (DirOf(path) != dir || t.level != e.input_level) continue;
    if (e.input_level == 0) {
      order.emplace_back(t.recorded_ns, path);  // the store compacts its oldest L0 tables
      continue;
    }
    auto scan = scans_.find(path);
    if (scan != scans_.end() && scan->second.started_ns >= logged.since_ns) {
      order.emplace_back(scan->second.started_ns, path);
    }
  }
  std::sort(order.begin(), order.end());
  if (order.size() > e.input_tables) order.resize(e.input_tables);
  std::vector<std::string> upper;
  for (const auto& [when, path] : order) upper.push_back(path);
  std::vector<std::string> lower = TablesMeetingLocked(dir, e.lower_level, RangesOfLocked(upper));
  if (e.input_level == e.lower_level || e.lower_tables == 0) lower.clear();
  if (e.input_level > 0 && !upper.empty() && upper.size() < e.input_tables) {
    // LevelDB widens a compaction's upper inputs to every table of their
    // level within the key range of all its inputs when that takes no more
    // tables below, and reads show the first only (the kernel's page cache
    // may serve the rest): take the widened set if it has the LOG's count.
    std::vector<std::string> all = upper;
    all.insert(all.end(), lower.begin(), lower.end());
    std::vector<std::string> widened = TablesMeetingLocked(dir, e.input_level, {SpanLocked(all)});
    if (widened.size() == e.input_tables) upper = widened;
  }
  std::vector<HintFile> inputs;
  for (const std::string& path : upper) inputs.push_back(HintFile{path, e.input_level});
  for (const std::string& path : lower) inputs.push_back(HintFile{path, e.lower_level});
  return inputs;
}

std::vector<LevelInference::Table> LevelInference::RangesOfLocked(const std::vector<std::string>& paths) const {
  std::vector<Table> ranges;
  for (const std::string& path : paths) {
    auto t = tables_.find(path);
    if (t != tables_.end()) ranges.push_back(t->second);
  }
  return ranges;
}

LevelInference::Table LevelInference::SpanLocked(const std::vector<std::string>& paths) const {
  Table span;
  for (const Table& t : RangesOfLocked(paths)) {
    if (t.smallest.empty() || t.largest.empty()) continue;
    if (span.smallest.empty() || t.smallest < span.smallest) span.smallest = t.smallest;
    if (span.largest.empty() || t.largest > span.largest) span.largest = t.largest;
  }
  return span;
}

std::vector<std::string> LevelInference::TablesMeetingLocked(const std::string& dir, int level,
                                                             const std::vector<Table>& ranges) const {
  std::vector<std::string> met;
  for (const auto& [path, t] : tables_) {
    if (DirOf(path) != dir || t.level != level) continue;
    if (std::any_of(ranges.begin(), ranges.end(), [&](const Table& r) { return r.Meets(t); })) met.push_back(path);
  }
  return met;
}

}  // namespace hintfs
