#include "hints/table_map.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <snappy.h>

#include "fs/coding.h"
#include "fs/crc32c.h"
#include "hints/varint_reader.h"

namespace hintfs {

namespace {

constexpr uint64_t kLegacyMagic = 0xdb4775248b80fb57ull;  // LevelDB, RocksDB format 0
constexpr uint64_t kBlockBasedMagic = 0x88e241b785f4cff7ull;
constexpr size_t kLegacyFooter = 48;   // handles padded to 40, magic
constexpr size_t kFooter = 53;        // checksum type, handles padded to 40, version, magic
constexpr uint64_t kMaxBlock = 64ull << 20;  // larger "blocks" are damage
constexpr uint8_t kNoCompression = 0;
constexpr uint8_t kSnappyCompression = 1;
constexpr uint8_t kChecksumCrc32c = 1;

Status Bad(const std::string& what) { return Status::Corruption("table: " + what); }

uint32_t UnmaskCrc(uint32_t masked) {
  uint32_t rot = masked - 0xa282ead8u;
  return (rot >> 17) | (rot << 15);
}

bool DecodeHandle(VarintReader* in, TableBlockHandle* h) { return in->Varint64(&h->offset) && in->Varint64(&h->size); }

class Parser {
 public:
  Parser(uint64_t file_size, const TableReadFn& read, TableMap* map) : size_(file_size), read_(read), map_(map) {}

  Status Run() {
    map_->file_size = size_;
    Status s = ReadFooter();
    if (s.ok()) s = ReadProperties();
    if (s.ok()) s = ReadIndex();
    if (s.ok()) s = ReadKeyRange();
    return s;
  }

  // Every user key of every data block of a map Run built from this file.
  Status ForEachKey(const TableKeyFn& fn) {
    Status s = ReadFooter();  // for the checksum type
    for (size_t i = 0; s.ok() && i < map_->data_blocks.size(); i++) {
      std::string block;
      s = ReadBlock(map_->data_blocks[i], "data", &block);
      if (s.ok()) {
        s = ForEachEntry(block, "data", false, [&](const std::string& key, std::string_view, bool, size_t*) {
          if (key.size() < 8) return Bad("data block key shorter than its tag");
          return fn(i, std::string_view(key).substr(0, key.size() - 8));
        });
      }
    }
    return s;
  }

 private:
  Status ReadFooter() {
    if (size_ < kLegacyFooter) return Bad(fmt::format("{} bytes is too short for a footer", size_));
    std::string tail;
    size_t n = static_cast<size_t>(std::min<uint64_t>(size_, kFooter));
    Status s = read_(size_ - n, n, &tail);
    if (!s.ok()) return s;
    if (tail.size() != n) return Bad("short read of the footer");
    uint64_t magic = DecodeFixed64(tail.data() + n - 8);
    std::string_view handles;
    if (magic == kLegacyMagic) {
      handles = std::string_view(tail).substr(n - kLegacyFooter, 40);
      map_->rocksdb = false;  // LevelDB, or RocksDB format 0 (same layout)
      checksum_type_ = kChecksumCrc32c;
    } else if (magic == kBlockBasedMagic) {
      if (n < kFooter) return Bad("footer too short for its magic");
      map_->rocksdb = true;
      checksum_type_ = static_cast<uint8_t>(tail[0]);
      handles = std::string_view(tail).substr(1, 40);
      map_->format_version = DecodeFixed32(tail.data() + 41);
      if (map_->format_version > 5) {
        return Status::NotSupported(fmt::format("table format version {}", map_->format_version));
      }
    } else {
      return Bad(fmt::format("not a block-based table (magic {:#x})", magic));
    }
    VarintReader in(handles);
    if (!DecodeHandle(&in, &map_->metaindex) || !DecodeHandle(&in, &map_->index)) {
      return Bad("footer handles");
    }
    return Status::OK();
  }

  // Reads a block and its trailer: checks the checksum, undoes compression.
  Status ReadBlock(const TableBlockHandle& h, const char* what, std::string* contents) {
    // Blocks lie before the footer (whose size ReadFooter checked).
    uint64_t end = size_ - (map_->rocksdb ? kFooter : kLegacyFooter);
    if (h.size > kMaxBlock || h.offset > end || h.size + TableMap::kBlockTrailer > end - h.offset) {
      return Bad(fmt::format("{} block at {} of {} bytes lies outside the file", what, h.offset, h.size));
    }
    std::string raw;
    Status s = read_(h.offset, static_cast<size_t>(h.size + TableMap::kBlockTrailer), &raw);
    if (!s.ok()) return s;
    if (raw.size() != h.size + TableMap::kBlockTrailer) return Bad(std::string("short read of the ") + what + " block");
    uint8_t type = static_cast<uint8_t>(raw[h.size]);
    if (checksum_type_ == kChecksumCrc32c) {
      uint32_t want = UnmaskCrc(DecodeFixed32(raw.data() + h.size + 1));
      if (crc32c::Value(raw.data(), h.size + 1) != want) {
        return Bad(fmt::format("{} block at {}: checksum mismatch", what, h.offset));
      }
    }  // other checksum types (xxhash) are the store's to verify
    raw.resize(h.size);
    if (type == kNoCompression) {
      *contents = std::move(raw);
      return Status::OK();
    }
    if (type != kSnappyCompression) {
      return Status::NotSupported(fmt::format("{} block compressed with type {}", what, type));
    }
    size_t out = 0;
    if (!snappy::GetUncompressedLength(raw.data(), raw.size(), &out) || out > kMaxBlock ||
        !snappy::Uncompress(raw.data(), raw.size(), contents)) {
      return Bad(fmt::format("{} block at {}: bad snappy data", what, h.offset));
    }
    return Status::OK();
  }

