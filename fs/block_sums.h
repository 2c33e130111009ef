// Block checksums of data zones. Every block written to a data zone has a
// CRC32C that reads, fsck --deep, GC and migration check (a block that fails
// is an I/O error, never data). While a zone is being written its checksums
// live in the journal (MetadataOp kBlockSums); when it fills, or is finished
// early, they are written after its last data block as the zone's trailer
// (kZoneSealedTable says where, and the CRC of the table), and the next
// journal snapshot drops them. Each
// data zone keeps TrailerBlocks() blocks free at its end for that.
//
// Trailer, at a block boundary: magic "HZSUMS01" (8), version (4, = 1),
// block count n (4), device index (4), zone (4), CRC32C of the table (4),
// CRC32C of bytes [0, 28) (4); then the n checksums (4 each); zero padding
// to the block size.
#ifndef HINTFS_FS_BLOCK_SUMS_H_
#define HINTFS_FS_BLOCK_SUMS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fs/status.h"

namespace hintfs {

// Blocks kept at the end of a data zone of zone_capacity bytes for its trailer.
uint32_t TrailerBlocks(uint64_t zone_capacity, uint32_t block_size);

// The trailer of zone of device, whose blocks have crcs, padded to blocks.
std::string EncodeTrailer(uint32_t device, uint32_t zone, const std::vector<uint32_t>& crcs,
                          uint32_t block_size);

// Parses a trailer read from zone of device; Corruption if it is damaged or
// belongs elsewhere.
Status DecodeTrailer(std::string_view bytes, uint32_t device, uint32_t zone, std::vector<uint32_t>* crcs);

// The CRC32C of a checksum table as a trailer stores it: what the journal
// records of a sealed zone (MetadataOp kZoneSealedTable), so a trailer from
// another copy of the member is told apart from the one the journal wrote.
uint32_t ChecksumTableCrc(const std::vector<uint32_t>& crcs);

// The checksum of each whole block of data (n a multiple of block_size).
void BlockChecksums(const char* data, size_t n, uint32_t block_size, std::vector<uint32_t>* crcs);

}  // namespace hintfs

#endif  // HINTFS_FS_BLOCK_SUMS_H_
