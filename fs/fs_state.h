// Internal: the in-memory state of a mounted filesystem that FsImpl
// (fs_impl.h) keeps: its files (Inode), each data zone's bookkeeping
// (ZoneSlot) and its member devices (Member). The locking rule is
// fs_impl.h's.
#ifndef HINTFS_FS_FS_STATE_H_
#define HINTFS_FS_FS_STATE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "fs/device/zoned_device.h"
#include "fs/filesystem.h"
#include "fs/metadata.h"
#include "fs/superblock.h"

namespace hintfs {

struct Inode {
  uint64_t id = 0;
  FileType type = FileType::kFile;
  ZoneRole role = ZoneRole::kData;
  std::string created_as;  // path at creation, for allocation requests
  std::string tag;         // guarded by mu below
  int lifetime_hint = 0;   // guarded by mu below; not persisted
  // The policy's lifetime class for the file's zones (AllocationPolicy::
  // LifetimeClass), asked at its first zone; -1 until then. Guarded by mu.
  int lifetime_class = -1;
  // Reads since mount that did not continue the previous read of the file
  // (random reads; a sequential scan counts once).
  std::atomic<uint64_t> reads{0};
  std::atomic<uint64_t> last_read_end{UINT64_MAX};

  // Guarded by FsImpl::mu_.
  uint32_t nlink = 0;
  int open_count = 0;    // readers, writers and other holders
  bool deleted = false;  // storage released; the object lingers in handles

  std::mutex mu;  // guards everything below
  uint64_t size = 0;  // logical: extent bytes + pending
  uint32_t mode = 0;  // InodeRecord::mode, uid, gid
  uint32_t uid = 0;
  uint32_t gid = 0;
  uint64_t data_version = 0;  // bumped when written bytes change (truncate)
  int64_t mtime_ns = 0;
  std::vector<Extent> extents;  // see the lock rule above
  size_t first_dirty = SIZE_MAX;  // first extent not yet queued in the journal
  bool attr_dirty = false;        // mtime or size changed since last queued
  std::string pending;            // appended bytes not yet on a device
  size_t tail_len = 0;            // front of pending the journal carries (synced)
  uint64_t kept_in_tail = 0;  // whole blocks of pending a flush kept (FsImpl::kept_in_tails_)
  bool has_writer = false;
  int32_t zone_device = -1;  // the zone this file is appending to
  uint32_t zone = 0;
  uint64_t ask_again_at = UINT64_MAX;  // file size at which to leave it (AskAgainAfter)
  // Set by a writer that holds mu and waits in AcquireZone for GC to free a
  // zone: until it is cleared (under FsImpl::gc_mu_, so never while a GC
  // runs) the writer touches neither the extents nor the size, and GC may
  // move the file's extents as if it held mu. Without this, two files that
  // wait for space at once, each in most zones (a store's LOG and MANIFEST
  // are), keep each other's every victim busy and their writes fail.
  std::atomic<bool> lent_to_gc{false};

  uint64_t extent_bytes() const { return size - pending.size(); }
};

struct ZoneSlot {
  ZoneRole role = ZoneRole::kFree;
  bool reserved = false;   // superblock, journal or conventional: never data
  uint64_t used = 0;       // data bytes below the write pointer (a trailer not counted)
  uint64_t capacity = 0;
  uint64_t live = 0;       // block-rounded extent bytes referencing the zone
  bool writer = false;     // held by a file writer or GC
  Inode* holder = nullptr; // the file writer holding it (null for GC)
  uint32_t readers = 0;    // in-flight reads
  uint64_t dead_generation = 0;  // journal generation that made live zero
  // Block checksums (block_sums.h). A zone written before they existed has
  // none and its reads are not checked.
  bool checksummed = false;
  std::vector<uint32_t> crcs;  // of blocks [0, crcs.size()); a sealed zone's load from its trailer
  bool sealed = false;         // trailer written: no more data
  // Of a class whose files own their zones: takes what files longer than a
  // zone write past their first zones, for many files, so that each such
  // file does not finish a zone of its own for a short tail. In memory only:
  // after a remount the zone takes no more.
  bool shared_overflow = false;
  // The lifetime class of the files it holds (AllocationPolicy::
  // LifetimeClass). In memory only: after a remount a partly written zone
  // takes files of no class.
  uint8_t lifetime_class = 0;
  uint32_t trailer_block = 0;  // where the trailer starts, when sealed
  // The CRC of the trailer's table the journal recorded (zones sealed before
  // it was recorded have none): a trailer that differs comes from another
  // copy of the member and is refused.
  bool table_known = false;
  uint32_t table_crc = 0;
  // Its role came from a copy (migration or GC) and the journal holds it
  // (op 21), so that a remount gives it back rather than its files' class.
  bool class_recorded = false;
};

struct Member {
  MemberInfo info;
  std::unique_ptr<ZonedDevice> device;
  std::vector<ZoneSlot> zones;
  std::atomic<bool> dirty{false};  // written since the last flush
  uint32_t block_size = 4096;
  uint32_t max_active = 0;
  uint64_t data_capacity = 0;  // of a data zone: zone capacity less the trailer's blocks
  // A disk (reaching a block costs more than transferring a MiB): empty
  // zones are taken in order from the one after the zone opened last, so
  // that files written one after another lie one after another and the
  // head skips forward instead of seeking (fs_space.cc).
  bool seeks = false;
  uint32_t next_empty_from = 0;
};

}  // namespace hintfs

#endif  // HINTFS_FS_FS_STATE_H_
