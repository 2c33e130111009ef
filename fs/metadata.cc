#include "fs/metadata.h"

#include <algorithm>

#include <fmt/format.h>

#include "fs/coding.h"

namespace hintfs {

namespace {
// Wire codes of kSetExtents and kReplaceExtents as written since journal
// batch version 3: the same fields, integers as varints, so that an extent
// takes about 10 bytes, not 24 (block-granular tiering splits a table's
// extents per block moved, and a snapshot must fit one metadata zone).
// Codes 5 and 18 are still read.
constexpr uint8_t kCompactSetExtents = 19;
constexpr uint8_t kCompactReplaceExtents = 20;
constexpr size_t kMaxName = 255;
constexpr uint32_t kMaxExtentsPerOp = 1u << 24;
}  // namespace

std::string ZoneRoleName(ZoneRole role) {
  switch (role) {
    case ZoneRole::kFree: return "free";
    case ZoneRole::kSuperblock: return "superblock";
    case ZoneRole::kMetadata: return "metadata";
    case ZoneRole::kData: return "data";
  }
  return "class-" + std::to_string(static_cast<int>(role));
}

namespace {

void PutCompactExtents(std::string* dst, const std::vector<Extent>& extents) {
  PutVarint64(dst, extents.size());
  for (const Extent& e : extents) {
    PutVarint64(dst, e.device);
    PutVarint64(dst, e.zone);
    PutVarint64(dst, e.offset);
    PutVarint64(dst, e.length);
  }
}

// Errors stay in d; Corruption for a count the bytes cannot hold.
Status GetCompactExtents(Decoder* d, std::vector<Extent>* extents) {
  uint32_t count = 0;
  if (!d->GetVarint32(&count)) return Status::OK();
  if (count > kMaxExtentsPerOp || count > d->remaining() / 4) {  // 4 bytes each at least
    return Status::Corruption("metadata op: extent count out of range");
  }
  extents->resize(count);
  for (Extent& e : *extents) {
    d->GetVarint32(&e.device);
    d->GetVarint32(&e.zone);
    d->GetVarint64(&e.offset);
    d->GetVarint64(&e.length);
  }
  return Status::OK();
}

// Errors stay in d; Corruption for a count the bytes cannot hold.
Status GetExtents(Decoder* d, std::vector<Extent>* extents) {
  uint32_t count = 0;
  d->GetFixed32(&count);
  if (!d->ok()) return Status::OK();
  if (count > kMaxExtentsPerOp || count > d->remaining() / 24) {
    return Status::Corruption("metadata op: extent count out of range");
  }
  extents->resize(count);
  for (Extent& e : *extents) {
    d->GetFixed32(&e.device);
    d->GetFixed32(&e.zone);
    d->GetFixed64(&e.offset);
    d->GetFixed64(&e.length);
  }
  return Status::OK();
}

}  // namespace

bool OnlyAppendedTo(const std::vector<Extent>& before, const std::vector<Extent>& now, size_t pinned) {
  if (now.size() < before.size()) return false;
  for (size_t i = 0; i < before.size(); i++) {
    if (now[i] == before[i]) continue;
    const bool grew = i + 1 == before.size() && i != pinned && now[i].device == before[i].device &&
                      now[i].zone == before[i].zone && now[i].offset == before[i].offset &&
                      now[i].length > before[i].length;
    if (!grew) return false;
  }
  return true;
}

void SpliceExtents(std::vector<Extent>* extents, size_t from, size_t count, const std::vector<Extent>& with) {
  auto first = extents->begin() + static_cast<long>(from);
  if (count == with.size()) {
    std::copy(with.begin(), with.end(), first);
    return;
  }
  extents->insert(extents->erase(first, first + static_cast<long>(count)), with.begin(), with.end());
}

void EncodeOp(const MetadataOp& op, std::string* dst) {
  dst->push_back(static_cast<char>(op.type));
  const InodeRecord& in = op.inode;
  switch (op.type) {
    case MetadataOp::Type::kCreateInode:
      PutFixed64(dst, in.id);
      dst->push_back(static_cast<char>(in.type));
      dst->push_back(static_cast<char>(in.role));
      PutFixed64(dst, static_cast<uint64_t>(in.mtime_ns));
      break;
    case MetadataOp::Type::kDeleteInode:
      PutFixed64(dst, in.id);
      break;
    case MetadataOp::Type::kLink:
      PutFixed64(dst, op.parent);
      PutLengthPrefixed(dst, op.name);
      PutFixed64(dst, in.id);
      break;
    case MetadataOp::Type::kUnlink:
      PutFixed64(dst, op.parent);
      PutLengthPrefixed(dst, op.name);
      break;
    case MetadataOp::Type::kSetExtents:
    case MetadataOp::Type::kReplaceExtents: {
      const bool replace = op.type == MetadataOp::Type::kReplaceExtents;
      dst->back() = static_cast<char>(replace ? kCompactReplaceExtents : kCompactSetExtents);
      PutVarint64(dst, in.id);
      PutVarint64(dst, op.from_index);
      if (replace) PutVarint64(dst, op.replaced);
      PutVarint64(dst, in.size);
      PutFixed64(dst, static_cast<uint64_t>(in.mtime_ns));
      PutCompactExtents(dst, in.extents);
      if (!replace) PutLengthPrefixed(dst, in.tail);
      break;
    }
    case MetadataOp::Type::kAppendTail:
      PutFixed64(dst, in.id);
      PutFixed64(dst, in.size);
      PutFixed64(dst, static_cast<uint64_t>(in.mtime_ns));
      PutLengthPrefixed(dst, in.tail);
      break;
    case MetadataOp::Type::kBlockSums:
      PutFixed32(dst, op.device);
      PutFixed32(dst, op.zone);
      PutFixed32(dst, op.block);
      PutFixed32(dst, static_cast<uint32_t>(op.crcs.size()));
      for (uint32_t c : op.crcs) PutFixed32(dst, c);
      break;
    case MetadataOp::Type::kZoneSealed:
    case MetadataOp::Type::kZoneSealedTable:
      PutFixed32(dst, op.device);
      PutFixed32(dst, op.zone);
      PutFixed32(dst, op.block);
      if (op.type == MetadataOp::Type::kZoneSealedTable) PutFixed32(dst, op.table_crc);
      break;
    case MetadataOp::Type::kSetHintsV1:  // DecodeOp turns it into op 16: never held, never written
      break;
    case MetadataOp::Type::kZoneClass:
      PutFixed32(dst, op.device);
      PutFixed32(dst, op.zone);
      dst->push_back(static_cast<char>(in.role));
      break;
    case MetadataOp::Type::kSetTag:
      PutFixed64(dst, in.id);
      PutLengthPrefixed(dst, in.tag);
      break;
    case MetadataOp::Type::kSetOwnership:
      PutFixed64(dst, in.id);
      PutFixed32(dst, in.mode);
      PutFixed32(dst, in.uid);
      PutFixed32(dst, in.gid);
      break;
    case MetadataOp::Type::kZoneOwner:
      PutFixed32(dst, op.device);
      PutFixed32(dst, op.zone);
      PutFixed64(dst, op.owner.inode);
      PutFixed64(dst, op.owner.start);
      PutFixed64(dst, op.owner.file_offset);
      break;
    case MetadataOp::Type::kSnapshotBegin:
    case MetadataOp::Type::kSnapshotEnd:
      PutFixed64(dst, op.epoch);
      break;
    case MetadataOp::Type::kSetPolicy:
      PutLengthPrefixed(dst, op.name);
      break;
    case MetadataOp::Type::kSetAttribute:
      PutLengthPrefixed(dst, op.name);
      PutLengthPrefixed(dst, op.value);
      break;
  }
}

namespace {

// The fields of the larger ops; Corruption for values no writer produces.
// Read errors stay in d.
Status DecodeCreateInode(Decoder* d, InodeRecord* in) {
  std::string_view tr;
  uint64_t mtime = 0;
  d->GetFixed64(&in->id);
  d->GetBytes(2, &tr);
  d->GetFixed64(&mtime);
  in->mtime_ns = static_cast<int64_t>(mtime);
  if (!d->ok()) return Status::OK();
  in->type = static_cast<FileType>(tr[0]);
  in->role = static_cast<ZoneRole>(tr[1]);
  if (in->type != FileType::kFile && in->type != FileType::kDirectory && in->type != FileType::kSymlink &&
      in->type != FileType::kSpecial) {
    return Status::Corruption("metadata op: bad file type");
  }
  if (in->role != ZoneRole::kFree && !IsFileClass(in->role)) {  // free: a directory
    return Status::Corruption("metadata op: bad file class");
  }
  return Status::OK();
}

// op->type is kSetExtents or kReplaceExtents; compact: written as code
// kCompactSetExtents or kCompactReplaceExtents.
Status DecodeSetExtents(Decoder* d, bool compact, MetadataOp* op) {
  InodeRecord& in = op->inode;
  uint64_t mtime = 0;
  const bool replace = op->type == MetadataOp::Type::kReplaceExtents;
  if (compact) {
    d->GetVarint64(&in.id);
    d->GetVarint32(&op->from_index);
    if (replace) d->GetVarint32(&op->replaced);
    d->GetVarint64(&in.size);
  } else {
    d->GetFixed64(&in.id);
    d->GetFixed32(&op->from_index);
    if (replace) d->GetFixed32(&op->replaced);
    d->GetFixed64(&in.size);
  }
  d->GetFixed64(&mtime);
  in.mtime_ns = static_cast<int64_t>(mtime);
  Status s = compact ? GetCompactExtents(d, &in.extents) : GetExtents(d, &in.extents);
  if (!s.ok()) return s;
  if (!replace) d->GetLengthPrefixed(&in.tail, kMaxTailBytes);
  return Status::OK();
}

Status DecodeBlockSums(Decoder* d, MetadataOp* op) {
  uint32_t count = 0;
  d->GetFixed32(&op->device);
  d->GetFixed32(&op->zone);
  d->GetFixed32(&op->block);
  d->GetFixed32(&count);
  if (!d->ok()) return Status::OK();
  if (count > d->remaining() / 4) return Status::Corruption("metadata op: block checksum count out of range");
  op->crcs.resize(count);
  for (uint32_t& c : op->crcs) d->GetFixed32(&c);
  return Status::OK();
}

}  // namespace

Status DecodeOp(std::string_view* input, MetadataOp* op) {
  *op = MetadataOp();
  Decoder d(*input, "metadata op");
  std::string_view type_byte;
  if (!d.GetBytes(1, &type_byte)) return d.status();
  const uint8_t code = static_cast<uint8_t>(type_byte[0]);
  const bool compact = code == kCompactSetExtents || code == kCompactReplaceExtents;
  op->type = code == kCompactSetExtents       ? MetadataOp::Type::kSetExtents
             : code == kCompactReplaceExtents ? MetadataOp::Type::kReplaceExtents
                                              : static_cast<MetadataOp::Type>(code);
  InodeRecord& in = op->inode;
  uint64_t mtime = 0;
  switch (op->type) {
    case MetadataOp::Type::kCreateInode: {
      Status s = DecodeCreateInode(&d, &in);
      if (!s.ok()) return s;
      break;
    }
    case MetadataOp::Type::kDeleteInode:
      d.GetFixed64(&in.id);
      break;
    case MetadataOp::Type::kLink:
      d.GetFixed64(&op->parent);
      d.GetLengthPrefixed(&op->name, kMaxName);
      d.GetFixed64(&in.id);
      break;
    case MetadataOp::Type::kUnlink:
      d.GetFixed64(&op->parent);
      d.GetLengthPrefixed(&op->name, kMaxName);
      break;
    case MetadataOp::Type::kSetExtents:
    case MetadataOp::Type::kReplaceExtents: {
      Status s = DecodeSetExtents(&d, compact, op);
      if (!s.ok()) return s;
      break;
    }
    case MetadataOp::Type::kAppendTail:
      d.GetFixed64(&in.id);
      d.GetFixed64(&in.size);
      d.GetFixed64(&mtime);
      d.GetLengthPrefixed(&in.tail, kMaxTailBytes);
      in.mtime_ns = static_cast<int64_t>(mtime);
      break;
    case MetadataOp::Type::kBlockSums: {
      Status s = DecodeBlockSums(&d, op);
      if (!s.ok()) return s;
      break;
    }
    case MetadataOp::Type::kZoneSealed:
    case MetadataOp::Type::kZoneSealedTable:
      d.GetFixed32(&op->device);
      d.GetFixed32(&op->zone);
      d.GetFixed32(&op->block);
      if (op->type == MetadataOp::Type::kZoneSealedTable) d.GetFixed32(&op->table_crc);
      break;
    case MetadataOp::Type::kZoneClass: {
      std::string_view role;
      d.GetFixed32(&op->device);
      d.GetFixed32(&op->zone);
      if (!d.GetBytes(1, &role)) break;
      in.role = static_cast<ZoneRole>(role[0]);
      if (!IsFileClass(in.role)) return Status::Corruption("metadata op: bad zone class");
      break;
    }
    case MetadataOp::Type::kSetHintsV1: {
      // The layer above chose these fields; the filesystem keeps their bytes
      // as a version-0 tag and never reads them.
      std::string_view fixed;
      std::string text;
      d.GetFixed64(&in.id);
      d.GetBytes(12, &fixed);
      d.GetLengthPrefixed(&text, 64);
      if (!d.ok()) break;
      in.tag.assign(1, '\0');
      in.tag.append(fixed);
      PutLengthPrefixed(&in.tag, text);
      op->type = MetadataOp::Type::kSetTag;
      break;
    }
    case MetadataOp::Type::kSetTag:
      d.GetFixed64(&in.id);
      d.GetLengthPrefixed(&in.tag, kMaxFileTag);
      break;
    case MetadataOp::Type::kSetOwnership:
      d.GetFixed64(&in.id);
      d.GetFixed32(&in.mode);
      d.GetFixed32(&in.uid);
      d.GetFixed32(&in.gid);
      if (d.ok() && (in.mode & ~(kModeBits | kModeSet)) != 0) return Status::Corruption("metadata op: bad mode");
      break;
    case MetadataOp::Type::kZoneOwner:
      d.GetFixed32(&op->device);
      d.GetFixed32(&op->zone);
      d.GetFixed64(&op->owner.inode);
      d.GetFixed64(&op->owner.start);
      d.GetFixed64(&op->owner.file_offset);
      break;
    case MetadataOp::Type::kSnapshotBegin:
    case MetadataOp::Type::kSnapshotEnd:
      d.GetFixed64(&op->epoch);
      break;
    case MetadataOp::Type::kSetPolicy:
      d.GetLengthPrefixed(&op->name, kMaxPolicyName);
      break;
    case MetadataOp::Type::kSetAttribute:
      d.GetLengthPrefixed(&op->name, kMaxAttributeName);
      d.GetLengthPrefixed(&op->value, kMaxAttributeValue);
      break;
    default:
      return Status::Corruption(fmt::format("metadata op: unknown type {}",
                                            static_cast<int>(op->type)));
  }
  if (!d.ok()) return d.status();
  input->remove_prefix(input->size() - d.remaining());
  return Status::OK();
}

MetadataImage::MetadataImage() = default;

namespace {

Status OpCorruption(const MetadataOp& op, const std::string& what) {
  return Status::Corruption(fmt::format("journal op {} on inode {}: {}", static_cast<int>(op.type), op.inode.id, what));
}

}  // namespace

Status MetadataImage::Apply(const MetadataOp& op) {
  switch (op.type) {
    case MetadataOp::Type::kCreateInode:
    case MetadataOp::Type::kDeleteInode:
    case MetadataOp::Type::kLink:
    case MetadataOp::Type::kUnlink:
      return ApplyNamespaceOp(op);
    case MetadataOp::Type::kSetExtents:
    case MetadataOp::Type::kReplaceExtents:
    case MetadataOp::Type::kAppendTail:
    case MetadataOp::Type::kSetTag:
    case MetadataOp::Type::kSetOwnership:
      return ApplyFileOp(op);
    case MetadataOp::Type::kSetHintsV1:  // DecodeOp made it op 16
      break;
    case MetadataOp::Type::kZoneOwner:
    case MetadataOp::Type::kBlockSums:
    case MetadataOp::Type::kZoneSealed:
    case MetadataOp::Type::kZoneSealedTable:
    case MetadataOp::Type::kZoneClass:
      return ApplyZoneOp(op);
    case MetadataOp::Type::kSetPolicy:
      policy_ = op.name;
      return Status::OK();
    case MetadataOp::Type::kSetAttribute:
      if (op.name.empty()) return OpCorruption(op, "attribute without a name");
      if (op.value.empty()) {
        attributes_.erase(op.name);
      } else {
        attributes_[op.name] = op.value;
      }
      return Status::OK();
    case MetadataOp::Type::kSnapshotBegin:
    case MetadataOp::Type::kSnapshotEnd:
      return Status::OK();
  }
  return OpCorruption(op, "unknown op");
}

Status MetadataImage::ApplyNamespaceOp(const MetadataOp& op) {
  // Inodes and names.
  switch (op.type) {
    case MetadataOp::Type::kCreateInode: {
      if (op.inode.id == 0 || inodes_.count(op.inode.id)) return OpCorruption(op, "inode exists");
      InodeRecord rec = op.inode;
      rec.nlink = 0;
      rec.size = 0;
      rec.extents.clear();
      inodes_[rec.id] = rec;
      if (rec.type == FileType::kDirectory) entries_[rec.id];
      return Status::OK();
    }
    case MetadataOp::Type::kDeleteInode: {
      auto it = inodes_.find(op.inode.id);
      if (it == inodes_.end()) return OpCorruption(op, "no such inode");
      auto dir = entries_.find(op.inode.id);
      if (dir != entries_.end() && !dir->second.empty()) return OpCorruption(op, "directory not empty");
      if (dir != entries_.end()) entries_.erase(dir);
      inodes_.erase(it);
      for (auto o = owners_.begin(); o != owners_.end();) {
        o = o->second.inode == op.inode.id ? owners_.erase(o) : std::next(o);
      }
      return Status::OK();
    }
    case MetadataOp::Type::kLink: {
      auto dir = entries_.find(op.parent);
      auto it = inodes_.find(op.inode.id);
      if (dir == entries_.end()) return OpCorruption(op, "parent is not a directory");
      if (it == inodes_.end()) return OpCorruption(op, "no such inode");
      if (op.name.empty() || !dir->second.emplace(op.name, op.inode.id).second) {
        return OpCorruption(op, "name '" + op.name + "' exists or is empty");
      }
      it->second.nlink++;
      return Status::OK();
    }
    case MetadataOp::Type::kUnlink: {
      auto dir = entries_.find(op.parent);
      if (dir == entries_.end()) return OpCorruption(op, "parent is not a directory");
      auto e = dir->second.find(op.name);
      if (e == dir->second.end()) return OpCorruption(op, "no entry '" + op.name + "'");
      auto it = inodes_.find(e->second);
      if (it == inodes_.end() || it->second.nlink == 0) return OpCorruption(op, "dangling entry");
      it->second.nlink--;
      dir->second.erase(e);
      return Status::OK();
    }
    default:
      break;
  }
  return OpCorruption(op, "unknown op");
}

Status MetadataImage::ApplyFileOp(const MetadataOp& op) {
  // A file's extents, tail and tag.
  switch (op.type) {
    case MetadataOp::Type::kSetExtents: {
      auto it = inodes_.find(op.inode.id);
      if (it == inodes_.end()) return OpCorruption(op, "no such inode");
      InodeRecord& rec = it->second;
      if (op.from_index > rec.extents.size()) return OpCorruption(op, "extent index beyond the list");
      uint64_t total = 0;
      for (size_t i = 0; i < op.from_index; i++) total += rec.extents[i].length;
      for (const Extent& e : op.inode.extents) total += e.length;
      if (total + op.inode.tail.size() != op.inode.size) return OpCorruption(op, "size does not match extents");
      rec.extents.resize(op.from_index);
      rec.extents.insert(rec.extents.end(), op.inode.extents.begin(), op.inode.extents.end());
      rec.size = op.inode.size;
      rec.mtime_ns = op.inode.mtime_ns;
      rec.tail = op.inode.tail;
      return Status::OK();
    }
    case MetadataOp::Type::kReplaceExtents: {
      auto it = inodes_.find(op.inode.id);
      if (it == inodes_.end()) return OpCorruption(op, "no such inode");
      InodeRecord& rec = it->second;
      if (op.replaced > rec.extents.size() || op.from_index > rec.extents.size() - op.replaced) {
        return OpCorruption(op, "replaced extents beyond the list");
      }
      auto first = rec.extents.begin() + op.from_index, last = first + op.replaced;
      uint64_t size = rec.size;
      for (auto e = first; e != last; ++e) size -= e->length;
      for (const Extent& e : op.inode.extents) size += e.length;
      if (size != op.inode.size) return OpCorruption(op, "size does not match extents");
      SpliceExtents(&rec.extents, op.from_index, op.replaced, op.inode.extents);
      rec.size = op.inode.size;
      rec.mtime_ns = op.inode.mtime_ns;
      return Status::OK();
    }
    case MetadataOp::Type::kAppendTail: {
      auto it = inodes_.find(op.inode.id);
      if (it == inodes_.end()) return OpCorruption(op, "no such inode");
      InodeRecord& rec = it->second;
      if (op.inode.tail.empty() || rec.size + op.inode.tail.size() != op.inode.size) {
        return OpCorruption(op, "appended tail does not continue the file");
      }
      if (rec.tail.size() + op.inode.tail.size() > kMaxTailBytes) return OpCorruption(op, "tail too long");
      rec.tail += op.inode.tail;
      rec.size = op.inode.size;
      rec.mtime_ns = op.inode.mtime_ns;
      return Status::OK();
    }
    case MetadataOp::Type::kSetTag: {
      auto it = inodes_.find(op.inode.id);
      if (it == inodes_.end()) return OpCorruption(op, "no such inode");
      it->second.tag = op.inode.tag;
      return Status::OK();
    }
    case MetadataOp::Type::kSetOwnership: {
      auto it = inodes_.find(op.inode.id);
      if (it == inodes_.end()) return OpCorruption(op, "no such inode");
      it->second.mode = op.inode.mode;
      it->second.uid = op.inode.uid;
      it->second.gid = op.inode.gid;
      return Status::OK();
    }
    default:
      break;
  }
  return OpCorruption(op, "unknown op");
}

Status MetadataImage::ApplyZoneOp(const MetadataOp& op) {
  // What the journal knows of zones: owners (legacy), block checksums, seals.
  switch (op.type) {
    case MetadataOp::Type::kZoneOwner: {
      auto key = std::make_pair(op.device, op.zone);
      if (op.owner.inode == 0) {
        owners_.erase(key);
        return Status::OK();
      }
      if (inodes_.count(op.owner.inode) == 0) return OpCorruption(op, "zone owner is not an inode");
      owners_[key] = op.owner;
      return Status::OK();
    }
    case MetadataOp::Type::kBlockSums: {
      auto key = std::make_pair(op.device, op.zone);
      ZoneSums& sums = zone_sums_[key];
      if (op.block > sums.crcs.size()) {
        return OpCorruption(op, fmt::format("checksums of zone {}/{} from block {} leave a gap after {}", op.device,
                                   op.zone, op.block, sums.crcs.size()));
      }
      sums.crcs.resize(op.block);  // blocks written again after a reset
      sums.crcs.insert(sums.crcs.end(), op.crcs.begin(), op.crcs.end());
      if (op.block == 0) sums.sealed = sums.table_known = false;
      if (op.block == 0 && op.crcs.empty()) zone_classes_.erase(key);  // the zone was reset
      if (sums.crcs.empty()) zone_sums_.erase(key);
      return Status::OK();
    }
    case MetadataOp::Type::kZoneSealed:
    case MetadataOp::Type::kZoneSealedTable: {
      ZoneSums& sums = zone_sums_[std::make_pair(op.device, op.zone)];
      sums.sealed = true;
      sums.trailer_block = op.block;
      sums.table_known = op.type == MetadataOp::Type::kZoneSealedTable;
      sums.table_crc = op.table_crc;
      return Status::OK();
    }
    case MetadataOp::Type::kZoneClass:
      zone_classes_[std::make_pair(op.device, op.zone)] = op.inode.role;
      return Status::OK();
    default:
      break;
  }
  return OpCorruption(op, "unknown op");
}

}  // namespace hintfs
