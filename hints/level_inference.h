// LevelInference: guesses a new table's LSM level before its first byte for
// stores that send no hints about it (RocksDB without the listener, LevelDB,
// anything on the FUSE mount), from what the filesystem sees:
//   - which tables are being scanned right now (a run of reads from a
//     table's first byte, each starting near where the previous one ended,
//     or reads from the start that covered nearly all of a table this mount
//     saw written or 256 KiB of any: through the kernel, or with a
//     compaction's readahead, a table may arrive in one or two reads;
//     opening a table reads its footer, index and filter backwards from its
//     end, and its first block, which is no scan): the inputs of a running
//     compaction,
//     whose levels the MANIFEST already told (hints on the bus);
//   - the writer's lifetime hint (RocksDB: short = WAL, medium = L0 or the
//     base level, long = the level below the base, extreme = deeper);
//   - the table's first entry, read from its first append (its first block
//     plain or Snappy-compressed): a store that records its tables'
//     sequence numbers in the MANIFEST (RocksDB) writes keys numbered above
//     every recorded table's only in a flush; a compaction's output holds
//     keys of its inputs, so its first key and number lie within one
//     input's ranges.
//   - the store's info LOG (hints/info_log.h), for a store that records no
//     sequence numbers and sends no lifetime hints (LevelDB): its line
//     before a flush names the table, and its line before a compaction the
//     levels and counts of the inputs, so the tables created until its end
//     line are that compaction's outputs, at its output level. It decides
//     over the reads, which on the FUSE mount miss whatever the kernel's
//     page cache serves (a compaction's L0 input the store read moments
//     before) and include lookups that read a table's first block; the
//     compaction's inputs are then its upper level's (L0: the oldest
//     tables; deeper: the first read from its start after the line, and
//     the others of its level within the range of all inputs when the LOG
//     counts more: LevelDB widens them so) and the tables below whose key
//     ranges meet theirs, and its count is the LOG's (docs/benchmarks.md,
//     issue 20, sessions 69 and 70).
// Where the first entry's number decides, a flush is level 0 (or where the
// store's last flush went) and a compaction's output is placed by the
// compaction whose inputs hold its first entry. Live tables scanned within
// kInputWindowNs count as inputs (a compaction reads its inputs whole at its
// start and runs for seconds; the store deletes them when it commits). The
// levels they are at are paired into compactions from the deepest up: the
// deepest is an output level, with the level above it as the inputs; a
// level left alone is an output level whose inputs above are read no more,
// or L0, which RocksDB compacts into itself while L1 is busy (unless the
// compaction inferred running with the entry's table as an input writes L1,
// or L1 is empty). Of the tables holding the entry the one whose key range
// is narrowest (longest common prefix) decides: L0 -> L1 and L2 -> L3 at
// once both read wide-ranged tables only in the first. An entry that is a
// table's smallest key begins a new compaction (its first output): tables
// with smaller keys are no inputs of it. Without the number (LevelDB, other
// compressions, a store's first flush):
// the first table created after a new write-ahead log is the flush of the
// old one's memtable, whatever else runs. Otherwise no scan under way means a
// flush too: level 0, or for a store that sends no lifetime hint the level
// its last flush was recorded at (LevelDB pushes a flushed table down to L2
// when nothing overlaps). A compaction whose shallowest input is level L
// writes level L + 1; a "medium" table is L1 only while an L0 table is being
// scanned, else a flush. The guess is published at the
// table's first append as a table-creation hint with reason "inferred";
// LevelTracker uses it as an estimate and scores it against the level the
// MANIFEST records later.
//
// A table guessed to come from a compaction (level L + 1 while tables of
// level L are being scanned, or an entry an input holds) also announces
// that compaction, as RocksDB's listener would, so that placement sees the
// storage demand it brings before its first output's first byte: a
// compaction-begin hint (reason "inferred", a job id from kInferredJobBase
// up) whose inputs are the tables of level L being scanned and the tables
// of level L + 1 whose key ranges (from the MANIFEST) overlap theirs, and
// whose count is how many inputs that makes. For a store that records
// sequence numbers (RocksDB) the compaction is the one that has the table
// holding the output's first entry as an input (InputsByHolderLocked says
// which tables a new one has; a table is in one compaction at a time);
// otherwise later outputs to the same level join the running job. Each
// output gets its compaction-output hint when the next begins or the job
// ends. The job ends (a compaction-end hint) when the MANIFEST records one
// of its outputs, which is when the store commits it (the deletion of an
// input may be another compaction's commit: it only leaves the job), or
// after kJobIdleNs without a scan of its inputs or a new output.
//
// A store is a directory: only its own tables' reads and log switches count
// for its new tables. A table is judged by what ran when it was created as
// well as when its first bytes arrive (on the FUSE mount the kernel's
// write-back may deliver them seconds later): it is a log switch's flush
// only if it was created after that switch, and the reads under way at its
// creation count towards its compaction's inputs.
//
// The deletion of a file that is no table (a log, a MANIFEST) is published
// as a file-deleted hint: nothing else tells placement that such a store
// removed its log. Tables' deletions come from the MANIFEST, with levels.
//
// Passes every call on to the next observer.
#ifndef HINTFS_HINTS_LEVEL_INFERENCE_H_
#define HINTFS_HINTS_LEVEL_INFERENCE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "fs/filesystem.h"
#include "hints/hint_bus.h"
#include "hints/info_log.h"
#include "hints/table_map.h"

