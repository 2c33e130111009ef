#include "placement/table_size.h"

#include <algorithm>
#include <vector>

namespace hintfs {

TableSize::TableSize(uint64_t configured_bytes)
    : configured_(configured_bytes != 0), bytes_(configured_bytes != 0 ? configured_bytes : kDefaultGuess) {}

void TableSize::Note(const Hint& hint) {
  if (configured_ || hint.kind != Hint::Kind::kCompactionOutput || hint.bytes == 0) return;
  std::lock_guard<std::mutex> l(mu_);
  seen_++;
  recent_.push_back(hint.bytes);
  if (recent_.size() > kWindow) recent_.pop_front();
  UpdateLocked();
}

void TableSize::NoteFastZone(uint64_t zone_capacity) {
  if (configured_ || zone_capacity == 0) return;
  std::lock_guard<std::mutex> l(mu_);
  if (fast_zone_ == zone_capacity) return;
  fast_zone_ = zone_capacity;
  UpdateLocked();
}

uint64_t TableSize::tables_seen() const {
  std::lock_guard<std::mutex> l(mu_);
  return seen_;
}

void TableSize::UpdateLocked() {
  if (recent_.empty()) {
    uint64_t guess = kDefaultGuess;
    if (fast_zone_ != 0) guess = std::min(guess, fast_zone_);
    bytes_.store(guess, std::memory_order_relaxed);
    return;
  }
  std::vector<uint64_t> sorted(recent_.begin(), recent_.end());
  auto middle = sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2);
  std::nth_element(sorted.begin(), middle, sorted.end());
  bytes_.store(std::max<uint64_t>(*middle, 1), std::memory_order_relaxed);
}

}  // namespace hintfs