  // Calls fn(key, value, at_restart) for every entry of a block. With
  // values_delta_encoded (RocksDB index blocks, format 4+), entries have no
  // value length and fn gets the value bytes that follow the key.
  template <typename Fn>
  Status ForEachEntry(const std::string& block, const char* what, bool values_delta_encoded, Fn fn) {
    if (block.size() < 4) return Bad(std::string(what) + " block too short");
    uint32_t restarts = DecodeFixed32(block.data() + block.size() - 4);
    // RocksDB packs the data block index type into the top bit.
    if (map_->rocksdb) restarts &= 0x7fffffffu;
    if (restarts == 0 || restarts > (block.size() - 4) / 4) return Bad(std::string(what) + " block restart count");
    size_t limit = block.size() - 4 - size_t{restarts} * 4;
    std::vector<uint32_t> restart_offsets(restarts);
    for (uint32_t i = 0; i < restarts; i++) {
      restart_offsets[i] = DecodeFixed32(block.data() + limit + size_t{i} * 4);
      if (restart_offsets[i] > limit) return Bad(std::string(what) + " block restart offset");
    }
    std::string key;
    size_t pos = 0;
    size_t next_restart = 0;
    while (pos < limit) {
      bool at_restart = next_restart < restart_offsets.size() && restart_offsets[next_restart] == pos;
      if (at_restart) next_restart++;
      VarintReader in(std::string_view(block).substr(pos, limit - pos));
      uint32_t shared = 0, non_shared = 0, value_len = 0;
      if (!in.Varint32(&shared) || !in.Varint32(&non_shared) ||
          (!values_delta_encoded && !in.Varint32(&value_len))) {
        return Bad(std::string(what) + " block entry header");
      }
      std::string_view delta;
      if (shared > key.size() || !in.Bytes(non_shared, &delta)) return Bad(std::string(what) + " block entry key");
      key.resize(shared);
      key.append(delta);
      std::string_view value;
      if (values_delta_encoded) {
        value = std::string_view(block).substr(limit - in.remaining(), in.remaining());
        size_t used = 0;
        Status s = fn(key, value, at_restart, &used);
        if (!s.ok()) return s;
        pos = limit - in.remaining() + used;
      } else {
        if (!in.Bytes(value_len, &value)) return Bad(std::string(what) + " block entry value");
        size_t used = 0;
        Status s = fn(key, value, at_restart, &used);
        if (!s.ok()) return s;
        pos = limit - in.remaining();
      }
    }
    return Status::OK();
  }

  Status ReadProperties() {
    std::string meta;
    Status s = ReadBlock(map_->metaindex, "metaindex", &meta);
    if (!s.ok()) return s;
    TableBlockHandle props;
    bool have_props = false;
    s = ForEachEntry(meta, "metaindex", false,
                     [&](const std::string& key, std::string_view value, bool, size_t*) {
                       if (key == "rocksdb.properties") {
                         VarintReader in(value);
                         if (!DecodeHandle(&in, &props)) return Bad("properties handle");
                         have_props = true;
                       }
                       return Status::OK();
                     });
    if (!s.ok() || !have_props) return s;
    std::string block;
    s = ReadBlock(props, "properties", &block);
    if (!s.ok()) return s;
    return ForEachEntry(block, "properties", false, [&](const std::string& key, std::string_view value, bool, size_t*) {
      uint64_t v = 0;
      VarintReader in(value);
      if (key == "rocksdb.index.value.is.delta.encoded" && in.Varint64(&v)) delta_encoded_ = v != 0;
      if (key == "rocksdb.index.partitions" && in.Varint64(&v) && v != 0) {
        return Status::NotSupported("partitioned index");
      }
      if (key == "rocksdb.block.based.table.index.type" && value.size() == 4 && DecodeFixed32(value.data()) != 0) {
        return Status::NotSupported(fmt::format("index type {}", DecodeFixed32(value.data())));
      }
      if (key == "rocksdb.num.entries" && in.Varint64(&v)) entries_ = v;
      if (key == "rocksdb.index.key.is.user.key" && in.Varint64(&v)) map_->separators_are_user_keys = v != 0;
      return Status::OK();
    });
  }

