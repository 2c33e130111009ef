// Reads LevelDB and RocksDB MANIFEST files: the LevelDB log format (32 KiB
// blocks of checksummed records, split into first/middle/last fragments)
// carrying version edits (files added at a level, files deleted, log and
// file numbers). Stores that send no hints (LevelDB, anything on the FUSE
// mount) reveal their flushes and compactions this way.
//
// ManifestReader is incremental: feed it the bytes appended to a MANIFEST as
// they are written; a record split across feeds waits for the rest. Anything
// malformed is a Corruption naming the byte offset; the reader never reads
// past its input.
#ifndef HINTFS_HINTS_MANIFEST_H_
#define HINTFS_HINTS_MANIFEST_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fs/filesystem.h"
#include "fs/status.h"
#include "hints/hint.h"

namespace hintfs {

struct ManifestFile {
  int level = 0;
  uint64_t number = 0;
  uint64_t size = 0;
  // The table's smallest and largest user keys (its internal keys without
  // the 8-byte sequence and type trailer).
  std::string smallest, largest;
  // Its keys' smallest and largest sequence numbers: RocksDB records them,
  // LevelDB does not.
  std::optional<uint64_t> smallest_seqno, largest_seqno;
};

struct VersionEdit {
  uint32_t column_family = 0;
  std::optional<uint64_t> log_number;
  std::optional<uint64_t> prev_log_number;
  std::optional<uint64_t> next_file_number;
  std::optional<uint64_t> last_sequence;
  std::optional<std::string> comparator;
  std::vector<ManifestFile> new_files;
  std::vector<std::pair<int, uint64_t>> deleted_files;  // level, number

  // Flush: new files and nothing deleted, with a new log number or at L0
  // only (LevelDB may place a flushed table down to L2). Compaction: files
  // deleted and added at a deeper level.
  bool IsFlush() const;
  bool IsCompaction() const;
};

// Decodes one version edit (the payload of one log record).
Status DecodeVersionEdit(std::string_view data, VersionEdit* edit);

class ManifestReader {
 public:
  // Appends bytes (continuing where the last call stopped) and returns every
  // edit they complete.
  Status Feed(std::string_view bytes, std::vector<VersionEdit>* edits);
  // A whole file: also an error if it ends inside a record.
  Status Finish();
  uint64_t offset() const { return consumed_; }

 private:
  Status Corrupt(uint64_t at, const std::string& what) const;

  std::string buffer_;      // bytes not yet consumed
  uint64_t consumed_ = 0;   // file offset of buffer_[0]
  std::string fragments_;   // a record being reassembled
  bool in_fragmented_record_ = false;
  uint64_t record_start_ = 0;
};

// Hints the edits imply: a file-deleted hint for every deleted file, then a
// table-file hint for every new one (with its level and "flush" or
// "compaction"); a file the edit deletes and adds back was moved, and gets
// only the second.
// Table paths are dir + "/" + six-digit number + ext.
std::vector<Hint> HintsFromEdit(const VersionEdit& edit, const std::string& dir, const std::string& ext);

// The level of every live table of the store in dir (the one its CURRENT
// names) as its MANIFEST now records it, by file number: the level a table
// is at after trivial moves, where a file's tag keeps the level it was
// written at. Edits are applied in order; only the default column family's
// tables count. NotFound if dir has no CURRENT or the MANIFEST it names is
// missing; Corruption if CURRENT does not name a MANIFEST or the MANIFEST is
// malformed before its last record (a record cut short at the end, as a
// store that is still writing leaves it, is not an error).
Status LiveTableLevels(Filesystem* fs, const std::string& dir, std::map<uint64_t, int>* levels);

// Applies edits, in order, to levels (file number -> level): what
// LiveTableLevels does with a MANIFEST's edits. A deletion names the level
// it deletes from, so a table an edit moves (dropped at one level, added at
// another) ends at the new one.
void ApplyEdits(const std::vector<VersionEdit>& edits, std::map<uint64_t, int>* levels);

// The file number of a table path ("/db/000123.sst": 123), or false.
bool TableFileNumber(std::string_view path, uint64_t* number);

}  // namespace hintfs

#endif  // HINTFS_HINTS_MANIFEST_H_
