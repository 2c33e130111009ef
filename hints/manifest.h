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
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

// Hints the edits imply: a table-file hint for every new file (with its level
// and "flush" or "compaction"), a file-deleted hint for every deleted one.
// Table paths are dir + "/" + six-digit number + ext.
std::vector<Hint> HintsFromEdit(const VersionEdit& edit, const std::string& dir, const std::string& ext);

}  // namespace hintfs

#endif  // HINTFS_HINTS_MANIFEST_H_
