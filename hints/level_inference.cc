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
// Bytes read without a gap from a table's first byte that make a scan
// whatever the requests' sizes (a compaction's readahead may read a table
// in two): more than a table's opening reads, or the kernel's readahead
// around one block.
constexpr uint64_t kScanBytes = 256 << 10;

}  // namespace

std::string LevelInference::DirOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

LevelInference::LevelInference(std::shared_ptr<HintBus> bus, std::shared_ptr<IoObserver> next, Clock clock)
    : bus_(std::move(bus)), next_(std::move(next)), clock_(clock ? std::move(clock) : Clock(MonotonicNs)) {
  subscription_ = bus_->Subscribe([this](const Hint& h) { OnHint(h); });
}

LevelInference::~LevelInference() { bus_->Unsubscribe(subscription_); }

void LevelInference::OnHint(const Hint& h) {
  std::vector<Hint> hints;
  {
    std::lock_guard<std::mutex> l(mu_);
    switch (h.kind) {
      case Hint::Kind::kTableFileCreation:
      case Hint::Kind::kCompactionOutput:
        if (h.level >= 0 && h.reason != "inferred") {
          Table& t = tables_[h.path];
          if (t.level < 0) t.recorded_ns = clock_();
          t.level = h.level;
          if (!h.smallest_key.empty() || !h.largest_key.empty()) {
            t.smallest = h.smallest_key;
            t.largest = h.largest_key;
          }
          pending_.erase(h.path);  // a store that says it needs no guess
          Store& store = stores_[DirOf(h.path)];
          if (h.reason == "flush") store.flush_level = h.level;
          if (h.smallest_seqno && h.largest_seqno) {
            t.smallest_seqno = h.smallest_seqno;
            t.largest_seqno = h.largest_seqno;
            store.max_seqno = std::max(store.max_seqno.value_or(0), *h.largest_seqno);
          }
          // The MANIFEST records a compaction's outputs when the store
          // commits it, whichever tables were taken for its inputs.
          auto job = output_of_.find(h.path);
          if (job != output_of_.end()) EndJobLocked(job->second, &hints);
        }
        break;
      case Hint::Kind::kFileDeleted: {
        // A compaction committed the input: the one inferred, or another
        // whose input it was taken for. The job ends when the MANIFEST
        // records its outputs (the same edit, after its deletions).
        input_of_.erase(h.path);
        tables_.erase(h.path);
        scans_.erase(h.path);
        sizes_.erase(h.path);
        break;
      }
      default:
        break;
    }
  }
  Publish(&hints);
}

void LevelInference::Publish(std::vector<Hint>* hints) {
  for (Hint& h : *hints) bus_->Publish(std::move(h));
  hints->clear();
}

void LevelInference::OnCreate(const std::string& path, ZoneRole role) {
  if (IsTableFile(path)) {
    std::lock_guard<std::mutex> l(mu_);
    if (tables_.count(path) == 0) {
      // What the store was doing when it created the table: on the mount
      // the table's first bytes may reach us much later (the kernel's
      // write-back), after other flushes and compactions began.
      uint64_t now = clock_();
      const std::string dir = DirOf(path);
      Store& store = stores_[dir];
      Pending& p = pending_[path];
      p.switches = store.switches;
      p.scanned = ScannedLocked(dir, now, false);
      p.started = ScannedLocked(dir, now, true);
      p.logged_flush = store.logged_flushes.erase(TableNumberOf(path)) > 0;
      p.logged = store.logged;
    }
  } else if (IsWalFile(path)) {
    // A new write-ahead log: the memtable of the old one is about to be flushed.
    std::lock_guard<std::mutex> l(mu_);
    stores_[DirOf(path)].switches++;
  }
  if (next_) next_->OnCreate(path, role);
}

void LevelInference::OnLifetimeHint(const std::string& path, int lifetime) {
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = pending_.find(path);
    if (it != pending_.end()) it->second.lifetime = lifetime;
  }
  if (next_) next_->OnLifetimeHint(path, lifetime);
}

void LevelInference::OnClose(const std::string& path, uint64_t size) {
  if (next_) next_->OnClose(path, size);
}

// The guess is published before the append goes on down the chain, so that
// a trace records a table's level before its first byte, as placement saw it.
void LevelInference::OnAppend(const std::string& path, std::string_view data) {
  if (IsTableFile(path)) GuessAtFirstByte(path, data);
  if (IsInfoLogFile(path)) OnInfoLog(path, data);
  if (next_) next_->OnAppend(path, data);
}

