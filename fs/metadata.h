// The durable metadata of a hintfs filesystem and the operations that change
// it. MetadataImage is exactly what the journal says is true: mount rebuilds
// it by replaying journal batches (each a list of MetadataOps), and a journal
// roll writes it whole as a snapshot. The live filesystem keeps its own richer
// structures and emits an op for every change it makes durable.
#ifndef HINTFS_FS_METADATA_H_
#define HINTFS_FS_METADATA_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fs/status.h"

namespace hintfs {

constexpr uint64_t kRootInode = 1;

// A symbolic link's target is its content: the bytes of its (journaled) tail.
// A special node (a FIFO, socket or device node, which the kernel serves) has
// as its content its format and device number (EncodeSpecialNode).
enum class FileType : uint8_t { kFile = 1, kDirectory = 2, kSymlink = 3, kSpecial = 4 };

// The longest symbolic link target (PATH_MAX less its NUL).
constexpr size_t kMaxSymlinkTarget = 4095;
// Permission bits (with set-user-ID, set-group-ID and sticky) an inode keeps,
// and the bit that says they were set (a mode of 0 is a mode too).
constexpr uint32_t kModeBits = 07777;
constexpr uint32_t kModeSet = 010000;

// What a zone is for: the filesystem's own zones (superblock, metadata
// journal) and empty ones, or the class of the files whose data it holds.
// A file class is a small id the layers above define (placement names its
// WAL and table classes, the cache its own): the filesystem stores it with
// the file, gives a zone the class of the first file that writes to it so
// classes never share a zone, and counts zones per class. kData is the class
// of a file nobody classified. Ids 3 and 5 to kZoneRoleCount - 1 are free for
// the layers above; ids the journal holds are those values as they are.
enum class ZoneRole : uint8_t {
  kFree = 0,
  kSuperblock = 1,
  kMetadata = 2,
  kData = 4,
};
constexpr int kZoneRoleCount = 16;
// A file class defined above the filesystem, as a ZoneRole.
constexpr ZoneRole FileClass(uint8_t id) { return static_cast<ZoneRole>(id); }
// Whether role is a file class: neither free nor one of the filesystem's own
// roles, and below kZoneRoleCount.
constexpr bool IsFileClass(ZoneRole role) {
  return role != ZoneRole::kFree && role != ZoneRole::kSuperblock && role != ZoneRole::kMetadata &&
         static_cast<int>(role) < kZoneRoleCount;
}
// "free", "superblock", "metadata", "data", or "class-N" for other classes
// (the layers above name theirs: hints/file_kind.h).
std::string ZoneRoleName(ZoneRole role);

// Opaque bytes the layers above keep with a file (what a store told about it
// or what was inferred: hints/file_tag.h defines them). The filesystem stores
// and returns them and never reads them.
constexpr size_t kMaxFileTag = 255;

// A run of a file's bytes on one zone. offset is a device byte offset and
// length a byte count, neither a block multiple of necessity: what a writer
// appends begins on a block, but moves and GC copy extents packed one after
// another (fs_copy.cc) and cut them anywhere, so extents may share a device
// block. Padding after an extent's last byte belongs to no extent.
struct Extent {
  uint32_t device = 0;
  uint32_t zone = 0;
  uint64_t offset = 0;
  uint64_t length = 0;

