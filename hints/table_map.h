// TableMap: where the data blocks of a LevelDB or RocksDB block-based table
// file are, read from its footer, metaindex, properties and index block, so
// that block-granular caching can tell a data block read from a read of the
// index or filter, and name the block.
//
// Supported: LevelDB tables and RocksDB block-based tables of format
// versions 0-5 (RocksDB 7.x writes 5) with a binary-search index, blocks
// uncompressed or Snappy-compressed, index values plain or delta-encoded.
// Anything else (partitioned or hash indexes, other compressions, format 6+)
// is NotSupported; damaged input is Corruption. Parsing never trusts a length
// or offset it read: every one is checked against the file and the block.
#ifndef HINTFS_HINTS_TABLE_MAP_H_
#define HINTFS_HINTS_TABLE_MAP_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "fs/status.h"

namespace hintfs {

struct TableBlockHandle {
  uint64_t offset = 0;
  uint64_t size = 0;  // without the 5-byte trailer (compression type, checksum)
};

struct TableMap {
  static constexpr uint64_t kBlockTrailer = 5;

  bool rocksdb = false;         // else LevelDB (legacy magic, no checksum type)
  uint32_t format_version = 0;  // 0 for LevelDB
  uint64_t file_size = 0;
  TableBlockHandle metaindex, index;
  // Data blocks in file order, and for each the index's separator key (a key
  // >= the block's last key and < the next block's first, as stored).
  std::vector<TableBlockHandle> data_blocks;
  std::vector<std::string> separators;
  // User keys (internal keys without their 8-byte sequence/type tag).
  std::string first_key, last_key;
  uint64_t entries = 0;          // key/value pairs in the data blocks
  bool compressed = false;       // any data block compressed
  // RocksDB format 3+ may store user keys as separators; otherwise they are
  // internal keys (the user key and an 8-byte sequence/type tag).
  bool separators_are_user_keys = false;

  // The data block whose bytes start at offset, or -1.
  int64_t FindBlock(uint64_t offset) const;
  // The one data block a read of n bytes at offset is of, or -1: the block
  // (with its trailer) read exactly, or read by direct I/O, which rounds the
  // read out to whole pages of page bytes (RocksDB's use_direct_reads: the
  // block starts in the read's first page and ends in its last; a read of
  // small blocks may cover others too).
  int64_t BlockReadBy(uint64_t offset, uint64_t n, uint64_t page) const;
};

// Reads n bytes at offset of the table file into *out (exactly n, or an error).
using TableReadFn = std::function<Status(uint64_t offset, size_t n, std::string* out)>;

// Reads from a whole table file held in memory, which must outlive the
// function; a read past its end is Corruption.
TableReadFn ReadTableBytes(const std::string& bytes);

// Builds the map of the table file of file_size bytes. Reads the footer, the
// metaindex, properties and index blocks, and the first and last data blocks
// (for the key range); verifies the CRC32C of every block it reads.
Status ParseTable(uint64_t file_size, const TableReadFn& read, TableMap* map);

// Calls fn(block, user_key) for every key in every data block of the table
// map describes (block indexes map.data_blocks), in file order: what a
// placement oracle needs to know which block a read of a key lands on. Reads
// every data block, verifying each as ParseTable does; errors are read's,
// Corruption for a damaged block, NotSupported for an unknown compression,
// or the first error fn returns (which stops the walk).
using TableKeyFn = std::function<Status(size_t block, std::string_view user_key)>;
Status ForEachTableKey(const TableMap& map, const TableReadFn& read, const TableKeyFn& fn);

// The first entry of a table's first data block, read from the table's
// first bytes as they are written, before the rest of the file exists: its
// user key and the sequence number of its internal key. A flush's table holds
// only keys newer than every table before it; a compaction's output only
// keys its inputs held, so the number tells them apart (hints/
// level_inference.h).
struct FirstTableKey {
  std::string user_key;
  uint64_t sequence = 0;
};

// Reads the first entry from head, the first bytes of a LevelDB or RocksDB
// block-based table, its first block uncompressed or Snappy-compressed (the
// stores' default). False when head is too short to hold it, the block is
// compressed otherwise, or what is there is no well-formed first entry (a
// key shared with nothing, an 8-byte tag with a known value type): the
// caller then knows nothing, never a wrong number.
bool ReadFirstTableKey(std::string_view head, FirstTableKey* key);

// How many leading bytes keys a and b share: how narrow the range between
// them is, and what a block index's delta encoding leaves out.
size_t SharedPrefixLength(std::string_view a, std::string_view b);

}  // namespace hintfs

#endif  // HINTFS_HINTS_TABLE_MAP_H_
