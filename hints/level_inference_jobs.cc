// LevelInference's compactions: which an output joins, their inputs, their
// ends (see level_inference.h).
#include <algorithm>

#include "hints/level_inference.h"

namespace hintfs {

int64_t LevelInference::JoinCompactionLocked(const std::string& output, const Guess& guess, const Pending& pending,
                                             uint64_t now, std::vector<Hint>* hints) {
  const int level = guess.level;
  auto joined = jobs_.end();
  if (guess.logged) {
    joined = std::find_if(jobs_.begin(), jobs_.end(),
                          [&](const auto& job) { return job.second.logged_id == guess.logged->id; });
  } else if (!guess.holder.empty() && !guess.first_output) {
    auto owner = input_of_.find(guess.holder);
    if (owner != input_of_.end()) {
      joined = jobs_.find(owner->second);
    } else if (tables_.at(guess.holder).level == 0) {
      // An input the job's first output came too early to show (its reads
      // had not begun, or it was read before the window): L0's tables
      // overlap, and one is in the compaction of another whose range it
      // meets.
      const Table& held = tables_.at(guess.holder);
      joined = std::find_if(jobs_.begin(), jobs_.end(), [&](const auto& job) {
        return job.second.output_level == level &&
               std::any_of(job.second.inputs.begin(), job.second.inputs.end(), [&](const HintFile& in) {
                 auto t = tables_.find(in.path);
                 return t != tables_.end() && t->second.level == 0 && DirOf(in.path) == DirOf(output) &&
                        t->second.Meets(held);
               });
      });
      if (joined != jobs_.end()) {
        joined->second.inputs.push_back(HintFile{guess.holder, 0});
        input_of_[guess.holder] = joined->first;
      }
    }
  } else if (guess.holder.empty()) {
    joined = std::find_if(jobs_.begin(), jobs_.end(), [&](const auto& job) { return job.second.output_level == level; });
  }
  if (joined != jobs_.end() && joined->second.output_level == level) {
    auto& [id, job] = *joined;
    LastOutputWritten(id, job, hints);  // the previous output is written
    job.last_output = output;
    job.outputs.insert(output);
    output_of_[output] = id;
    job.last_ns = now;
    return id;
  }
  int64_t id = next_job_++;
  Job& job = jobs_[id];
  job.output_level = level;
  if (guess.logged) {
    job.logged_id = guess.logged->id;
    job.inputs = InputsFromLogLocked(DirOf(output), *guess.logged);
  } else {
    job.inputs = guess.holder.empty() ? InputsLocked(DirOf(output), level, pending.started, now)
                                      : InputsByHolderLocked(DirOf(output), guess, now);
  }
  job.last_output = output;
  job.outputs.insert(output);
  output_of_[output] = id;
  job.last_ns = now;
  for (const HintFile& in : job.inputs) input_of_[in.path] = id;
  Hint begin;
  begin.kind = Hint::Kind::kCompactionBegin, begin.job = id, begin.level = level;
  // The LOG counts the inputs even where their reads did not show.
  begin.count = guess.logged ? guess.logged->event.input_tables + guess.logged->event.lower_tables
                             : static_cast<uint32_t>(job.inputs.size());
  begin.inputs = job.inputs;
  begin.reason = "inferred";
  hints->push_back(std::move(begin));
  return id;
}

std::vector<HintFile> LevelInference::InputsLocked(const std::string& dir, int output_level,
                                                   const std::set<std::string>& read_at_creation,
                                                   uint64_t now) const {
  // The tables of the level above being scanned, and those of the output
  // level whose key ranges meet theirs (the ones the store must merge them
  // with); without key ranges, the output level's tables being scanned.
  // A store whose tables' first entries place its outputs (RocksDB) counts
  // only tables read front to back (opening a table reads its first block),
  // none an input of another compaction inferred running; others also
  // tables read from their first byte.
  std::set<std::string> inputs;
  std::string low, high;
  bool ranges_known = true;
  auto store = stores_.find(dir);
  const bool by_entries = store != stores_.end() && store->second.max_seqno.has_value();
  std::set<std::string> read = ScannedLocked(dir, now, !by_entries);
  if (!by_entries) read.insert(read_at_creation.begin(), read_at_creation.end());
  for (const std::string& path : read) {
    auto known = tables_.find(path);
    if (known == tables_.end()) continue;  // deleted since
    const Table& t = known->second;
    if (by_entries && input_of_.count(path) != 0) continue;  // no table is in two compactions
    if (t.level == output_level) inputs.insert(path);
    if (t.level != output_level - 1) continue;
    inputs.insert(path);
    if (t.smallest.empty() && t.largest.empty()) ranges_known = false;
    if (low.empty() || t.smallest < low) low = t.smallest;
    if (high.empty() || t.largest > high) high = t.largest;
  }
  if (ranges_known && !high.empty()) {
    for (const auto& [path, t] : tables_) {
      if (DirOf(path) != dir || (by_entries && input_of_.count(path) != 0)) continue;
      bool ranged = !t.smallest.empty() || !t.largest.empty();
      if (t.level == output_level && ranged && t.smallest <= high && t.largest >= low) inputs.insert(path);
    }
  }
  std::vector<HintFile> files;
  for (const std::string& path : inputs) files.push_back(HintFile{path, tables_.at(path).level});
  return files;
}

std::vector<HintFile> LevelInference::InputsByHolderLocked(const std::string& dir, const Guess& guess,
                                                           uint64_t now) const {
  const int output_level = guess.level;
  const std::string& holder = guess.holder;
  // RocksDB compacts the L0 tables into L1 (with random keys their ranges
  // all overlap) or into themselves, and a table above L0 with the tables
  // below whose ranges meet its own. The upper level's inputs are read
  // whole at the start, the output level's one by one as the merge reaches
  // them: those whose ranges meet the upper inputs' count, read yet or not.
  const int upper = std::max(0, output_level - 1);
  const Table& held = tables_.at(holder);
  auto unclaimed = [&](const std::string& path) { return input_of_.count(path) == 0; };
  // The scanned tables of the pair that no other compaction has.
  std::vector<std::string> read_above, read_below;
  for (const std::string& path : ScannedLocked(dir, now, false, kInputWindowNs)) {
    auto t = tables_.find(path);
    if (path == holder || t == tables_.end() || !unclaimed(path)) continue;
    if (t->second.level == upper) read_above.push_back(path);
    if (t->second.level == output_level && output_level > 0) read_below.push_back(path);
  }
  std::set<std::string> inputs{holder};
  std::vector<const Table*> above;
  if (held.level == upper) above.push_back(&held);
  // Above L0 a level's tables do not overlap: the compaction has the one
  // whose range meets the holder's, or the holder, and those the store
  // adds because they lie within the range of the tables below it takes
  // (adding them takes no more tables below).
  Table below_span;
  for (const auto& [path, t] : tables_) {
    if (output_level == 0 || t.level != output_level || DirOf(path) != dir || !unclaimed(path)) continue;
    bool met = t.Meets(held) || std::any_of(above.begin(), above.end(), [&](const Table* a) { return a->Meets(t); });
    if (!met || t.smallest.empty() || t.largest.empty()) continue;
    if (below_span.smallest.empty() || t.smallest < below_span.smallest) below_span.smallest = t.smallest;
    if (t.largest > below_span.largest) below_span.largest = t.largest;
  }
  std::vector<std::string> level0;
  if (upper == 0) level0 = OneCompactionsLevelZeroLocked(read_above, held.level == 0 ? holder : guess.level0_holder);
  for (const std::string& path : upper == 0 ? level0 : read_above) {
    const Table& t = tables_.at(path);
    if (upper > 0 && !t.Meets(held)) continue;
    inputs.insert(path);
    above.push_back(&t);
  }
  // The tables a level above L0 adds are read one after another as the
  // merge reaches them, so they count read yet or not.
  for (const auto& [path, t] : tables_) {
    if (upper == 0 || t.level != upper || path == holder || DirOf(path) != dir || !unclaimed(path)) continue;
    bool within = !below_span.smallest.empty() && t.smallest >= below_span.smallest && t.largest <= below_span.largest;
    if (within && inputs.insert(path).second) above.push_back(&t);
  }
  if (above.empty()) inputs.insert(read_below.begin(), read_below.end());
  for (const auto& [path, t] : tables_) {
    if (output_level == 0 || t.level != output_level || DirOf(path) != dir || !unclaimed(path)) continue;
    if (std::any_of(above.begin(), above.end(), [&](const Table* a) { return a->Meets(t); })) inputs.insert(path);
  }
  std::vector<HintFile> files;
  for (const std::string& path : inputs) files.push_back(HintFile{path, tables_.at(path).level});
  return files;
}

std::vector<std::string> LevelInference::OneCompactionsLevelZeroLocked(const std::vector<std::string>& read,
                                                                        const std::string& reference) const {
  auto started = [&](const std::string& path) {
    auto scan = scans_.find(path);
    return scan == scans_.end() ? uint64_t{0} : scan->second.scan_started_ns;
  };
  uint64_t burst = reference.empty() ? 0 : started(reference);
  if (reference.empty()) {
    for (const std::string& path : read) burst = std::max(burst, started(path));
  }
  std::vector<std::string> same;
  uint64_t first_start = UINT64_MAX;
  for (const std::string& path : read) {
    uint64_t at = started(path);
    if ((at > burst ? at - burst : burst - at) > kScanWindowNs) continue;
    same.push_back(path);
    first_start = std::min(first_start, at);
  }
  // Two compactions whose reads began within the window: the older took
  // every L0 table the MANIFEST had recorded when it began (their ranges
  // all overlap), the other only tables recorded since.
  auto held = reference.empty() ? tables_.end() : tables_.find(reference);
  if (held == tables_.end()) return same;
  const bool newer = held->second.recorded_ns > first_start;
  same.erase(std::remove_if(same.begin(), same.end(),
                            [&](const std::string& path) { return (tables_.at(path).recorded_ns > first_start) != newer; }),
             same.end());
  return same;
}

void LevelInference::LastOutputWritten(int64_t id, const Job& job, std::vector<Hint>* hints) {
  if (job.last_output.empty()) return;
  Hint out;
  out.kind = Hint::Kind::kCompactionOutput, out.job = id, out.path = job.last_output;
  out.level = job.output_level, out.reason = "inferred";
  hints->push_back(std::move(out));
}

void LevelInference::EndJobLocked(int64_t id, std::vector<Hint>* hints) {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return;
  Job& job = it->second;
  LastOutputWritten(id, job, hints);
  Hint end;
  end.kind = Hint::Kind::kCompactionEnd, end.job = id, end.level = job.output_level, end.reason = "inferred";
  hints->push_back(std::move(end));
  for (const HintFile& in : job.inputs) {
    auto owner = input_of_.find(in.path);
    if (owner != input_of_.end() && owner->second == id) input_of_.erase(owner);
  }
  for (const std::string& out : job.outputs) output_of_.erase(out);
  jobs_.erase(it);
}

void LevelInference::EndIdleJobsLocked(uint64_t now, std::vector<Hint>* hints) {
  std::vector<int64_t> idle;
  for (const auto& [id, job] : jobs_) {
    if (now > job.last_ns + kJobIdleNs) idle.push_back(id);
  }
  for (int64_t id : idle) EndJobLocked(id, hints);
}

}  // namespace hintfs