  bool operator==(const Extent& o) const {
    return device == o.device && zone == o.zone && offset == o.offset && length == o.length;
  }
};

// Whether next continues last on its zone, so that last may grow by it:
// next's bytes begin where last's end (padding after a partial block lies
// between an extent and anything written after it, so there they do not).
inline bool ExtentContinues(const Extent& last, const Extent& next) {
  return last.device == next.device && last.zone == next.zone && last.offset + last.length == next.offset;
}

// Whether a file's extents went from before to now by appends alone: now
// starts with before's extents, the last of them maybe grown in place, and
// may have more after them. The extent at index pinned (one a copy was made
// of) must be unchanged. An overwrite or a migration replaces extents, which
// changes or shifts those after it.
bool OnlyAppendedTo(const std::vector<Extent>& before, const std::vector<Extent>& now, size_t pinned);

// Replaces (*extents)[from, from + count) by with; in place when the counts
// match (an overwrite of single-block extents), so a file of many extents
// pays for the run, not for moving the list behind it.
void SpliceExtents(std::vector<Extent>* extents, size_t from, size_t count, const std::vector<Extent>& with);

// The most a file's journaled tail holds (InodeRecord::tail); a decoder
// rejects a longer one.
constexpr size_t kMaxTailBytes = 64 << 10;

struct InodeRecord {
  uint64_t id = 0;
  FileType type = FileType::kFile;
  ZoneRole role = ZoneRole::kData;
  uint32_t nlink = 0;
  uint64_t size = 0;  // the sum of extent lengths plus the tail
  int64_t mtime_ns = 0;
  std::vector<Extent> extents;
  // Flushed bytes past the last whole block of a file still being written
  // (at most kMaxTailBytes): kept in the journal so that a sync never pads a
  // block in a data zone. A file appending to a slow-tier zone may keep some
  // whole blocks here too, so that its device sees larger writes.
  std::string tail;
  std::string tag;  // at most kMaxFileTag bytes, see above
  // Permission bits and owner (op 17): mode holds kModeSet once they were
  // set; before, the layers above show 0644 for files and 0755 for
  // directories, owned by whoever serves them.
  uint32_t mode = 0;
  uint32_t uid = 0;
  uint32_t gid = 0;
};

// The file appending to a zone, recorded when it takes the zone, so that
// whole blocks it wrote after its last journaled extent can be recovered
// from the write pointer after a crash.
struct ZoneOwner {
  uint64_t inode = 0;
  uint64_t start = 0;        // zone-relative write pointer when it took the zone
  uint64_t file_offset = 0;  // file offset of the byte written at start
};

struct MetadataOp {
  enum class Type : uint8_t {
    kCreateInode = 1,    // inode (id, type, role, mtime)
    kDeleteInode = 2,    // inode.id
    kLink = 3,           // parent, name, inode.id: add entry, nlink + 1
    kUnlink = 4,         // parent, name: drop entry, nlink - 1
    kSetExtents = 5,     // inode.id, from_index, inode.size, mtime_ns, extents, tail
    kSnapshotBegin = 6,  // epoch
    kSnapshotEnd = 7,    // epoch
    kSetPolicy = 8,      // name: the placement policy chosen at mkfs or mount
    kZoneOwner = 9,      // device, zone, owner (inode 0: released)
    kSetHintsV1 = 10,    // inode.id, 12 bytes and a length-prefixed string the layer above
                         // defined (written before op 16): read as tag "\0" + those bytes
    kSetAttribute = 11,  // name, value: a filesystem attribute (empty value: removed)
    kAppendTail = 12,    // inode.id, inode.size (after), mtime_ns, inode.tail: bytes appended
                         // to the file's tail (a flush that wrote no whole block)
    kBlockSums = 13,     // device, zone, block, crcs: the CRC32C of the zone's blocks from
                         // block on; forgets any later ones (block 0 and no crcs: zone reset)
    kZoneSealed = 14,    // device, zone, block: the zone's trailer, from block, holds the
                         // CRC of every block before it (written before op 15 existed)
    kZoneSealedTable = 15,  // device, zone, block, table_crc: op 14, and the CRC of the
                            // trailer's checksum table (ChecksumTableCrc)
    kSetTag = 16,        // inode.id, inode.tag: the file's tag (empty: none)
    kSetOwnership = 17,  // inode.id, inode.mode, inode.uid, inode.gid
    kReplaceExtents = 18,  // inode.id, from_index, replaced, inode.size, mtime_ns, extents: the
                           // extents [from_index, from_index + replaced) give way to these (an
                           // overwrite: its cost is the pieces it changed, not the list after them)
    // (Wire codes 19 and 20 are ops 5 and 18 written compact, metadata.cc.)
    kZoneClass = 21,  // device, zone, inode.role: the class a copy (migration or GC) gave the
                      // zone, which may not be its files' own; forgotten at the zone's reset
  };
  Type type = Type::kCreateInode;
  InodeRecord inode;
  uint64_t parent = 0;
  std::string name;
  std::string value;
  uint32_t from_index = 0;
  uint64_t epoch = 0;
  uint32_t device = 0;
  uint32_t zone = 0;
  ZoneOwner owner;
  uint32_t block = 0;           // zone-relative block index
  std::vector<uint32_t> crcs;   // one per block
  uint32_t table_crc = 0;       // kZoneSealedTable
  uint32_t replaced = 0;        // kReplaceExtents
};

// The block checksums the journal keeps for a data zone.
struct ZoneSums {
  std::vector<uint32_t> crcs;  // of the zone's blocks [0, crcs.size())
  bool sealed = false;         // the zone's trailer holds them (a snapshot then drops crcs)
  uint32_t trailer_block = 0;  // where the trailer starts
  bool table_known = false;    // sealed by op 15: table_crc is the trailer's
  uint32_t table_crc = 0;
};

// The longest placement policy name (options included) the journal keeps.
constexpr size_t kMaxPolicyName = 512;

// Limits on a filesystem attribute.
constexpr size_t kMaxAttributeName = 64;
constexpr size_t kMaxAttributeValue = 8192;

void EncodeOp(const MetadataOp& op, std::string* dst);
// Decodes one op from the front of *input (advancing it).
Status DecodeOp(std::string_view* input, MetadataOp* op);

class MetadataImage {
 public:
  MetadataImage();

