#include "fs/crc32c.h"

#include <isa-l/crc.h>

#include <climits>

namespace hintfs {
namespace crc32c {

uint32_t Extend(uint32_t crc, const void* data, size_t n) {
  // ISA-L takes and returns the register value without the final inversion.
  uint32_t reg = ~crc;
  auto* p = static_cast<unsigned char*>(const_cast<void*>(data));
  while (n > 0) {
    int chunk = n > static_cast<size_t>(INT_MAX / 2) ? INT_MAX / 2 : static_cast<int>(n);
    reg = crc32_iscsi(p, chunk, reg);
    p += chunk;
    n -= static_cast<size_t>(chunk);
  }
  return ~reg;
}

}  // namespace crc32c
}  // namespace hintfs
