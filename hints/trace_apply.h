// Applying a hint trace to a real filesystem: the files a store created,
// appended to and deleted, in the trace's order, with filler bytes, and its
// hints published on the mount's bus as they came. The filesystem's own
// allocation and GC run on exactly the file stream the store produced, so
// two filesystems (two allocation policies, say) can be compared on the
// same input: a store run again never writes the same files twice (its
// background jobs are timed by the machine), and what GC relocates depends
// on how full those jobs leave the device as much as on placement.
//
// The trace does not record closes: a file is closed after its last append
// (the trace is read twice to find it). Reads are not replayed, nor renames
// (the trace has none). Appends and deletes of a path the filesystem has
// not got (created before the trace began) are counted and passed over.
#ifndef HINTFS_HINTS_TRACE_APPLY_H_
#define HINTFS_HINTS_TRACE_APPLY_H_

#include <cstdint>
#include <set>

#include "fs/filesystem.h"
#include "hints/hint_bus.h"
#include "hints/trace.h"

namespace hintfs {

struct TraceApplyOptions {
  // Non-zero: each file gets the write-life-time hint its real lifetime in
  // the trace calls for (bytes appended to all files between its create and
  // its delete: 1 below this many, one more per doubling up to 4, 5 if the
  // trace never deletes it) in place of the store's. Allocation that knows
  // every file's future, to measure how much a lifetime predictor could
  // gain at most.
  uint64_t oracle_lifetime_unit = 0;
  // With oracle_lifetime_unit: only tables of these levels (as the trace's
  // table-file-creation hints give them) get oracle hints, the rest keep
  // the store's; empty: every file. Where knowing the future pays.
  std::set<int> oracle_levels;
};

struct TraceApplyResult {
  uint64_t events = 0;
  uint64_t files_created = 0;
  uint64_t files_deleted = 0;
  uint64_t bytes_appended = 0;
  uint64_t hints_published = 0;
  uint64_t passed_over = 0;  // appends or deletes of files the trace never created
};

// Applies every event of trace to fs; hints go to bus (none if null).
// progress(offset, size) is called now and then. Corruption for a damaged
// trace (the reader's error, naming the offset); any error of fs (NoSpace
// when the filesystem fills, say) stops the replay and is returned, with
// the path it concerned. trace is read from its start, whatever was read
// of it before.
Status ApplyTrace(TraceReader* trace, Filesystem* fs, HintBus* bus, const TraceApplyOptions& options,
                  TraceApplyResult* result, const ProgressFn& progress);

}  // namespace hintfs

#endif  // HINTFS_HINTS_TRACE_APPLY_H_