void LevelInference::GuessAtFirstByte(const std::string& path, std::string_view data) {
  std::vector<Hint> hints;
  {
    std::lock_guard<std::mutex> l(mu_);
    uint64_t& size = sizes_[path];
    const bool at_start = size == 0;
    size += data.size();
    auto it = pending_.find(path);
    if (it == pending_.end()) return;
    uint64_t now = clock_();
    EndIdleJobsLocked(now, &hints);
    FirstTableKey first;
    const bool first_known = at_start && ReadFirstTableKey(data, &first);
    Guess guess = GuessLocked(DirOf(path), it->second, first_known ? &first : nullptr, now);
    int64_t job = guess.compaction ? JoinCompactionLocked(path, guess, it->second, now, &hints) : -1;
    pending_.erase(it);
    Hint h;
    h.kind = Hint::Kind::kTableFileCreation;
    h.path = path;
    h.level = guess.level;
    h.job = job;
    h.reason = "inferred";
    hints.push_back(std::move(h));
  }
  Publish(&hints);
}

void LevelInference::OnDelete(const std::string& path) {
  {
    std::lock_guard<std::mutex> l(mu_);
    pending_.erase(path);
    scans_.erase(path);
    sizes_.erase(path);
    log_tails_.erase(path);
  }
  // A table's deletion is the MANIFEST's to tell, with its level; nothing
  // else tells placement that a store without hints removed a log.
  if (!IsTableFile(path)) {
    std::vector<Hint> hints(1);
    hints[0].kind = Hint::Kind::kFileDeleted;
    hints[0].path = path;
    hints[0].reason = "inferred";
    Publish(&hints);
  }
  if (next_) next_->OnDelete(path);
}

void LevelInference::OnRead(const std::string& path, uint64_t offset, uint64_t bytes, uint64_t slow_bytes) {
  if (next_) next_->OnRead(path, offset, bytes, slow_bytes);
  if (!IsTableFile(path)) return;
  uint64_t now = clock_();
  std::lock_guard<std::mutex> l(mu_);
  if (tables_.count(path) == 0) return;
  auto job = input_of_.find(path);
  if (job != input_of_.end()) jobs_[job->second].last_ns = now;
  Scan& s = scans_[path];
  bool near = s.next_offset != UINT64_MAX && offset + kScanSlack >= s.next_offset &&
              offset <= s.next_offset + kScanSlack;
  s.run = near ? s.run + 1 : 0;
  if (!near) s.run_from_start = offset == 0;
  s.next_offset = near ? std::max(s.next_offset, offset + bytes) : offset + bytes;
  const bool extends = offset <= s.from_start && offset + bytes > s.from_start;
  if (offset == 0 && s.from_start < kScanBytes) s.scan_started_ns = now;
  if (offset == 0) {
    s.started_ns = now;
    s.from_start = std::max(s.from_start, bytes);
  } else if (offset <= s.from_start) {
    s.from_start = std::max(s.from_start, offset + bytes);
  }
  // A table opened for lookups reads its tail (footer, index, filter: a run
  // of reads, backwards) and single blocks; only a scan reads it front to
  // back (a run from its first byte, a read that takes the bytes read from
  // it past kScanBytes, or nine tenths of it: the index and footer may
  // already be cached).
  auto size = sizes_.find(path);
  bool covered = size != sizes_.end() && size->second > 0 && s.from_start * 10 >= size->second * 9;
  bool long_run = extends && s.from_start >= kScanBytes;
  if ((s.run >= kScanRun && s.run_from_start) || covered || long_run) s.last_ns = now;
}

std::set<std::string> LevelInference::ScannedLocked(const std::string& dir, uint64_t now, bool started_too,
                                                   uint64_t window) const {
  std::set<std::string> scanned;  // the tables the store's running compactions read
  auto recent = [&](uint64_t ns) { return ns != 0 && now - ns <= window; };
  for (const auto& [path, scan] : scans_) {
    if (DirOf(path) != dir) continue;  // another store's
    if (recent(scan.last_ns) || (started_too && recent(scan.started_ns))) scanned.insert(path);
  }
  return scanned;
}

LevelInference::Guess LevelInference::FlushAt(int level) {
  Guess g;
  g.level = level;
  return g;
}

