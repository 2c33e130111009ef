#include "fs/recent_blocks.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <iterator>
#include <vector>

namespace hintfs {

RecentBlocks::RecentBlocks(uint64_t capacity_bytes) : capacity_(capacity_bytes) {}

void RecentBlocks::Put(uint32_t device, uint64_t offset, const char* data, size_t n, uint32_t block_size) {
  if (capacity_ < block_size || block_size == 0) return;
  std::lock_guard<std::mutex> l(mu_);
  if (device >= block_sizes_.size()) block_sizes_.resize(device + 1, 0);
  uint32_t& step = block_sizes_[device];
  step = step == 0 ? block_size : std::min(step, block_size);
  for (size_t done = 0; done + block_size <= n; done += block_size) {
    Key key{device, offset + done};
    // One hash walk: the slot is claimed now and pointed at the entry below.
    auto [at, added] = index_.try_emplace(key, order_.end());
    if (!added) {
      // Held: a zoned block does not change until its zone is reset (which
      // forgets it), so only its age is refreshed.
      order_.splice(order_.begin(), order_, at->second);
      continue;
    }
    if (stats_.held_bytes + block_size > capacity_ && !order_.empty()) {
      // Full: the oldest entry's node and buffer take the new block (every
      // slow read lands here; no allocation once warm).
      auto oldest = std::prev(order_.end());
      stats_.held_bytes -= oldest->bytes.size();
      index_.erase(oldest->key);
      order_.splice(order_.begin(), order_, oldest);
      oldest->key = key;
      oldest->bytes.assign(data + done, block_size);
    } else {
      order_.push_front(Entry{key, std::string(data + done, block_size)});
    }
    at->second = order_.begin();
    stats_.held_bytes += block_size;
  }
  while (stats_.held_bytes > capacity_) EraseLocked(std::prev(order_.end()));
}

bool RecentBlocks::Get(uint32_t device, uint64_t offset, size_t n, uint32_t block_size, char* dst) {
  if (block_size == 0 || n == 0) return false;
  const uint64_t first = offset / block_size * block_size;
  std::lock_guard<std::mutex> l(mu_);
  // Every block first, so that a miss leaves dst untouched.
  thread_local std::vector<const std::string*> blocks;
  blocks.clear();
  for (uint64_t at = first; at < offset + n; at += block_size) {
    auto it = index_.find(Key{device, at});
    if (it == index_.end()) {
      stats_.misses++;
      return false;
    }
    blocks.push_back(&it->second->bytes);
  }
  size_t done = 0;
  for (size_t i = 0; i < blocks.size(); i++) {
    const uint64_t block_start = first + i * block_size;
    const uint64_t from = std::max<uint64_t>(offset, block_start) - block_start;
    const size_t take = static_cast<size_t>(std::min<uint64_t>(block_size - from, n - done));
    std::memcpy(dst + done, blocks[i]->data() + from, take);
    done += take;
  }
  stats_.hits++;
  return true;
}

void RecentBlocks::Forget(uint32_t device, uint64_t from, uint64_t to) {
  std::lock_guard<std::mutex> l(mu_);
  if (to <= from) return;
  if (device >= block_sizes_.size() || block_sizes_[device] == 0) return;  // nothing held of it
  // The range is a zone: walk it block by block (in the device's blocks, as
  // Put stored them) when it has fewer blocks than are held, else walk what
  // is held.
  const uint64_t step = block_sizes_[device];
  if ((to - from) / step < order_.size()) {
    for (uint64_t at = from / step * step; at < to; at += step) {
      auto it = index_.find(Key{device, at});
      if (it != index_.end()) EraseLocked(it->second);
    }
    return;
  }
  for (auto it = order_.begin(); it != order_.end();) {
    auto entry = it++;
    if (entry->key.device == device && entry->key.offset >= from && entry->key.offset < to) EraseLocked(entry);
  }
}

void RecentBlocks::EraseLocked(std::list<Entry>::iterator it) {
  stats_.held_bytes -= it->bytes.size();
  index_.erase(it->key);
  order_.erase(it);
}

RecentBlocksStats RecentBlocks::stats() const {
  std::lock_guard<std::mutex> l(mu_);
  return stats_;
}

}  // namespace hintfs
