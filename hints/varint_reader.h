// VarintReader: reads the varint-encoded fields LevelDB and RocksDB use in
// their MANIFESTs and tables (LEB128: 7 bits a byte, low bits first) from a
// buffer, refusing to run past its end.
#ifndef HINTFS_HINTS_VARINT_READER_H_
#define HINTFS_HINTS_VARINT_READER_H_

#include <cstdint>
#include <string_view>

namespace hintfs {

class VarintReader {
 public:
  explicit VarintReader(std::string_view d) : d_(d) {}

  bool Varint64(uint64_t* v) {
    uint64_t result = 0;
    for (int shift = 0; shift <= 63 && !d_.empty(); shift += 7) {
      uint8_t byte = static_cast<uint8_t>(d_[0]);
      d_.remove_prefix(1);
      result |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) {
        *v = result;
        return true;
      }
    }
    return false;
  }
  bool Varint32(uint32_t* v) {
    uint64_t x;
    if (!Varint64(&x) || x > UINT32_MAX) return false;
    *v = static_cast<uint32_t>(x);
    return true;
  }
  // Zigzag-encoded signed varint (RocksDB's varsignedint64).
  bool VarSigned64(int64_t* v) {
    uint64_t x;
    if (!Varint64(&x)) return false;
    *v = static_cast<int64_t>(x >> 1) ^ -static_cast<int64_t>(x & 1);
    return true;
  }
  // A varint32 length and that many bytes.
  bool Slice(std::string_view* s) {
    uint32_t len;
    if (!Varint32(&len) || len > d_.size()) return false;
    *s = d_.substr(0, len);
    d_.remove_prefix(len);
    return true;
  }
  bool Bytes(size_t n, std::string_view* s) {
    if (n > d_.size()) return false;
    *s = d_.substr(0, n);
    d_.remove_prefix(n);
    return true;
  }
  bool empty() const { return d_.empty(); }
  size_t remaining() const { return d_.size(); }

 private:
  std::string_view d_;
};

}  // namespace hintfs

#endif  // HINTFS_HINTS_VARINT_READER_H_
