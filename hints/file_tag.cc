#include "hints/file_tag.h"

#include "fs/coding.h"

namespace hintfs {

namespace {
constexpr uint8_t kTagVersion = 1;
constexpr size_t kMaxReason = 64;
}  // namespace

std::string FileClassName(ZoneRole role) {
  if (role == kWalClass) return "wal";
  if (role == kCacheClass) return "cache";
  if (role == kTableClass) return "table";
  if (role == kMovedBlocksClass) return "blocks";
  return ZoneRoleName(role);
}

std::string EncodeFileTag(const FileTag& tag) {
  std::string out(1, static_cast<char>(kTagVersion));
  PutFixed32(&out, static_cast<uint32_t>(tag.level));
  PutFixed64(&out, tag.job);
  PutLengthPrefixed(&out, tag.reason.substr(0, kMaxReason));
  return out;
}

Status DecodeFileTag(const std::string& bytes, FileTag* tag) {
  *tag = FileTag();
  if (bytes.empty()) return Status::OK();
  uint8_t version = static_cast<uint8_t>(bytes[0]);
  if (version > kTagVersion) return Status::Corruption("file tag: unknown version " + std::to_string(version));
  Decoder d(std::string_view(bytes).substr(1), "file tag");
  uint32_t level = 0;
  d.GetFixed32(&level);
  d.GetFixed64(&tag->job);
  d.GetLengthPrefixed(&tag->reason, kMaxReason);
  if (!d.ok()) return d.status();
  if (d.remaining() != 0) return Status::Corruption("file tag: trailing bytes");
  tag->level = static_cast<int32_t>(level);
  return Status::OK();
}

FileTag FileTagOf(const std::string& bytes) {
  FileTag tag;
  if (!DecodeFileTag(bytes, &tag).ok()) return FileTag();
  return tag;
}

}  // namespace hintfs