namespace hintfs {

class LevelInference : public IoObserver {
 public:
  using Clock = std::function<uint64_t()>;  // nanoseconds, monotonic

  LevelInference(std::shared_ptr<HintBus> bus, std::shared_ptr<IoObserver> next, Clock clock = nullptr);
  ~LevelInference() override;

  void OnCreate(const std::string& path, ZoneRole role) override;
  void OnLifetimeHint(const std::string& path, int lifetime) override;
  void OnAppend(const std::string& path, std::string_view data) override;
  void OnClose(const std::string& path, uint64_t size) override;
  void OnDelete(const std::string& path) override;
  void OnRead(const std::string& path, uint64_t offset, uint64_t bytes, uint64_t slow_bytes) override;

  // A table scanned within this long counts as an input of a running compaction.
  static constexpr uint64_t kScanWindowNs = 1000000000;
  // Ids of inferred compactions start here, far above any store's job ids.
  static constexpr int64_t kInferredJobBase = int64_t{1} << 48;
  // A live table scanned within this long is taken for an input of a
  // running compaction when a table's first entry is matched to its inputs:
  // compactions read inputs whole at their start (readahead) and run for
  // seconds; an input is deleted when its compaction is committed.
  static constexpr uint64_t kInputWindowNs = 10 * kScanWindowNs;
  // An inferred compaction with no sign of life this long is over.
  static constexpr uint64_t kJobIdleNs = 10 * kScanWindowNs;

 private:
  struct Scan {
    uint64_t next_offset = UINT64_MAX;
    int run = 0;           // reads in a row that continued the previous one
    bool run_from_start = false;  // the run began at the table's first byte
    uint64_t from_start = 0;  // bytes read without a gap from offset 0
    uint64_t last_ns = 0;  // when the run was last extended (0: not scanning)
    uint64_t started_ns = 0;  // when the table was last read from its first byte
    // When the read from its first byte that began its scan came: the last
    // before the bytes read from there passed kScanBytes (opening the table
    // reads its first block too, earlier).
    uint64_t scan_started_ns = 0;
  };
  struct Table {
    int level = -1;
    std::string smallest, largest;  // both empty: key range unknown
    std::optional<uint64_t> smallest_seqno, largest_seqno;  // RocksDB's MANIFEST
    uint64_t recorded_ns = 0;  // when a hint first named its level
    // Whether a table with first as an entry could be written from this
    // one: its key range holds the key and, unless the key is numbered 0
    // (RocksDB's bottom level) or its numbers are unknown, its number range
    // holds the number.
    bool Holds(const FirstTableKey& first) const;
    // How narrow its key range is: the length of the prefix its smallest
    // and largest keys share (-1: the range is unknown).
    std::ptrdiff_t RangePrefix() const;
    // Whether both key ranges are known and overlap.
    bool Meets(const Table& other) const;
  };
  // A compaction the store's info LOG announced (hints/info_log.h).
  struct LoggedCompaction {
    uint64_t id = 0;  // from 1, per LevelInference
    InfoLogEvent event;
    uint64_t since_ns = 0;  // when its line came
  };
  struct Guess {
    int level = 0;
    // The LOG's compaction that writes the table, if the LOG named it.
    std::optional<LoggedCompaction> logged;
    bool compaction = false;  // level L + 1 while level L is being scanned
    // From the table's first entry: the input table holding it, and whether
    // the entry is that table's smallest key (the compaction's first output).
    std::string holder;
    bool first_output = false;
    // An L0 table that holds the entry too, if one is being read (the
    // latest to begin its scan if several).
    std::string level0_holder;
  };
  struct Job {
    int output_level = 0;
    std::vector<HintFile> inputs;
    std::set<std::string> outputs;
    std::string last_output;  // its compaction-output hint is still due
    uint64_t last_ns = 0;     // the latest scan of an input or new output
    uint64_t logged_id = 0;   // the LoggedCompaction it is, or 0
  };

