#include "hints/level_inference.h"

#include <algorithm>

#include "fs/clock.h"
#include "hints/file_kind.h"

namespace hintfs {

namespace {

// Reads in a row that make a scan: a table being opened reads its footer,
// index and filter, which can happen to be adjacent once.
constexpr int kScanRun = 3;
// How far a read may start from where the previous one ended and still
// continue it: readahead through the kernel (a FUSE mount) arrives out of
// order by a request or two.
constexpr uint64_t kScanSlack = 128 << 10;

}  // namespace

LevelInference::LevelInference(std::shared_ptr<HintBus> bus, std::shared_ptr<IoObserver> next, Clock clock)
    : bus_(std::move(bus)), next_(std::move(next)), clock_(clock ? std::move(clock) : Clock(MonotonicNs)) {
  subscription_ = bus_->Subscribe([this](const Hint& h) { OnHint(h); });
}

LevelInference::~LevelInference() { bus_->Unsubscribe(subscription_); }

void LevelInference::OnHint(const Hint& h) {
  std::lock_guard<std::mutex> l(mu_);
  switch (h.kind) {
    case Hint::Kind::kTableFileCreation:
    case Hint::Kind::kCompactionOutput:
      if (h.level >= 0 && h.reason != "inferred") {
        levels_[h.path] = h.level;
        pending_.erase(h.path);  // a store that says it needs no guess
        if (h.reason == "flush") flush_level_ = h.level;
      }
      break;
    case Hint::Kind::kFileDeleted:
      levels_.erase(h.path);
      scans_.erase(h.path);
      sizes_.erase(h.path);
      break;
    default:
      break;
  }
}

void LevelInference::OnCreate(const std::string& path, ZoneRole role) {
  if (IsTableFile(path)) {
    std::lock_guard<std::mutex> l(mu_);
    if (levels_.count(path) == 0) pending_[path] = 0;
  } else if (IsWalFile(path)) {
    // A new write-ahead log: the memtable of the old one is about to be flushed.
    std::lock_guard<std::mutex> l(mu_);
    flush_pending_ = true;
  }
  if (next_) next_->OnCreate(path, role);
}

void LevelInference::OnLifetimeHint(const std::string& path, int lifetime) {
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = pending_.find(path);
    if (it != pending_.end()) it->second = lifetime;
  }
  if (next_) next_->OnLifetimeHint(path, lifetime);
}

void LevelInference::OnAppend(const std::string& path, std::string_view data) {
  if (next_) next_->OnAppend(path, data);
  if (!IsTableFile(path)) return;
  Hint h;
  {
    std::lock_guard<std::mutex> l(mu_);
    sizes_[path] += data.size();
    auto it = pending_.find(path);
    if (it == pending_.end()) return;
    h.level = GuessLocked(it->second, clock_());
    pending_.erase(it);
  }
  h.kind = Hint::Kind::kTableFileCreation;
  h.path = path;
  h.reason = "inferred";
  bus_->Publish(std::move(h));  // outside our lock: subscribers include us
}

void LevelInference::OnDelete(const std::string& path) {
  {
    std::lock_guard<std::mutex> l(mu_);
    pending_.erase(path);
    scans_.erase(path);
    sizes_.erase(path);
  }
  if (next_) next_->OnDelete(path);
}

void LevelInference::OnRead(const std::string& path, uint64_t offset, uint64_t bytes) {
  if (next_) next_->OnRead(path, offset, bytes);
  if (!IsTableFile(path)) return;
  uint64_t now = clock_();
  std::lock_guard<std::mutex> l(mu_);
  if (levels_.count(path) == 0) return;
  Scan& s = scans_[path];
  bool near = s.next_offset != UINT64_MAX && offset + kScanSlack >= s.next_offset &&
              offset <= s.next_offset + kScanSlack;
  s.run = near ? s.run + 1 : 0;
  s.next_offset = near ? std::max(s.next_offset, offset + bytes) : offset + bytes;
  if (offset == 0) {
    s.from_start = std::max(s.from_start, bytes);
  } else if (offset <= s.from_start) {
    s.from_start = std::max(s.from_start, offset + bytes);
  }
  // A table opened for lookups reads its tail and single blocks; only a
  // scan reads it front to back (nine tenths: the index and footer may
  // already be cached).
  auto size = sizes_.find(path);
  bool covered = size != sizes_.end() && size->second > 0 && s.from_start * 10 >= size->second * 9;
  if (s.run >= kScanRun || covered) s.last_ns = now;
}

int LevelInference::GuessLocked(int lifetime, uint64_t now) {
  std::set<int> scanned;  // levels of the tables running compactions read
  for (const auto& [path, scan] : scans_) {
    if (scan.last_ns != 0 && now - scan.last_ns <= kScanWindowNs) scanned.insert(levels_.at(path));
  }
  int shallowest = scanned.empty() ? -1 : *scanned.begin();
  // The first table after a log switch is the flush, even while a
  // compaction runs (it gets L0's "medium" hint, or none).
  if (flush_pending_ && (lifetime == 0 || lifetime == 1 || lifetime == 3)) {
    flush_pending_ = false;
    return lifetime == 3 ? 0 : flush_level_;
  }
  switch (lifetime) {
    case 3:  // medium: L0 (a flush) or the base level (L0 -> L1 compaction)
      return scanned.count(0) ? 1 : 0;
    case 4:  // long: the level below the base
      return 2;
    case 5:  // extreme: deeper still
      return std::max(3, shallowest + 1);
    default:  // no lifetime hint (LevelDB, FUSE): a flush goes where the last one went
      return scanned.empty() ? flush_level_ : shallowest + 1;
  }
}

}  // namespace hintfs