  Status ReadIndex() {
    std::string block;
    Status s = ReadBlock(map_->index, "index", &block);
    if (!s.ok()) return s;
    TableBlockHandle prev;
    bool have_prev = false;
    s = ForEachEntry(block, "index", delta_encoded_,
                     [&](const std::string& key, std::string_view value, bool at_restart, size_t* used) {
                       VarintReader in(value);
                       TableBlockHandle h;
                       if (!delta_encoded_ || at_restart || !have_prev) {
                         if (!DecodeHandle(&in, &h)) return Bad("index entry handle");
                       } else {
                         int64_t delta = 0;
                         if (!in.VarSigned64(&delta)) return Bad("index entry size delta");
                         h.offset = prev.offset + prev.size + TableMap::kBlockTrailer;
                         if ((delta < 0 && static_cast<uint64_t>(-delta) > prev.size) ||
                             (delta > 0 && static_cast<uint64_t>(delta) > kMaxBlock)) {
                           return Bad("index entry size delta out of range");
                         }
                         h.size = prev.size + static_cast<uint64_t>(delta);
                       }
                       *used = value.size() - in.remaining();
                       if (h.size > kMaxBlock || h.offset > size_ || h.size + TableMap::kBlockTrailer > size_ - h.offset) {
                         return Bad(fmt::format("data block at {} of {} bytes lies outside the file", h.offset, h.size));
                       }
                       if (have_prev && h.offset < prev.offset + prev.size + TableMap::kBlockTrailer) {
                         return Bad("data blocks overlap or are out of order");
                       }
                       map_->data_blocks.push_back(h);
                       map_->separators.push_back(key);
                       prev = h;
                       have_prev = true;
                       return Status::OK();
                     });
    return s;
  }

  // The first key of the first data block and the last of the last.
  Status ReadKeyRange() {
    map_->entries = entries_;
    if (map_->data_blocks.empty()) return Status::OK();
    for (int end = 0; end < 2; end++) {
      const TableBlockHandle& h = end == 0 ? map_->data_blocks.front() : map_->data_blocks.back();
      std::string block;
      Status s = ReadBlock(h, "data", &block);
      if (!s.ok()) return s;
      std::string first, last;
      bool any = false;
      s = ForEachEntry(block, "data", false, [&](const std::string& key, std::string_view, bool, size_t*) {
        if (!any) first = key;
        last = key;
        any = true;
        return Status::OK();
      });
      if (!s.ok()) return s;
      if (!any) return Bad("empty data block");
      auto user = [](const std::string& k) { return k.size() >= 8 ? k.substr(0, k.size() - 8) : k; };
      (end == 0 ? map_->first_key : map_->last_key) = user(end == 0 ? first : last);
    }
    std::string raw;  // the trailer's compression type of the first data block
    Status s = read_(map_->data_blocks.front().offset + map_->data_blocks.front().size, 1, &raw);
    if (!s.ok()) return s;
    map_->compressed = raw.size() == 1 && raw[0] != 0;
    return Status::OK();
  }