  void OnHint(const Hint& hint);
  static Guess FlushAt(int level);  // a flush's table, at level
  static std::string DirOf(const std::string& path);  // its store's directory
  // A store is a directory: its tables, logs and MANIFEST live there.
  struct Store {
    int flush_level = 0;    // where its last flush output was recorded
    uint64_t switches = 0;  // logs it created
    uint64_t flushed = 0;   // switches whose flush table has been seen
    // The largest sequence number of any table its MANIFEST recorded (only
    // stores that record them: RocksDB).
    std::optional<uint64_t> max_seqno;
    // What its info LOG says now: the compaction running (LevelDB runs one
    // at a time), and the tables flushes are about to write.
    std::optional<LoggedCompaction> logged;
    std::set<uint64_t> logged_flushes;
  };
  // A new table before its first append.
  struct Pending {
    int lifetime = 0;
    uint64_t switches = 0;  // its store's log switches when it was created
    std::set<std::string> scanned, started;  // ScannedLocked then
    // What the store's info LOG said of it before it was created.
    bool logged_flush = false;
    std::optional<LoggedCompaction> logged;
  };
  // A store's info LOG grew by data (level_inference_log.cc).
  void OnInfoLog(const std::string& path, std::string_view data);
  // The inputs of a compaction its LOG announced: of its upper level, the
  // tables the LOG counts (L0: the oldest; deeper: the first read from
  // their first byte since the line came, or if fewer were read than the
  // LOG counts and it counts every table of that level within the range of
  // all inputs, those: LevelDB widens its upper inputs so), and the tables
  // of the lower level whose key ranges meet theirs.
  std::vector<HintFile> InputsFromLogLocked(const std::string& dir, const LoggedCompaction& logged) const;
  // The recorded tables among paths, for their key ranges.
  std::vector<Table> RangesOfLocked(const std::vector<std::string>& paths) const;
  // A range from the smallest to the largest key of the tables at paths.
  Table SpanLocked(const std::vector<std::string>& paths) const;
  // The tables of the store in dir at level whose key ranges meet one of ranges.
  std::vector<std::string> TablesMeetingLocked(const std::string& dir, int level,
                                               const std::vector<Table>& ranges) const;
  // first: the table's first entry, or null if its first bytes did not show it.
  Guess GuessLocked(const std::string& dir, const Pending& pending, const FirstTableKey* first, uint64_t now);
  // The level of a compaction's output in the store in dir whose first
  // entry is first: that of the compaction, among those the tables being
  // read (read) pair up into, with an input holding it (the
  // narrowest-ranged if several: *holder, if any); fallback if none does.
  // *first_output: the entry is a read table's smallest key.
  int OutputLevelLocked(const std::string& dir, const std::set<std::string>& read, const FirstTableKey& first,
                        int fallback, Guess* guess) const;
  bool LevelHasTablesLocked(const std::string& dir, int level) const;
  // Where a compaction that reads the L0 table holder (among the L0 tables
  // read, and no L1 table) writes: where the inferred compaction running
  // with holder as an input writes (holder empty: a new compaction); L0 if
  // another of them is an input of an inferred L0 -> L1 compaction (RocksDB
  // compacts the L0 tables that one left into themselves) or L1 has tables;
  // else L1.
  int LevelZeroOutputLocked(const std::string& dir, const std::string& holder,
                            const std::vector<std::string>& read) const;
  // Tables of the store in dir scanned within the window (started_too: or
  // read from their first byte).
  std::set<std::string> ScannedLocked(const std::string& dir, uint64_t now, bool started_too,
                                      uint64_t window = kScanWindowNs) const;
  // The job an output joins, adding the hints that announce it and the
  // job's previous output: with a holder, the job that has the holder as
  // an input, unless the output is a first one or that job writes another
  // level, or if no job has it, a job writing the same level one of whose
  // inputs' key ranges meets the holder's (which then has it too); without
  // a holder, the job writing its level. Begun now if none.
  int64_t JoinCompactionLocked(const std::string& output, const Guess& guess, const Pending& pending,
                               uint64_t now, std::vector<Hint>* hints);
  // The inputs of a compaction writing output_level, from the reads under
  // way now and those at its first output's creation.
  std::vector<HintFile> InputsLocked(const std::string& dir, int output_level,
                                     const std::set<std::string>& read_at_creation, uint64_t now) const;
  // The inputs of the compaction writing guess.level whose input
  // guess.holder holds its first output's first entry (a store that
  // records sequence numbers): the holder, the tables of its level pair
  // scanned within kInputWindowNs that no other inferred compaction has
  // (of L0 only those whose scans began within kScanWindowNs of that of
  // guess.level0_holder, or of the latest: a compaction begins reading all
  // its L0 inputs at once; above L0, of the level above only those whose
  // key ranges meet the holder's or lie within the range of the tables
  // below that the holder's compaction has), and the tables of the output
  // level whose key ranges meet those above.
  std::vector<HintFile> InputsByHolderLocked(const std::string& dir, const Guess& guess, uint64_t now) const;
  // Of the L0 tables read, those one compaction reads: those whose scans
  // began within kScanWindowNs of that of reference (an L0 table it reads;
  // empty: the latest), and of two compactions that began so, the one's
  // reference is in (told apart by when the MANIFEST recorded them).
  std::vector<std::string> OneCompactionsLevelZeroLocked(const std::vector<std::string>& read,
                                                         const std::string& reference) const;
  // Adds the compaction-output hint of job's latest output, if any.
  static void LastOutputWritten(int64_t id, const Job& job, std::vector<Hint>* hints);
  void EndJobLocked(int64_t id, std::vector<Hint>* hints);
  void EndIdleJobsLocked(uint64_t now, std::vector<Hint>* hints);
  // Counts bytes of a table; at its first, publishes the guess of its level.
  void GuessAtFirstByte(const std::string& path, std::string_view data);
  // Outside our lock: subscribers include us.
  void Publish(std::vector<Hint>* hints);

  std::shared_ptr<HintBus> bus_;
  std::shared_ptr<IoObserver> next_;
  Clock clock_;
  uint64_t subscription_ = 0;
  std::mutex mu_;
  std::map<std::string, Table> tables_;  // tables whose level a hint named
  // Hashed: every read of a table looks these up.
  std::unordered_map<std::string, Scan> scans_;    // reads of those tables
  std::map<std::string, Pending> pending_;  // new tables before their first append
  std::unordered_map<std::string, uint64_t> sizes_;  // bytes appended to tables since the mount
  std::map<std::string, Store> stores_;  // by directory
  std::map<int64_t, Job> jobs_;          // inferred compactions running
  std::unordered_map<std::string, int64_t> input_of_;  // input table -> its job
  std::map<std::string, int64_t> output_of_;  // output table -> its job
  int64_t next_job_ = kInferredJobBase;
  std::unordered_map<std::string, std::string> log_tails_;  // info LOG -> its partial last line
  uint64_t next_logged_ = 1;
};

}  // namespace hintfs

#endif  // HINTFS_HINTS_LEVEL_INFERENCE_H_
