#include "placement/level_tracker.h"

namespace hintfs {

LevelTracker::LevelTracker(std::shared_ptr<HintBus> bus) : bus_(std::move(bus)) {
  subscription_ = bus_->Subscribe([this](const Hint& h) { OnHint(h); });
}

LevelTracker::~LevelTracker() { bus_->Unsubscribe(subscription_); }

void LevelTracker::OnHint(const Hint& h) {
  std::lock_guard<std::mutex> l(mu_);
  switch (h.kind) {
    case Hint::Kind::kFlushBegin:
      job_levels_[h.job] = 0;
      break;
    case Hint::Kind::kCompactionBegin:
      job_levels_[h.job] = h.level;
      break;
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
      break;
    case Hint::Kind::kCompactionEnd:
      job_levels_.erase(h.job);
      break;
    case Hint::Kind::kFileDeleted:
      levels_.erase(h.path);
      break;
    default:
      break;
  }
}

int LevelTracker::LevelOf(const std::string& path, int lifetime_hint) const {
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = levels_.find(path);
    if (it != levels_.end()) {
      exact_++;
      return it->second;
    }
  }
  switch (lifetime_hint) {
    case 2: estimated_++; return kWal;
    case 3: estimated_++; return 0;
    case 4: estimated_++; return 2;
    case 5: estimated_++; return 3;
    default: return kUnknown;
  }
}

}  // namespace hintfs
