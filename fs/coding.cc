#include "fs/coding.h"

namespace hintfs {

void EncodeFixed32(char* p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

void EncodeFixed64(char* p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

void PutVarint64(std::string* dst, uint64_t v) {
  while (v >= 0x80) {
    dst->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  dst->push_back(static_cast<char>(v));
}

uint32_t DecodeFixed32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v |= static_cast<uint32_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}

uint64_t DecodeFixed64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= static_cast<uint64_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}

void PutFixed16(std::string* dst, uint16_t v) {
  dst->push_back(static_cast<char>(v & 0xff));
  dst->push_back(static_cast<char>(v >> 8));
}

void PutFixed32(std::string* dst, uint32_t v) {
  char buf[4];
  EncodeFixed32(buf, v);
  dst->append(buf, 4);
}

void PutFixed64(std::string* dst, uint64_t v) {
  char buf[8];
  EncodeFixed64(buf, v);
  dst->append(buf, 8);
}

void PutLengthPrefixed(std::string* dst, std::string_view s) {
  PutFixed32(dst, static_cast<uint32_t>(s.size()));
  dst->append(s.data(), s.size());
}

bool Decoder::Fail() {
  ok_ = false;
  data_ = {};
  return false;
}

bool Decoder::GetFixed16(uint16_t* v) {
  if (!ok_ || data_.size() < 2) return Fail();
  *v = static_cast<uint16_t>(static_cast<uint8_t>(data_[0]) |
                             (static_cast<uint8_t>(data_[1]) << 8));
  data_.remove_prefix(2);
  return true;
}

bool Decoder::GetFixed32(uint32_t* v) {
  if (!ok_ || data_.size() < 4) return Fail();
  *v = DecodeFixed32(data_.data());
  data_.remove_prefix(4);
  return true;
}

bool Decoder::GetFixed64(uint64_t* v) {
  if (!ok_ || data_.size() < 8) return Fail();
  *v = DecodeFixed64(data_.data());
  data_.remove_prefix(8);
  return true;
}

bool Decoder::GetVarint64(uint64_t* v) {
  if (!ok_) return false;
  uint64_t value = 0;
  for (size_t i = 0; i < 10 && i < data_.size(); i++) {
    const uint64_t byte = static_cast<uint8_t>(data_[i]);
    if (i == 9 && byte > 1) return Fail();  // past 64 bits
    value |= (byte & 0x7f) << (7 * i);
    if (byte < 0x80) {
      *v = value;
      data_.remove_prefix(i + 1);
      return true;
    }
  }
  return Fail();
}

bool Decoder::GetVarint32(uint32_t* v) {
  uint64_t wide = 0;
  if (!GetVarint64(&wide)) return false;
  if (wide > UINT32_MAX) return Fail();
  *v = static_cast<uint32_t>(wide);
  return true;
}

bool Decoder::GetBytes(size_t n, std::string_view* out) {
  if (!ok_ || data_.size() < n) return Fail();
  *out = data_.substr(0, n);
  data_.remove_prefix(n);
  return true;
}

bool Decoder::GetLengthPrefixed(std::string* s, size_t max_len) {
  uint32_t len = 0;
  if (!GetFixed32(&len)) return false;
  if (len > max_len) return Fail();
  std::string_view bytes;
  if (!GetBytes(len, &bytes)) return false;
  s->assign(bytes.data(), bytes.size());
  return true;
}

Status Decoder::status() const {
  if (ok_) return Status::OK();
  return Status::Corruption(std::string("truncated or malformed ") + what_);
}

}  // namespace hintfs
