// InfoLog: what a store's diagnostic log (LevelDB's LOG) says about its
// flushes and compactions, a line at a time. LevelDB writes the line before
// the work it names creates a file:
//   "Level-0 table #N: started"           a flush is about to write table N
//   "Compacting a@L + b@M files"          a compaction of a tables of level
//                                         L and b of level M (= L + 1)
//                                         begins; its outputs are level M
//   "Compacted a@L + b@M files => ..."    it committed
//   "Compaction error: ..."               it failed
// each after a timestamp and a thread id. RocksDB writes its own forms
// ("[default] [JOB 3] Compacting 4@0 + 1@1 files to L1, score 1.00", "Level-0
// flush table #N: started"); "to LN" gives the output level where present.
// Anything else is no event. For a store that sends no hints and whose
// reads the kernel may serve from its page cache (LevelDB on the FUSE
// mount), this is the one place that says which level a new table is for
// before its first byte (hints/level_inference.h).
#ifndef HINTFS_HINTS_INFO_LOG_H_
#define HINTFS_HINTS_INFO_LOG_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace hintfs {

struct InfoLogEvent {
  enum class Kind { kNone, kFlushStarted, kCompactionBegin, kCompactionEnd };
  Kind kind = Kind::kNone;
  uint64_t table_number = 0;  // kFlushStarted
  // kCompactionBegin: inputs per level, and the level its outputs are.
  int input_level = -1, lower_level = -1, output_level = -1;
  uint32_t input_tables = 0, lower_tables = 0;
};

// The event one line (without its newline) reports; kNone for any other
// line, a malformed one included.
InfoLogEvent ParseInfoLogLine(std::string_view line);

// Splits appended bytes into whole lines: the partial last line is kept in
// *tail for the next call (at most kMaxInfoLogLine bytes of it: a longer
// line is no event and is dropped).
constexpr size_t kMaxInfoLogLine = 4096;
template <typename Fn>
void ForEachInfoLogLine(std::string* tail, std::string_view data, Fn&& fn) {
  size_t start = 0;
  for (size_t nl = data.find('\n'); nl != std::string_view::npos; nl = data.find('\n', start)) {
    if (tail->empty()) {
      fn(data.substr(start, nl - start));
    } else {
      tail->append(data.substr(start, nl - start));
      fn(std::string_view(*tail));
      tail->clear();
    }
    start = nl + 1;
  }
  tail->append(data.substr(start));
  if (tail->size() > kMaxInfoLogLine) tail->clear();
}

// The number a table's file name carries ("/db/002722.ldb" -> 2722), or 0.
uint64_t TableNumberOf(std::string_view path);

}  // namespace hintfs

#endif  // HINTFS_HINTS_INFO_LOG_H_
