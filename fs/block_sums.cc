#include "fs/block_sums.h"

#include <cstring>

#include <fmt/format.h>

#include "fs/coding.h"
#include "fs/crc32c.h"

namespace hintfs {

namespace {
constexpr char kMagic[8] = {'H', 'Z', 'S', 'U', 'M', 'S', '0', '1'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeader = 32;
}  // namespace

uint32_t TrailerBlocks(uint64_t zone_capacity, uint32_t block_size) {
  uint64_t blocks = zone_capacity / block_size;
  return static_cast<uint32_t>((kHeader + 4 * blocks + block_size - 1) / block_size);
}

uint32_t ChecksumTableCrc(const std::vector<uint32_t>& crcs) {
  std::string table;
  for (uint32_t c : crcs) PutFixed32(&table, c);
  return crc32c::Value(table.data(), table.size());
}

std::string EncodeTrailer(uint32_t device, uint32_t zone, const std::vector<uint32_t>& crcs,
                          uint32_t block_size) {
  std::string table;
  for (uint32_t c : crcs) PutFixed32(&table, c);
  std::string t(kMagic, sizeof(kMagic));
  PutFixed32(&t, kVersion);
  PutFixed32(&t, static_cast<uint32_t>(crcs.size()));
  PutFixed32(&t, device);
  PutFixed32(&t, zone);
  PutFixed32(&t, ChecksumTableCrc(crcs));
  PutFixed32(&t, crc32c::Value(t.data(), t.size()));
  t += table;
  t.resize((t.size() + block_size - 1) / block_size * block_size, '\0');
  return t;
}

Status DecodeTrailer(std::string_view bytes, uint32_t device, uint32_t zone, std::vector<uint32_t>* crcs) {
  auto bad = [&](const std::string& why) {
    return Status::Corruption(fmt::format("block checksum trailer of zone {} on device {}: {}", zone, device, why));
  };
  if (bytes.size() < kHeader || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) return bad("bad magic");
  if (DecodeFixed32(bytes.data() + 28) != crc32c::Value(bytes.data(), 28)) return bad("header checksum mismatch");
  if (DecodeFixed32(bytes.data() + 8) != kVersion) return bad("unknown version");
  uint32_t n = DecodeFixed32(bytes.data() + 12);
  if (DecodeFixed32(bytes.data() + 16) != device || DecodeFixed32(bytes.data() + 20) != zone) {
    return bad("it names another zone");
  }
  if (n > (bytes.size() - kHeader) / 4) return bad("table longer than the trailer");
  const char* table = bytes.data() + kHeader;
  if (DecodeFixed32(bytes.data() + 24) != crc32c::Value(table, 4 * size_t{n})) return bad("table checksum mismatch");
  crcs->resize(n);
  for (uint32_t i = 0; i < n; i++) (*crcs)[i] = DecodeFixed32(table + 4 * size_t{i});
  return Status::OK();
}

void BlockChecksums(const char* data, size_t n, uint32_t block_size, std::vector<uint32_t>* crcs) {
  for (size_t off = 0; off + block_size <= n; off += block_size) crcs->push_back(crc32c::Value(data + off, block_size));
}

}  // namespace hintfs
