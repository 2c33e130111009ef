#include "placement/level_tracker.h"

#include "hints/block_index_keeper.h"

namespace hintfs {

LevelTracker::LevelTracker(std::shared_ptr<HintBus> bus) : bus_(std::move(bus)) {
  subscription_ = bus_->Subscribe([this](const Hint& h) { OnHint(h); });
}

LevelTracker::~LevelTracker() { bus_->Unsubscribe(subscription_); }

void LevelTracker::OnHint(const Hint& h) {
  std::lock_guard<std::mutex> l(mu_);
  ScoreCompactionsLocked(h);
  // A guess from the I/O pattern (hints/level_inference.h) is an estimate.
  if (h.reason == "inferred" &&
      (h.kind == Hint::Kind::kTableFileCreation || h.kind == Hint::Kind::kCompactionOutput)) {
    if (h.kind == Hint::Kind::kTableFileCreation && h.level >= 0 && levels_.count(h.path) == 0) {
      inferred_[h.path] = h.level;
    }
    return;
  }
  // An exact level for a table whose level had to be guessed scores the guess.
  if ((h.kind == Hint::Kind::kTableFileCreation || h.kind == Hint::Kind::kCompactionOutput) && h.level >= 0) {
    inferred_.erase(h.path);
    auto guess = estimates_.find(h.path);
    if (guess != estimates_.end()) {
      (guess->second == h.level ? confirmed_ : wrong_)++;
      estimates_.erase(guess);
    }
  }
  switch (h.kind) {
    case Hint::Kind::kFlushBegin:
      job_levels_[h.job] = 0;
      break;
    case Hint::Kind::kCompactionBegin: {
      job_levels_[h.job] = h.level;
      auto& inputs = job_inputs_[h.job];
      for (const HintFile& in : h.inputs) {
        inputs.push_back(in.path);
        compacting_[in.path]++;
      }
      break;
    }
    case Hint::Kind::kTableFileCreation: {
      int level = h.level;
      auto job = job_levels_.find(h.job);
      if (level < 0 && job != job_levels_.end()) level = job->second;
      if (level < 0 && h.reason == "flush") level = 0;
      if (level >= 0) levels_[h.path] = level;
      break;
    }
    case Hint::Kind::kCompactionOutput:
      if (h.level >= 0) levels_[h.path] = h.level;
      if (h.smallest_seqno && h.largest_seqno) seqnos_[h.path] = {*h.smallest_seqno, *h.largest_seqno};
      break;
    case Hint::Kind::kCompactionEnd: {
      // For a trivial move the outputs are the inputs, now a level down: no
      // table is created, so this is the only hint of it a listener sends.
      for (const HintFile& out : h.outputs) {
        if (out.level >= 0) levels_[out.path] = out.level;
      }
      job_levels_.erase(h.job);
      auto job = job_inputs_.find(h.job);
      if (job == job_inputs_.end()) break;
      for (const std::string& in : job->second) {
        auto c = compacting_.find(in);
        if (c != compacting_.end() && --c->second <= 0) compacting_.erase(c);
      }
      job_inputs_.erase(job);
      break;
    }
    case Hint::Kind::kFileDeleted:
      levels_.erase(h.path);
      seqnos_.erase(h.path);
      estimates_.erase(h.path);
      inferred_.erase(h.path);
      break;
    default:
      break;
  }
}

int LevelTracker::LevelOf(const std::string& path, int lifetime_hint) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = levels_.find(path);
  if (it != levels_.end()) {
    exact_++;
    return it->second;
  }
  auto guess = inferred_.find(path);
  if (guess != inferred_.end()) {
    estimated_++;
    from_io_++;
    estimates_.emplace(path, guess->second);
    return guess->second;
  }
  // The keeper gives a table's index file the table's hint, to share its
  // zones; guessed from it, the index would count as a table of the level.
  if (IsBlockIndexFile(path)) return kUnknown;
  int level = kUnknown;
  switch (lifetime_hint) {
    case 2: level = kWal; break;
    case 3: level = 0; break;
    case 4: level = 2; break;
    case 5: level = 3; break;
    default: return kUnknown;
  }
  estimated_++;
  if (level >= 0) estimates_.emplace(path, level);
  return level;
}

std::unordered_map<std::string, int> LevelTracker::KnownLevels() const {
  std::lock_guard<std::mutex> l(mu_);
  return levels_;
}

