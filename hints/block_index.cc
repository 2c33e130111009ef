#include "hints/block_index.h"

#include <algorithm>

#include <fmt/format.h>

#include "fs/coding.h"
#include "fs/crc32c.h"
#include "hints/varint_reader.h"

namespace hintfs {

namespace {

constexpr uint32_t kMagic = 0x49424648;  // "HFBI" little-endian
constexpr uint8_t kRocksDbFlag = 1;
constexpr size_t kMaxKey = 64 << 10;     // longer keys are damage
constexpr uint64_t kMinBlock = TableMap::kBlockTrailer + 1;

Status Bad(const std::string& what) { return Status::Corruption("block index: " + what); }

std::string UserKey(const std::string& key, bool is_user_key) {
  if (is_user_key || key.size() < 8) return key;
  return key.substr(0, key.size() - 8);
}

}  // namespace

int64_t BlockIndex::BlockAt(uint64_t offset) const {
  // Every read of a table asks this. A table's data blocks are about one
  // size, so offset's place in the file is a close guess of its block; the
  // search widens from there in doubling steps before it halves. A binary
  // search from the whole list missed the cache at each of a dozen steps
  // (a twentieth of a hotspot read phase's CPU, docs/benchmarks.md).
  const size_t n = blocks.size();
  if (n == 0 || offset < blocks[0].offset) return -1;
  const uint64_t span = blocks[n - 1].offset - blocks[0].offset;
  size_t guess = span == 0 ? 0 : static_cast<size_t>(static_cast<double>(offset - blocks[0].offset) /
                                                      static_cast<double>(span) * static_cast<double>(n - 1));
  guess = std::min(guess, n - 1);
  // [lo, hi): the answer is the last block at or before offset, in there.
  size_t lo = 0, hi = n;
  if (blocks[guess].offset <= offset) {
    lo = guess;
    for (size_t step = 1; lo + step < n; step *= 2) {
      if (blocks[lo + step].offset > offset) {
        hi = lo + step;
        break;
      }
      lo += step;
    }
  } else {
    hi = guess;
    for (size_t step = 1; step <= hi; step *= 2) {
      if (blocks[hi - step].offset <= offset) {
        lo = hi - step;
        break;
      }
      hi -= step;
    }
  }
  auto it = std::upper_bound(blocks.begin() + static_cast<long>(lo), blocks.begin() + static_cast<long>(hi), offset,
                             [](uint64_t off, const IndexedBlock& b) { return off < b.offset; });
  --it;  // blocks[lo].offset <= offset, so it is past lo
  if (offset >= it->offset + it->size) return -1;
  return it - blocks.begin();
}

uint64_t BlockIndex::DataBytes() const {
  uint64_t n = 0;
  for (const IndexedBlock& b : blocks) n += b.size;
  return n;
}

BlockIndex BlockIndexFromTableMap(const TableMap& map) {
  BlockIndex index;
  index.file_size = map.file_size;
  index.rocksdb = map.rocksdb;
  index.first_key = map.first_key;
  index.blocks.reserve(map.data_blocks.size());
  for (size_t i = 0; i < map.data_blocks.size(); i++) {
    IndexedBlock b;
    b.offset = map.data_blocks[i].offset;
    b.size = map.data_blocks[i].size + TableMap::kBlockTrailer;
    b.last_key = UserKey(map.separators[i], map.separators_are_user_keys);
    index.blocks.push_back(std::move(b));
  }
  return index;
}

std::string EncodeBlockIndex(const BlockIndex& index) {
  std::string out;
  PutFixed32(&out, kMagic);
  out.push_back(static_cast<char>(BlockIndex::kVersion));
  out.push_back(static_cast<char>(index.rocksdb ? kRocksDbFlag : 0));
  PutVarint64(&out, index.file_size);
  PutVarint64(&out, index.blocks.size());
  PutVarint64(&out, index.first_key.size());
  out.append(index.first_key);
  uint64_t end = 0;
  std::string_view prev;
  for (const IndexedBlock& b : index.blocks) {
    PutVarint64(&out, b.offset - end);
    PutVarint64(&out, b.size);
    size_t shared = SharedPrefixLength(prev, b.last_key);
    PutVarint64(&out, shared);
    PutVarint64(&out, b.last_key.size() - shared);
    out.append(b.last_key, shared, std::string::npos);
    end = b.offset + b.size;
    prev = b.last_key;
  }
  PutFixed32(&out, crc32c::Value(out.data(), out.size()));
  return out;
}

Status DecodeBlockIndex(std::string_view data, BlockIndex* index) {
  *index = BlockIndex();
  if (data.size() < 10) return Bad(fmt::format("{} bytes is too short", data.size()));
  if (DecodeFixed32(data.data()) != kMagic) return Bad("bad magic");
  size_t body = data.size() - 4;
  if (crc32c::Value(data.data(), body) != DecodeFixed32(data.data() + body)) return Bad("checksum mismatch");
  uint8_t version = static_cast<uint8_t>(data[4]);
  if (version != BlockIndex::kVersion) return Status::NotSupported(fmt::format("block index version {}", version));
  uint8_t flags = static_cast<uint8_t>(data[5]);
  if ((flags & ~kRocksDbFlag) != 0) return Bad(fmt::format("unknown flags {:#x}", flags));
  BlockIndex result;
  result.rocksdb = (flags & kRocksDbFlag) != 0;
  VarintReader in(data.substr(6, body - 6));
  uint64_t count = 0, key_len = 0;
  std::string_view first;
  if (!in.Varint64(&result.file_size) || !in.Varint64(&count) || !in.Varint64(&key_len) || key_len > kMaxKey ||
      !in.Bytes(static_cast<size_t>(key_len), &first)) {
    return Bad("header");
  }
  if (count > result.file_size / kMinBlock) return Bad(fmt::format("{} blocks in {} bytes", count, result.file_size));
  result.first_key.assign(first);
  result.blocks.resize(static_cast<size_t>(count));
  uint64_t end = 0;
  for (uint64_t i = 0; i < count; i++) {
    IndexedBlock& b = result.blocks[static_cast<size_t>(i)];
    uint64_t gap = 0, shared = 0, unshared = 0;
    std::string_view suffix;
    if (!in.Varint64(&gap) || !in.Varint64(&b.size) || !in.Varint64(&shared) || !in.Varint64(&unshared)) {
      return Bad(fmt::format("block {}", i));
    }
    static const std::string kNone;
    const std::string& prev = i == 0 ? kNone : result.blocks[static_cast<size_t>(i - 1)].last_key;
    if (shared > prev.size() || unshared > kMaxKey || !in.Bytes(static_cast<size_t>(unshared), &suffix)) {
      return Bad(fmt::format("key of block {}", i));
    }
    if (gap > result.file_size - end || b.size < kMinBlock || b.size > result.file_size - end - gap) {
      return Bad(fmt::format("block {} lies outside the file", i));
    }
    b.offset = end + gap;
    end = b.offset + b.size;
    b.last_key.reserve(static_cast<size_t>(shared + unshared));
    b.last_key.assign(prev, 0, static_cast<size_t>(shared));
    b.last_key.append(suffix);
  }
  if (!in.empty()) return Bad("trailing bytes");
  *index = std::move(result);
  return Status::OK();
}

}  // namespace hintfs
