#include "hints/manifest.h"

#include <algorithm>
#include <cstdio>

#include "fs/coding.h"
#include "fs/crc32c.h"
#include "fs/walk.h"
#include "hints/file_kind.h"
#include "hints/varint_reader.h"

namespace hintfs {

namespace {

constexpr size_t kBlockSize = 32768;
constexpr size_t kHeaderSize = 7;
enum RecordType : uint8_t { kZero = 0, kFull = 1, kFirst = 2, kMiddle = 3, kLast = 4 };

uint32_t Unmask(uint32_t masked) {
  uint32_t rot = masked - 0xa282ead8u;
  return (rot >> 17) | (rot << 15);
}

// Version edit tags, LevelDB's and RocksDB's.
enum Tag : uint32_t {
  kComparator = 1,
  kLogNumber = 2,
  kNextFileNumber = 3,
  kLastSequence = 4,
  kCompactPointer = 5,
  kDeletedFile = 6,
  kNewFile = 7,
  kPrevLogNumber = 9,
  kMinLogNumberToKeep = 10,
  kNewFile2 = 100,
  kNewFile3 = 102,
  kNewFile4 = 103,
  kColumnFamily = 200,
  kColumnFamilyAdd = 201,
  kColumnFamilyDrop = 202,
  kMaxColumnFamily = 203,
  kInAtomicGroup = 300,
  kBlobFileAddition = 400,
  kBlobFileGarbage = 401,
  kTagSafeIgnoreMask = 1 << 13,
};
constexpr uint32_t kNewFile4Terminate = 1;

// The MANIFEST's fields, and its levels (bounded so nonsense is refused).
class Input : public VarintReader {
 public:
  using VarintReader::VarintReader;
  bool Level(int* level) {
    uint32_t v;
    if (!Varint32(&v) || v > 1000) return false;
    *level = static_cast<int>(v);
    return true;
  }
};

}  // namespace

bool VersionEdit::IsFlush() const {
  if (new_files.empty() || !deleted_files.empty()) return false;
  // A flush retires the log its memtable came from; LevelDB may place the
  // table below L0 when nothing overlaps it.
  if (log_number.has_value()) return true;
  for (const auto& f : new_files) {
    if (f.level != 0) return false;
  }
  return true;
}

bool VersionEdit::IsCompaction() const { return !deleted_files.empty() && !new_files.empty(); }

Status DecodeVersionEdit(std::string_view data, VersionEdit* edit) {
  *edit = VersionEdit();
  Input in(data);
  auto bad = [](const std::string& what) { return Status::Corruption("version edit: " + what); };
  while (!in.empty()) {
    uint32_t tag;
    if (!in.Varint32(&tag)) return bad("truncated tag");
    uint64_t u64;
    uint32_t u32;
    std::string_view s;
    int level;
    switch (tag) {
      case kComparator:
        if (!in.Slice(&s)) return bad("comparator");
        edit->comparator = std::string(s);
        break;
      case kLogNumber:
        if (!in.Varint64(&u64)) return bad("log number");
        edit->log_number = u64;
        break;
      case kPrevLogNumber:
        if (!in.Varint64(&u64)) return bad("previous log number");
        edit->prev_log_number = u64;
        break;
      case kNextFileNumber:
        if (!in.Varint64(&u64)) return bad("next file number");
        edit->next_file_number = u64;
        break;
      case kLastSequence:
        if (!in.Varint64(&u64)) return bad("last sequence");
        edit->last_sequence = u64;
        break;
      case kMinLogNumberToKeep:
        if (!in.Varint64(&u64)) return bad("min log number");
        break;
      case kCompactPointer:
        if (!in.Level(&level) || !in.Slice(&s)) return bad("compaction pointer");
        break;
      case kDeletedFile:
        if (!in.Level(&level) || !in.Varint64(&u64)) return bad("deleted file");
        edit->deleted_files.emplace_back(level, u64);
        break;
      case kNewFile:
      case kNewFile2:
      case kNewFile3:
      case kNewFile4: {
        ManifestFile f;
        uint64_t smallest_seqno, largest_seqno;
        if (!in.Level(&f.level) || !in.Varint64(&f.number)) return bad("new file");
        if (tag == kNewFile3 && !in.Varint32(&u32)) return bad("new file path id");
        std::string_view smallest, largest;
        if (!in.Varint64(&f.size) || !in.Slice(&smallest) || !in.Slice(&largest)) return bad("new file");
        if (smallest.size() < 8 || largest.size() < 8) return bad("new file key shorter than its trailer");
        f.smallest.assign(smallest.substr(0, smallest.size() - 8));
        f.largest.assign(largest.substr(0, largest.size() - 8));
        if (tag != kNewFile) {
          if (!in.Varint64(&smallest_seqno) || !in.Varint64(&largest_seqno)) return bad("new file sequence numbers");
          f.smallest_seqno = smallest_seqno;
          f.largest_seqno = largest_seqno;
        }
        if (tag == kNewFile4) {
          // Custom fields until the terminator; each is length-prefixed.
          for (;;) {
            if (!in.Varint32(&u32)) return bad("new file custom field");
            if (u32 == kNewFile4Terminate) break;
            if (!in.Slice(&s)) return bad("new file custom field");
          }
        }
        edit->new_files.push_back(f);
        break;
      }
      case kColumnFamily:
        if (!in.Varint32(&edit->column_family)) return bad("column family");
        break;
      case kColumnFamilyAdd:
        if (!in.Slice(&s)) return bad("column family name");
        break;
      case kColumnFamilyDrop:
        break;
      case kMaxColumnFamily:
      case kInAtomicGroup:
        if (!in.Varint32(&u32)) return bad("column family count");
        break;
      case kBlobFileAddition:
      case kBlobFileGarbage:
        if (!in.Slice(&s)) return bad("blob file record");
        break;
      default:
        // Newer, ignorable tags are length-prefixed; anything else is unknown.
        if ((tag & kTagSafeIgnoreMask) == 0) return bad("unknown tag " + std::to_string(tag));
        if (!in.Slice(&s)) return bad("ignorable field");
        break;
    }
  }
  return Status::OK();
}

Status ManifestReader::Corrupt(uint64_t at, const std::string& what) const {
  return Status::Corruption("MANIFEST at byte " + std::to_string(at) + ": " + what);
}

Status ManifestReader::Feed(std::string_view bytes, std::vector<VersionEdit>* edits) {
  buffer_.append(bytes.data(), bytes.size());
  size_t pos = 0;
  Status result;
  while (result.ok()) {
    uint64_t at = consumed_ + pos;
    size_t left_in_block = kBlockSize - at % kBlockSize;
    if (left_in_block < kHeaderSize) {  // trailer: zeros up to the block end
      if (buffer_.size() - pos < left_in_block) break;
      pos += left_in_block;
      continue;
    }
    if (buffer_.size() - pos < kHeaderSize) break;
    const char* h = buffer_.data() + pos;
    uint32_t length = static_cast<uint8_t>(h[4]) | (static_cast<uint8_t>(h[5]) << 8);
    uint8_t type = static_cast<uint8_t>(h[6]);
    if (type == kZero && length == 0) {  // preallocated space: the rest of the block
      if (buffer_.size() - pos < left_in_block) break;
      pos += left_in_block;
      continue;
    }
    if (kHeaderSize + length > left_in_block) {
      result = Corrupt(at, "record length " + std::to_string(length) + " crosses the block end");
      break;
    }
    if (buffer_.size() - pos < kHeaderSize + length) break;  // wait for more bytes
    uint32_t expected = Unmask(DecodeFixed32(h));
    uint32_t actual = crc32c::Extend(crc32c::Value(h + 6, 1), h + kHeaderSize, length);
    if (expected != actual) {
      result = Corrupt(at, "record checksum mismatch");
      break;
    }
    std::string_view payload(h + kHeaderSize, length);
    pos += kHeaderSize + length;
    switch (type) {
      case kFull:
        if (in_fragmented_record_) result = Corrupt(at, "whole record inside a fragmented one");
        else {
          VersionEdit e;
          result = DecodeVersionEdit(payload, &e);
          if (!result.ok()) result = Corrupt(at, result.message());
          else edits->push_back(std::move(e));
        }
        break;
      case kFirst:
        if (in_fragmented_record_) result = Corrupt(at, "first fragment inside a fragmented record");
        fragments_.assign(payload.data(), payload.size());
        in_fragmented_record_ = true;
        record_start_ = at;
        break;
      case kMiddle:
        if (!in_fragmented_record_) result = Corrupt(at, "middle fragment without a first");
        fragments_.append(payload.data(), payload.size());
        break;
      case kLast: {
        if (!in_fragmented_record_) {
          result = Corrupt(at, "last fragment without a first");
          break;
        }
        fragments_.append(payload.data(), payload.size());
        in_fragmented_record_ = false;
        VersionEdit e;
        result = DecodeVersionEdit(fragments_, &e);
        if (!result.ok()) result = Corrupt(record_start_, result.message());
        else edits->push_back(std::move(e));
        fragments_.clear();
        break;
      }
      default:
        result = Corrupt(at, "unknown record type " + std::to_string(type));
    }
  }
  buffer_.erase(0, pos);
  consumed_ += pos;
  return result;
}

Status ManifestReader::Finish() {
  bool only_padding = buffer_.find_first_not_of('\0') == std::string::npos;
  if (in_fragmented_record_ || !only_padding) {
    return Corrupt(consumed_, "file ends inside a record");
  }
  return Status::OK();
}

std::vector<Hint> HintsFromEdit(const VersionEdit& edit, const std::string& dir, const std::string& ext) {
  std::vector<Hint> hints;
  auto path = [&](uint64_t number) {
    char name[32];
    std::snprintf(name, sizeof(name), "%06llu", static_cast<unsigned long long>(number));
    return dir + "/" + name + ext;
  };
  const char* reason = edit.IsFlush() ? "flush" : edit.IsCompaction() ? "compaction" : "other";
  // Deletions first: an inferred compaction the edit commits is scored by
  // its inputs' deletions, and ends at the latest with its outputs' records.
  for (const auto& [level, number] : edit.deleted_files) {
    // A table the edit adds back at another level was moved, not deleted
    // (a trivial move): its output hint below says where it is now.
    bool moved = std::any_of(edit.new_files.begin(), edit.new_files.end(),
                             [&](const ManifestFile& f) { return f.number == number; });
    if (moved) continue;
    Hint h;
    h.kind = Hint::Kind::kFileDeleted;
    h.path = path(number);
    h.level = level;
    hints.push_back(h);
  }
  for (const ManifestFile& f : edit.new_files) {
    Hint h;
    h.kind = Hint::Kind::kCompactionOutput;
    h.path = path(f.number);
    h.level = f.level;
    h.bytes = f.size;
    h.smallest_key = f.smallest;
    h.largest_key = f.largest;
    h.smallest_seqno = f.smallest_seqno;
    h.largest_seqno = f.largest_seqno;
    h.reason = reason;
    hints.push_back(h);
  }
  return hints;
}

bool TableFileNumber(std::string_view path, uint64_t* number) {
  if (!IsTableFile(path)) return false;
  std::string_view name = path.substr(path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1);
  name = name.substr(0, name.find('.'));
  if (name.empty() || name.size() > 19) return false;
  uint64_t n = 0;
  for (char c : name) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  *number = n;
  return true;
}

Status LiveTableLevels(Filesystem* fs, const std::string& dir, std::map<uint64_t, int>* levels) {
  levels->clear();
  std::string current;
  Status s = ReadWholeFile(fs, dir + "/CURRENT", &current);
  if (!s.ok()) return s;
  while (!current.empty() && (current.back() == '\n' || current.back() == '\r')) current.pop_back();
  if (!IsManifestFile(current) || current.find('/') != std::string::npos) {
    return Status::Corruption(dir + "/CURRENT does not name a MANIFEST");
  }
  std::string manifest;
  s = ReadWholeFile(fs, dir + "/" + current, &manifest);
  if (!s.ok()) return s;
  ManifestReader reader;
  std::vector<VersionEdit> edits;
  s = reader.Feed(manifest, &edits);
  if (!s.ok()) return s;
  ApplyEdits(edits, levels);
  return Status::OK();
}

void ApplyEdits(const std::vector<VersionEdit>& edits, std::map<uint64_t, int>* levels) {
  for (const VersionEdit& edit : edits) {
    if (edit.column_family != 0) continue;
    for (const auto& [level, number] : edit.deleted_files) {
      auto it = levels->find(number);
      if (it != levels->end() && it->second == level) levels->erase(it);
    }
    for (const ManifestFile& f : edit.new_files) (*levels)[f.number] = f.level;
  }
}

}  // namespace hintfs
