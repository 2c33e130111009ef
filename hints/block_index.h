// BlockIndex: the data blocks of a sealed LevelDB or RocksDB table file, each
// with the bytes it occupies and the user keys it may hold. It is what
// block-granular tiering works from: a read of a table maps to a block and a
// key range, and a run of blocks is a byte range that can live on either
// tier. It is built once, when the table is sealed (block_index_keeper.h),
// from the table's own footer and index (table_map.h), and kept durably in
// the encoding below, so that nobody reads a table back to learn it.
//
// Encoding (docs/formats.md, "Block index"): magic "HFBI", a version byte,
// flags, the file size, the first key, then per block its offset (as the gap
// after the previous block), size and last key (prefix-compressed against
// the previous one), and a CRC32C of everything before it.
#ifndef HINTFS_HINTS_BLOCK_INDEX_H_
#define HINTFS_HINTS_BLOCK_INDEX_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fs/status.h"
#include "hints/table_map.h"

namespace hintfs {

struct IndexedBlock {
  uint64_t offset = 0;
  uint64_t size = 0;     // with the block's 5-byte trailer: the bytes a read of it covers
  std::string last_key;  // a user key >= every key in the block (the table index's separator)
};

struct BlockIndex {
  static constexpr uint8_t kVersion = 1;

  uint64_t file_size = 0;
  bool rocksdb = false;        // else LevelDB
  std::string first_key;       // the table's smallest user key
  std::vector<IndexedBlock> blocks;  // in file order, not overlapping

  // The block whose bytes include offset, or -1 (the index, filter, footer).
  int64_t BlockAt(uint64_t offset) const;
  // The smallest user key block i may hold: the table's first key for block
  // 0, else the previous block's last key (the block's keys are above it).
  const std::string& LowerBound(size_t i) const { return i == 0 ? first_key : blocks[i - 1].last_key; }
  // Bytes of all data blocks (trailers included).
  uint64_t DataBytes() const;
};

// The index of the table map describes (separators become user keys).
BlockIndex BlockIndexFromTableMap(const TableMap& map);

std::string EncodeBlockIndex(const BlockIndex& index);
// Corruption for anything that is not a whole, checksummed index whose blocks
// lie in order inside the file; NotSupported for a later version.
Status DecodeBlockIndex(std::string_view data, BlockIndex* index);

}  // namespace hintfs

#endif  // HINTFS_HINTS_BLOCK_INDEX_H_