  // Applies op; an op that contradicts the image (unknown inode, duplicate
  // name, extent index out of range) is Corruption and leaves it unchanged.
  Status Apply(const MetadataOp& op);

  // Ops that recreate this image from empty, snapshot markers excluded.
  void SnapshotOps(std::vector<MetadataOp>* ops) const;

  const std::map<uint64_t, InodeRecord>& inodes() const { return inodes_; }
  // parent -> (name -> inode)
  const std::map<uint64_t, std::map<std::string, uint64_t>>& entries() const { return entries_; }
  const std::string& policy() const { return policy_; }
  // Named values upper layers keep with the filesystem (e.g. migration stats).
  const std::map<std::string, std::string>& attributes() const { return attributes_; }
  // (device, zone) -> owner, for zones a file was appending to.
  const std::map<std::pair<uint32_t, uint32_t>, ZoneOwner>& owners() const { return owners_; }
  // (device, zone) -> block checksums, for data zones written since format
  // version 2 (zones without an entry were written before, or are empty).
  const std::map<std::pair<uint32_t, uint32_t>, ZoneSums>& zone_sums() const { return zone_sums_; }
  // (device, zone) -> the class op 21 gave it, for zones a copy wrote and no
  // reset has emptied since.
  const std::map<std::pair<uint32_t, uint32_t>, ZoneRole>& zone_classes() const { return zone_classes_; }
  uint64_t max_inode_id() const { return inodes_.empty() ? 0 : inodes_.rbegin()->first; }

 private:
  Status ApplyNamespaceOp(const MetadataOp& op);
  Status ApplyFileOp(const MetadataOp& op);
  Status ApplyZoneOp(const MetadataOp& op);

  std::map<uint64_t, InodeRecord> inodes_;
  std::map<uint64_t, std::map<std::string, uint64_t>> entries_;
  std::string policy_;
  std::map<std::string, std::string> attributes_;
  std::map<std::pair<uint32_t, uint32_t>, ZoneOwner> owners_;
  std::map<std::pair<uint32_t, uint32_t>, ZoneSums> zone_sums_;
  std::map<std::pair<uint32_t, uint32_t>, ZoneRole> zone_classes_;
};

}  // namespace hintfs

#endif  // HINTFS_FS_METADATA_H_