LevelInference::Guess LevelInference::GuessLocked(const std::string& dir, const Pending& pending,
                                                  const FirstTableKey* first, uint64_t now) {
  // Levels of the tables running compactions read. A compaction's first
  // output may begin after a block or two of each input (small blocks, or
  // LevelDB's merge of many L0 tables): reads from a table's first byte
  // count then, if no table has been read far enough to show a scan.
  // That takes a store without lifetime hints (LevelDB, the mount): it
  // flushes only after a log switch, so a table without one is a
  // compaction's, and the shallowest level read is its input level even if
  // a deeper one shows a longer scan already. (A RocksDB point lookup also
  // reads a first block.)
  // Reads when the table was created count as well as those now.
  const int lifetime = pending.lifetime;
  const bool started_too = lifetime == 0 || lifetime == 1;
  Store& store = stores_[dir];
  std::set<int> scanned;
  std::set<std::string> read = ScannedLocked(dir, now, started_too);
  read.insert(pending.scanned.begin(), pending.scanned.end());
  if (started_too) read.insert(pending.started.begin(), pending.started.end());
  for (const std::string& path : read) {
    auto t = tables_.find(path);
    if (t != tables_.end()) scanned.insert(t->second.level);
  }
  int shallowest = scanned.empty() ? -1 : *scanned.begin();
  // Only a flush writes keys numbered above every table the store recorded.
  bool compaction_output = false;
  if (first != nullptr && store.max_seqno) {
    if (first->sequence > *store.max_seqno) {
      store.flushed = std::max(store.flushed, pending.switches);
      return FlushAt(lifetime == 3 ? 0 : store.flush_level);
    }
    compaction_output = true;
  }
  // A store without hints that says in its info LOG what it is about to
  // write (LevelDB) is taken at its word.
  if (!store.max_seqno && (lifetime == 0 || lifetime == 1)) {
    if (pending.logged_flush) {
      store.flushed = std::max(store.flushed, pending.switches);
      return FlushAt(store.flush_level);
    }
    if (pending.logged) {
      Guess g;
      g.level = pending.logged->event.output_level;
      g.compaction = true;
      g.logged = pending.logged;
      return g;
    }
  }
  // The first table created after a log switch is the flush, even while a
  // compaction runs (it gets L0's "medium" hint, or none); a table created
  // before the latest unflushed switch is not its flush.
  if (!compaction_output && store.flushed < store.switches && pending.switches > store.flushed &&
      (lifetime == 0 || lifetime == 1 || lifetime == 3)) {
    store.flushed = pending.switches;
    return FlushAt(lifetime == 3 ? 0 : store.flush_level);
  }
  // Tables read front to back within the inputs' window pair up (opening
  // a table reads its tail and perhaps its first block too): a table a
  // compaction read lives until the compaction is committed, however long
  // ago it was read whole.
  auto input_scans = [&] {
    std::set<std::string> scans = ScannedLocked(dir, now, false, kInputWindowNs);
    scans.insert(pending.scanned.begin(), pending.scanned.end());
    return scans;
  };
  Guess g;
  switch (lifetime) {
    case 3:  // medium: L0 (a flush) or the base level (L0 -> L1 compaction)
      g.level = scanned.count(0) || compaction_output ? 1 : 0;
      break;
    case 4:  // long: the level below the base
      g.level = 2;
      break;
    case 5:  // extreme: deeper still
      g.level = std::max(3, shallowest + 1);
      break;
    default:  // no lifetime hint (LevelDB, FUSE): a flush goes where the last one went
      if (compaction_output) {
        g.level = OutputLevelLocked(dir, input_scans(), *first, scanned.empty() ? 1 : shallowest + 1, &g);
        break;
      }
      if (scanned.empty()) return FlushAt(store.flush_level);
      g.level = shallowest + 1;
  }
  if (compaction_output && lifetime >= 3) {
    // The lifetime hint says the level; the first entry's holder still
    // names the compaction, if it agrees.
    Guess by_entry;
    by_entry.level = OutputLevelLocked(dir, input_scans(), *first, -1, &by_entry);
    if (by_entry.level == g.level) g = by_entry;
  }
  // (An output at L0 is a compaction only if L0 is being read: RocksDB's
  // compaction of L0 into itself.)
  // An entry an input holds is a compaction's, wherever its inputs were read.
  g.compaction = !g.holder.empty() ||
                 (scanned.count(g.level > 0 ? g.level - 1 : 0) != 0 && (g.level > 0 || compaction_output));
  return g;
}