bool LevelTracker::SequenceRange(const std::string& path, uint64_t* smallest, uint64_t* largest) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = seqnos_.find(path);
  if (it == seqnos_.end()) return false;
  *smallest = it->second.first;
  *largest = it->second.second;
  return true;
}

bool LevelTracker::InRunningCompaction(const std::string& path) const {
  std::lock_guard<std::mutex> l(mu_);
  return compacting_.count(path) != 0;
}

std::vector<std::string> LevelTracker::RunningCompactionInputs() const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<std::string> inputs;
  inputs.reserve(compacting_.size());
  for (const auto& [path, count] : compacting_) inputs.push_back(path);
  return inputs;
}

uint64_t LevelTracker::estimates_confirmed() const {
  std::lock_guard<std::mutex> l(mu_);
  return confirmed_;
}

uint64_t LevelTracker::estimates_wrong() const {
  std::lock_guard<std::mutex> l(mu_);
  return wrong_;
}

void LevelTracker::ScoreCompactionsLocked(const Hint& h) {
  bool inferred = h.reason == "inferred";
  // The inputs of inferred compactions that ended and that the MANIFEST
  // edit committing them (hints of kind file-deleted, delivered around the
  // inference's end) did not drop were not inputs.
  if (!inferred && h.kind != Hint::Kind::kFileDeleted) {
    for (auto& [job, inputs] : ended_inputs_) compaction_score_.inputs_wrong += inputs.size();
    ended_inputs_.clear();
  }
  switch (h.kind) {
    case Hint::Kind::kCompactionBegin:
      if (!inferred) break;
      compaction_score_.inferred++;
      for (const HintFile& in : h.inputs) job_guessed_inputs_[h.job].insert(in.path);
      break;
    case Hint::Kind::kCompactionEnd: {
      auto job = job_guessed_inputs_.find(h.job);
      if (!inferred || job == job_guessed_inputs_.end()) break;
      ended_inputs_[h.job] = std::move(job->second);
      job_guessed_inputs_.erase(job);
      break;
    }
    case Hint::Kind::kTableFileCreation:
      if (inferred && h.job >= 0 && h.level >= 0) guessed_outputs_[h.path] = h.level;
      break;
    case Hint::Kind::kCompactionOutput: {
      if (inferred || h.level < 0 || h.reason != "compaction") break;
      auto guess = guessed_outputs_.find(h.path);
      if (guess != guessed_outputs_.end()) {
        (guess->second == h.level ? compaction_score_.outputs_right : compaction_score_.outputs_wrong)++;
        guessed_outputs_.erase(guess);
      } else if (levels_.count(h.path) == 0) {
        compaction_score_.outputs_missed++;  // written by a compaction nobody announced
      }
      break;
    }
    case Hint::Kind::kFileDeleted:
      guessed_outputs_.erase(h.path);
      if (h.level < 0) break;  // an unlink, not the MANIFEST
      {
        uint64_t named = 0;
        for (auto* jobs : {&job_guessed_inputs_, &ended_inputs_}) {
          for (auto& [job, inputs] : *jobs) named += inputs.erase(h.path);
        }
        compaction_score_.inputs_right += named;
        // The MANIFEST drops tables only as compaction inputs (moves are not drops).
        if (named == 0) compaction_score_.inputs_missed++;
      }
      break;
    default:
      break;
  }
}

nlohmann::json LevelTracker::Stats() const {
  std::lock_guard<std::mutex> l(mu_);
  const CompactionScore& c = compaction_score_;
  return {{"known_levels", levels_.size()},
          {"exact_answers", exact_.load()},
          {"estimated_answers", estimated_.load()},
          {"estimated_from_io", from_io_.load()},
          {"estimates_confirmed", confirmed_},
          {"estimates_wrong", wrong_},
          {"inferred_compactions", c.inferred},
          {"inferred_outputs_right", c.outputs_right},
          {"inferred_outputs_wrong", c.outputs_wrong},
          {"compaction_outputs_not_inferred", c.outputs_missed},
          {"inferred_inputs_right", c.inputs_right},
          {"inferred_inputs_wrong", c.inputs_wrong},
          {"compaction_inputs_not_inferred", c.inputs_missed}};
}

LevelTracker::CompactionScore LevelTracker::compaction_score() const {
  std::lock_guard<std::mutex> l(mu_);
  return compaction_score_;
}

}  // namespace hintfs
