// RecentBlocks: the slow tier's device blocks the filesystem read or wrote
// last, kept in memory so that copying them to the other tier soon after
// costs no second read of the slow device.
//
// Block-granular tiering moves a block up just after a read of it came from
// the slow tier, and retention moves the hot blocks of a table up just after
// the table was written there (placement/block_tiering.h). Without this
// memo each such move read its bytes from the slow device again, on the
// device the workloads that need tiering are bound by (docs/benchmarks.md,
// issue 21). A real filesystem has them in its page cache; ours reads and
// writes zones directly, so it keeps its own short memory of them, used by
// copies only (the store's reads are the store's cache's business).
//
// Zoned blocks never change in place: a block stays what was last read or
// written until its zone is reset, which must call Forget. The bytes held are
// what the device holds: written blocks as written (padding included), read
// blocks only after their checksums were verified.
//
// Blocks written moments ago (among the last reread_window bytes written,
// not blocks only read) also serve the store's own reads of them
// (GetWritten): a store that reads a file back just after writing it finds
// it in memory, as a kernel filesystem's write-back cache would hold it.
// LevelDB opens every table it writes at once (its footer, index and filter
// read back); on the HDD each of those reads was a seek, a third of its
// time in a load (docs/benchmarks.md). The window is small on purpose:
// beyond it the store's reads are its own cache's business, sized by the
// experiment, and a store that fits in the memo would otherwise never read
// its devices.
//
// Bounded by capacity bytes: a slot per block of the smallest block size it
// is made for, each block in the one slot its device and offset name (consecutive blocks in consecutive slots),
// a new block replacing what its slot held. Every read of the slow tier
// stores its blocks; a least-recently-used list over a hash map cost a tenth
// of the CPU of a SATA-bound read phase, in cache misses on its nodes
// (docs/benchmarks.md). Thread safe.
#ifndef HINTFS_FS_RECENT_BLOCKS_H_
#define HINTFS_FS_RECENT_BLOCKS_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace hintfs {

struct RecentBlocksStats {
  uint64_t hits = 0;      // copies served from memory
  uint64_t misses = 0;    // copies that read the device
  uint64_t written_hits = 0;   // store reads served from blocks written (GetWritten)
  uint64_t written_bytes = 0;  // the bytes they returned
  uint64_t held_bytes = 0;
};

class RecentBlocks {
 public:
  // capacity_bytes 0 holds nothing (every Get misses). slot_bytes is the
  // smallest block size Put will be given: with fewer, larger slots, devices
  // of small blocks would have a block per slot and use a fraction of the
  // capacity (512-byte blocks an eighth of it in 4 KiB slots).
  // reread_window_bytes: how recently (in bytes written since) a block must
  // have been written for GetWritten to serve it; 0 never serves.
  explicit RecentBlocks(uint64_t capacity_bytes, uint32_t slot_bytes = 4096, uint64_t reread_window_bytes = 0);

  // Keeps n bytes at device offset, which are whole blocks of block_size
  // (offset and n multiples of it), written there (written) or read.
  void Put(uint32_t device, uint64_t offset, const char* data, size_t n, uint32_t block_size, bool written);
  // Copies the n bytes at device offset (any range) into dst if every block
  // covering them is held; false (dst untouched) otherwise.
  bool Get(uint32_t device, uint64_t offset, size_t n, uint32_t block_size, char* dst);
  // As Get, for the store's reads: only blocks Put as written, among the
  // last reread_window_bytes written, serve them.
  bool GetWritten(uint32_t device, uint64_t offset, size_t n, uint32_t block_size, char* dst);
  // Drops the blocks in [from, to) of device: a zone reset.
  void Forget(uint32_t device, uint64_t from, uint64_t to);

  RecentBlocksStats stats() const;

 private:
  struct Slot {
    bool held = false;
    uint64_t written_at = 0;  // written_clock_ after it was written; 0: only read
    uint32_t device = 0;
    uint64_t offset = 0;
    std::string bytes;
  };
  Slot& SlotOf(uint32_t device, uint64_t offset, uint32_t block_size);
  void DropLocked(Slot* slot);
  // Walks every slot, dropping device's blocks in [from, to).
  void DropSlotsLocked(uint32_t device, uint64_t from, uint64_t to);
  // Copies the n bytes at device offset into dst if every block covering
  // them is held (and, with written_only, was Put as written).
  bool CopyOutLocked(uint32_t device, uint64_t offset, size_t n, uint32_t block_size, bool written_only, char* dst);

  const uint64_t capacity_;
  const uint64_t reread_window_;
  uint64_t written_clock_ = 0;  // bytes Put as written, ever
  mutable std::mutex mu_;
  std::vector<Slot> slots_;
  // By device: the block size Put was last given (0: none), which places
  // its blocks in slots and is the step in which Forget walks a zone.
  std::vector<uint32_t> block_sizes_;
  RecentBlocksStats stats_;
};

}  // namespace hintfs

#endif  // HINTFS_FS_RECENT_BLOCKS_H_
