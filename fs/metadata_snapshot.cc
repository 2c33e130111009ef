// MetadataImage::SnapshotOps: the ops a journal roll writes, which recreate
// the image from empty.
#include "fs/metadata.h"

namespace hintfs {

void MetadataImage::SnapshotOps(std::vector<MetadataOp>* ops) const {
  if (!policy_.empty()) {
    MetadataOp p;
    p.type = MetadataOp::Type::kSetPolicy;
    p.name = policy_;
    ops->push_back(p);
  }
  for (const auto& [name, value] : attributes_) {
    MetadataOp a;
    a.type = MetadataOp::Type::kSetAttribute;
    a.name = name;
    a.value = value;
    ops->push_back(a);
  }
  for (const auto& [id, rec] : inodes_) {
    MetadataOp c;
    c.type = MetadataOp::Type::kCreateInode;
    c.inode = rec;
    c.inode.extents.clear();
    ops->push_back(c);
    if (!rec.extents.empty() || rec.size != 0) {
      MetadataOp x;
      x.type = MetadataOp::Type::kSetExtents;
      x.inode.id = id;
      x.inode.size = rec.size;
      x.inode.mtime_ns = rec.mtime_ns;
      x.inode.extents = rec.extents;
      x.inode.tail = rec.tail;
      ops->push_back(x);
    }
    if (rec.mode != 0 || rec.uid != 0 || rec.gid != 0) {
      MetadataOp o;
      o.type = MetadataOp::Type::kSetOwnership;
      o.inode.id = id;
      o.inode.mode = rec.mode;
      o.inode.uid = rec.uid;
      o.inode.gid = rec.gid;
      ops->push_back(o);
    }
    if (!rec.tag.empty()) {
      MetadataOp h;
      h.type = MetadataOp::Type::kSetTag;
      h.inode.id = id;
      h.inode.tag = rec.tag;
      ops->push_back(h);
    }
  }
  for (const auto& [key, sums] : zone_sums_) {
    MetadataOp z;
    z.device = key.first;
    z.zone = key.second;
    if (sums.sealed) {  // the trailer has them, durable before any snapshot
      z.type = sums.table_known ? MetadataOp::Type::kZoneSealedTable : MetadataOp::Type::kZoneSealed;
      z.block = sums.trailer_block;
      z.table_crc = sums.table_crc;
    } else {
      z.type = MetadataOp::Type::kBlockSums;
      z.crcs = sums.crcs;
    }
    ops->push_back(z);
  }
  for (const auto& [key, role] : zone_classes_) {
    MetadataOp c;
    c.type = MetadataOp::Type::kZoneClass;
    c.device = key.first;
    c.zone = key.second;
    c.inode.role = role;
    ops->push_back(c);
  }
  for (const auto& [key, owner] : owners_) {
    MetadataOp o;
    o.type = MetadataOp::Type::kZoneOwner;
    o.device = key.first;
    o.zone = key.second;
    o.owner = owner;
    ops->push_back(o);
  }
  for (const auto& [parent, names] : entries_) {
    for (const auto& [name, id] : names) {
      MetadataOp l;
      l.type = MetadataOp::Type::kLink;
      l.parent = parent;
      l.name = name;
      l.inode.id = id;
      ops->push_back(l);
    }
  }
}

}  // namespace hintfs
