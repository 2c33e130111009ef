// Little-endian encoding of fixed-width integers and strings, and a Decoder
// that reads them back with bounds checks. Everything hintfs writes to a device
// goes through these, so a truncated or corrupt structure surfaces as a
// Corruption status instead of an out-of-bounds read.
#ifndef HINTFS_FS_CODING_H_
#define HINTFS_FS_CODING_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "fs/status.h"

namespace hintfs {

void PutFixed16(std::string* dst, uint16_t v);
void PutFixed32(std::string* dst, uint32_t v);
void PutFixed64(std::string* dst, uint64_t v);
// A 32-bit length followed by the bytes.
void PutLengthPrefixed(std::string* dst, std::string_view s);
// LEB128: 7 bits a byte, low bits first (as LevelDB and RocksDB encode
// varints; hints/varint_reader.h reads them back).
void PutVarint64(std::string* dst, uint64_t v);

uint32_t DecodeFixed32(const char* p);
uint64_t DecodeFixed64(const char* p);
void EncodeFixed32(char* p, uint32_t v);
void EncodeFixed64(char* p, uint64_t v);

// Reads a buffer front to back. The first failed read sets an error that
// every later read keeps returning, so callers may check once at the end.
class Decoder {
 public:
  Decoder(std::string_view data, const char* what) : data_(data), what_(what) {}

  bool GetFixed16(uint16_t* v);
  bool GetFixed32(uint32_t* v);
  bool GetFixed64(uint64_t* v);
  // PutVarint64's encoding; fails on more than ten bytes or bits past 64.
  bool GetVarint64(uint64_t* v);
  // As GetVarint64, failing on a value over UINT32_MAX.
  bool GetVarint32(uint32_t* v);
  bool GetLengthPrefixed(std::string* s, size_t max_len);
  bool GetBytes(size_t n, std::string_view* out);

  size_t remaining() const { return data_.size(); }
  bool ok() const { return ok_; }
  // Corruption naming the structure being decoded, or OK.
  Status status() const;

 private:
  bool Fail();

  std::string_view data_;
  const char* what_;
  bool ok_ = true;
};

}  // namespace hintfs

#endif  // HINTFS_FS_CODING_H_