  uint64_t size_;
  const TableReadFn& read_;
  TableMap* map_;
  uint8_t checksum_type_ = kChecksumCrc32c;
  bool delta_encoded_ = false;
  uint64_t entries_ = 0;
};

}  // namespace

int64_t TableMap::FindBlock(uint64_t offset) const {
  auto it = std::lower_bound(data_blocks.begin(), data_blocks.end(), offset,
                             [](const TableBlockHandle& h, uint64_t off) { return h.offset < off; });
  if (it == data_blocks.end() || it->offset != offset) return -1;
  return it - data_blocks.begin();
}

int64_t TableMap::BlockReadBy(uint64_t offset, uint64_t n, uint64_t page) const {
  auto it = std::lower_bound(data_blocks.begin(), data_blocks.end(), offset,
                             [](const TableBlockHandle& h, uint64_t off) { return h.offset < off; });
  auto end_of = [](const TableBlockHandle& h) { return h.offset + h.size + kBlockTrailer; };
  if (it != data_blocks.end() && it->offset == offset && end_of(*it) == offset + n) return it - data_blocks.begin();
  if (page == 0 || offset % page != 0 || n % page != 0 || n == 0) return -1;
  // Small blocks may start in the first page before the one read: the one
  // that also ends in the last page is it.
  for (; it != data_blocks.end() && it->offset < offset + page; ++it) {
    const uint64_t end = end_of(*it);
    if (end <= offset + n && end > offset + n - page) return it - data_blocks.begin();
  }
  return -1;
}

TableReadFn ReadTableBytes(const std::string& bytes) {
  return [&bytes](uint64_t offset, size_t n, std::string* out) {
    if (offset > bytes.size() || n > bytes.size() - offset) return Bad("read past the table's end");
    out->assign(bytes, static_cast<size_t>(offset), n);
    return Status::OK();
  };
}

Status ParseTable(uint64_t file_size, const TableReadFn& read, TableMap* map) {
  *map = TableMap();
  Parser p(file_size, read, map);
  Status s = p.Run();
  if (!s.ok()) *map = TableMap();
  return s;
}

Status ForEachTableKey(const TableMap& map, const TableReadFn& read, const TableKeyFn& fn) {
  TableMap copy = map;  // ReadFooter rewrites what it reads
  Parser p(map.file_size, read, &copy);
  return p.ForEachKey(fn);
}

namespace {

// The first entry of an uncompressed data block.
bool ReadFirstEntry(std::string_view block, FirstTableKey* key) {
  // The largest value type RocksDB 7-8 writes into data blocks
  // (kTypeValuePreferredSeqno); LevelDB's are 0 and 1.
  constexpr uint8_t kLargestValueType = 0x18;
  VarintReader in(block);
  uint32_t shared = 0, non_shared = 0, value_len = 0;
  std::string_view internal_key;
  if (!in.Varint32(&shared) || !in.Varint32(&non_shared) || !in.Varint32(&value_len)) return false;
  if (shared != 0 || non_shared < 8 || !in.Bytes(non_shared, &internal_key)) return false;
  uint64_t tag = DecodeFixed64(internal_key.data() + internal_key.size() - 8);
  if ((tag & 0xff) > kLargestValueType) return false;
  key->user_key.assign(internal_key.substr(0, internal_key.size() - 8));
  key->sequence = tag >> 8;
  return true;
}

// Decodes up to limit bytes from the start of a block in Snappy's raw
// format (a varint length, then literals and copies of earlier output), all
// head holds of it. Only the prefix is there, so snappy::RawUncompress,
// which wants the whole block, cannot do it. False if head does not start
// like a Snappy block (the first element is always a literal).
bool SnappyPrefix(std::string_view head, size_t limit, std::string* out) {
  constexpr uint64_t kLargestBlock = 64 << 20;
  VarintReader in(head);
  uint64_t length = 0;
  if (!in.Varint64(&length) || length == 0 || length > kLargestBlock) return false;
  head.remove_prefix(head.size() - in.remaining());
  limit = std::min<size_t>(limit, length);
  out->clear();
  auto little_endian = [&](size_t n, uint64_t* v) {
    if (head.size() < n) return false;
    *v = 0;
    for (size_t i = 0; i < n; i++) *v |= uint64_t{static_cast<uint8_t>(head[i])} << (8 * i);
    head.remove_prefix(n);
    return true;
  };
  while (out->size() < limit && !head.empty()) {
    const uint8_t tag = static_cast<uint8_t>(head[0]);
    head.remove_prefix(1);
    uint64_t n = 0, offset = 0;
    if ((tag & 3) == 0) {  // a literal: its length - 1 in the tag, or in the 1-4 bytes after it
      const uint64_t t = tag >> 2;
      if (t < 60) {
        n = t + 1;
      } else {
        if (!little_endian(t - 59, &n)) return false;
        n += 1;
      }
      size_t take = std::min<size_t>(n, head.size());
      out->append(head.substr(0, take));
      head.remove_prefix(take);
      continue;
    }
    if (out->empty()) return false;
    if ((tag & 3) == 1) {  // copies: a length and an offset back into the output
      n = 4 + ((tag >> 2) & 7);
      if (!little_endian(1, &offset)) return false;
      offset |= static_cast<uint64_t>(tag >> 5) << 8;
    } else {
      n = (tag >> 2) + 1;
      if (!little_endian((tag & 3) == 2 ? 2 : 4, &offset)) return false;
    }
    if (offset == 0 || offset > out->size()) return false;
    for (uint64_t k = 0; k < n && out->size() < limit; k++) out->push_back((*out)[out->size() - offset]);
  }
  return true;
}

}  // namespace

bool ReadFirstTableKey(std::string_view head, FirstTableKey* key) {
  // An uncompressed block starts with its first entry's 0 shared bytes; a
  // Snappy one with its nonzero length, so neither passes for the other.
  constexpr size_t kEntryBytes = 4096;  // more than a first entry's key
  if (ReadFirstEntry(head, key)) return true;
  std::string block;
  return SnappyPrefix(head, kEntryBytes, &block) && ReadFirstEntry(block, key);
}

size_t SharedPrefixLength(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  return static_cast<size_t>(std::mismatch(a.begin(), a.begin() + n, b.begin()).first - a.begin());
}

}  // namespace hintfs
