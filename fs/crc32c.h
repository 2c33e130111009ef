// CRC32C (Castagnoli), the checksum of every hintfs on-disk structure.
// Computed by ISA-L's crc32_iscsi, which picks the fastest instruction set at
// run time. Value(data, n) equals the standard CRC32C (0xE3069283 for
// "123456789").
#ifndef HINTFS_FS_CRC32C_H_
#define HINTFS_FS_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace hintfs {
namespace crc32c {

// Continues a CRC computed over earlier bytes; Extend(0, ...) starts one.
uint32_t Extend(uint32_t crc, const void* data, size_t n);

inline uint32_t Value(const void* data, size_t n) { return Extend(0, data, n); }

}  // namespace crc32c
}  // namespace hintfs

#endif  // HINTFS_FS_CRC32C_H_
