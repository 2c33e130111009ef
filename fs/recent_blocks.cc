#include "fs/recent_blocks.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace hintfs {

RecentBlocks::RecentBlocks(uint64_t capacity_bytes, uint32_t slot_bytes, uint64_t reread_window_bytes)
    : capacity_(capacity_bytes),
      reread_window_(reread_window_bytes),
      slots_(static_cast<size_t>(capacity_bytes / std::max<uint32_t>(slot_bytes, 1))) {}

RecentBlocks::Slot& RecentBlocks::SlotOf(uint32_t device, uint64_t offset, uint32_t block_size) {
  // Consecutive blocks of a device in consecutive slots; devices apart.
  const uint64_t spread = uint64_t{device} * 0x9E3779B1u;
  return slots_[static_cast<size_t>((offset / block_size + spread) % slots_.size())];
}

void RecentBlocks::DropLocked(Slot* slot) {
  if (!slot->held) return;
  stats_.held_bytes -= slot->bytes.size();
  slot->held = false;
}

void RecentBlocks::Put(uint32_t device, uint64_t offset, const char* data, size_t n, uint32_t block_size,
                       bool written) {
  if (slots_.empty() || capacity_ < block_size || block_size == 0) return;
  std::lock_guard<std::mutex> l(mu_);
  if (device >= block_sizes_.size()) block_sizes_.resize(device + 1, 0);
  if (block_sizes_[device] != block_size) {
    // A block's slot depends on the block size: one per device (what a
    // device has), so a change forgets what the old size placed.
    if (block_sizes_[device] != 0) DropSlotsLocked(device, 0, UINT64_MAX);
    block_sizes_[device] = block_size;
  }
  if (written) written_clock_ += n;
  for (size_t done = 0; done + block_size <= n; done += block_size) {
    Slot& slot = SlotOf(device, offset + done, block_size);
    // Held: a zoned block does not change until its zone is reset (which
    // forgets it).
    if (slot.held && slot.device == device && slot.offset == offset + done) {
      if (written) slot.written_at = written_clock_;
      continue;
    }
    DropLocked(&slot);
    if (stats_.held_bytes + block_size > capacity_) continue;  // blocks larger than a slot
    slot.held = true;
    slot.written_at = written ? written_clock_ : 0;
    slot.device = device;
    slot.offset = offset + done;
    slot.bytes.assign(data + done, block_size);  // the slot's buffer, reused once warm
    stats_.held_bytes += block_size;
  }
}

bool RecentBlocks::Get(uint32_t device, uint64_t offset, size_t n, uint32_t block_size, char* dst) {
  std::lock_guard<std::mutex> l(mu_);
  const bool hit = CopyOutLocked(device, offset, n, block_size, /*written_only=*/false, dst);
  (hit ? stats_.hits : stats_.misses)++;
  return hit;
}

bool RecentBlocks::GetWritten(uint32_t device, uint64_t offset, size_t n, uint32_t block_size, char* dst) {
  if (reread_window_ == 0) return false;  // every store read of the slow tier passes here: no lock for nothing
  std::lock_guard<std::mutex> l(mu_);
  if (!CopyOutLocked(device, offset, n, block_size, /*written_only=*/true, dst)) return false;
  stats_.written_hits++;
  stats_.written_bytes += n;
  return true;
}

bool RecentBlocks::CopyOutLocked(uint32_t device, uint64_t offset, size_t n, uint32_t block_size,
                                 bool written_only, char* dst) {
  if (block_size == 0 || n == 0 || slots_.empty()) return false;
  const uint64_t first = offset / block_size * block_size;
  // Every block first, so that a miss leaves dst untouched.
  thread_local std::vector<const std::string*> blocks;
  blocks.clear();
  for (uint64_t at = first; at < offset + n; at += block_size) {
    const Slot& slot = SlotOf(device, at, block_size);
    if (!slot.held || slot.device != device || slot.offset != at || slot.bytes.size() != block_size ||
        (written_only && (slot.written_at == 0 || written_clock_ - slot.written_at >= reread_window_))) {
      return false;
    }
    blocks.push_back(&slot.bytes);
  }
  size_t done = 0;
  for (size_t i = 0; i < blocks.size(); i++) {
    const uint64_t block_start = first + i * block_size;
    const uint64_t from = std::max<uint64_t>(offset, block_start) - block_start;
    const size_t take = static_cast<size_t>(std::min<uint64_t>(block_size - from, n - done));
    std::memcpy(dst + done, blocks[i]->data() + from, take);
    done += take;
  }
  return true;
}

void RecentBlocks::Forget(uint32_t device, uint64_t from, uint64_t to) {
  std::lock_guard<std::mutex> l(mu_);
  if (to <= from) return;
  if (device >= block_sizes_.size() || block_sizes_[device] == 0) return;  // nothing held of it
  // The range is a zone: walk it block by block (in the device's block
  // size, which placed them) when it has fewer blocks than there are
  // slots, else walk the slots.
  const uint64_t step = block_sizes_[device];
  if ((to - from) / step < slots_.size()) {
    for (uint64_t at = from / step * step; at < to; at += step) {
      Slot& slot = SlotOf(device, at, step);
      if (slot.held && slot.device == device && slot.offset == at) DropLocked(&slot);
    }
    return;
  }
  DropSlotsLocked(device, from, to);
}

void RecentBlocks::DropSlotsLocked(uint32_t device, uint64_t from, uint64_t to) {
  for (Slot& slot : slots_) {
    if (slot.held && slot.device == device && slot.offset >= from && slot.offset < to) DropLocked(&slot);
  }
}

RecentBlocksStats RecentBlocks::stats() const {
  std::lock_guard<std::mutex> l(mu_);
  return stats_;
}

}  // namespace hintfs