bool LevelInference::Table::Holds(const FirstTableKey& first) const {
  if (smallest.empty() && largest.empty()) return false;
  if (first.user_key < smallest || first.user_key > largest) return false;
  if (first.sequence == 0 || !smallest_seqno || !largest_seqno) return true;
  return first.sequence >= *smallest_seqno && first.sequence <= *largest_seqno;
}

bool LevelInference::Table::Meets(const Table& other) const {
  bool ranged = !smallest.empty() && !largest.empty() && !other.smallest.empty() && !other.largest.empty();
  return ranged && smallest <= other.largest && other.smallest <= largest;
}

std::ptrdiff_t LevelInference::Table::RangePrefix() const {
  if (smallest.empty() && largest.empty()) return -1;
  return static_cast<std::ptrdiff_t>(SharedPrefixLength(smallest, largest));
}

int LevelInference::OutputLevelLocked(const std::string& dir, const std::set<std::string>& read,
                                      const FirstTableKey& first, int fallback, Guess* guess) const {
  // A compaction's first output begins with its inputs' smallest key: if
  // the entry is a table's smallest, no table with a smaller key is an input,
  // and the compaction is a new one, not one inferred running.
  bool first_output = false;
  for (const std::string& path : read) {
    auto t = tables_.find(path);
    first_output |= t != tables_.end() && t->second.smallest == first.user_key && t->second.Holds(first);
  }
  guess->first_output = first_output;
  guess->holder.clear();
  guess->level0_holder.clear();
  uint64_t level0_started = 0;
  for (const std::string& path : read) {
    auto t = tables_.find(path);
    auto scan = scans_.find(path);
    if (t == tables_.end() || t->second.level != 0 || !t->second.Holds(first) || scan == scans_.end()) continue;
    if (guess->level0_holder.empty() || scan->second.scan_started_ns > level0_started) {
      guess->level0_holder = path;
      level0_started = scan->second.scan_started_ns;
    }
  }
  std::map<int, std::vector<std::string>, std::greater<int>> by_level;  // deepest first
  for (const std::string& path : read) {
    auto t = tables_.find(path);
    if (t == tables_.end() || t->second.level < 0) continue;
    if (first_output && t->second.smallest < first.user_key) continue;
    by_level[t->second.level].push_back(path);
  }
  // Pair the levels being read into compactions from the deepest up. The
  // deepest is read as a compaction's output level (its tables are read one
  // by one as the merge reaches them; the inputs above were read at the
  // start), with the level above it as the inputs. RocksDB runs no two
  // compactions that share a table, so a level is in one pair at most. A
  // level left alone is an output level whose inputs above are read no
  // more, or L0: compacted into L1 if the compaction inferred running with
  // the table as an input says so (L1's input was read too long ago) or L1
  // is empty, else into itself (RocksDB does that while L1 is busy, also
  // beside an L0 -> L1 compaction of other L0 tables).
  // Of the tables holding the entry, the narrowest-ranged decides.
  int best_level = fallback;
  std::ptrdiff_t best_prefix = -1;
  int paired_from = INT32_MAX;  // shallowest level already in a pair
  for (const auto& [level, paths] : by_level) {
    if (level >= paired_from) continue;
    auto above = level > 0 ? by_level.find(level - 1) : by_level.end();
    std::vector<std::string> inputs = paths;
    if (above != by_level.end()) {
      inputs.insert(inputs.end(), above->second.begin(), above->second.end());
      paired_from = level - 1;
    }
    for (const std::string& path : inputs) {
      const Table& t = tables_.at(path);
      std::ptrdiff_t prefix = t.RangePrefix();
      if (!t.Holds(first) || prefix <= best_prefix) continue;
      best_level = level == 0 ? LevelZeroOutputLocked(dir, first_output ? "" : path, paths) : level;
      best_prefix = prefix;
      guess->holder = path;
    }
  }
  return best_level;
}

int LevelInference::LevelZeroOutputLocked(const std::string& dir, const std::string& holder,
                                          const std::vector<std::string>& read) const {
  auto job = input_of_.find(holder);
  if (job != input_of_.end()) return jobs_.at(job->second).output_level;
  for (const std::string& path : read) {
    job = input_of_.find(path);
    if (job != input_of_.end() && jobs_.at(job->second).output_level == 1) return 0;
  }
  return LevelHasTablesLocked(dir, 1) ? 0 : 1;
}

bool LevelInference::LevelHasTablesLocked(const std::string& dir, int level) const {
  for (const auto& [path, t] : tables_) {
    if (t.level == level && DirOf(path) == dir) return true;
  }
  return false;
}

}  // namespace hintfs
