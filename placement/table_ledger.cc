#include "placement/table_ledger.h"

#include <algorithm>

namespace hintfs {

void TableLedger::SetSlotBytes(uint64_t bytes) {
  if (bytes == slot_bytes_) return;
  slot_bytes_ = bytes;
  for (auto& [path, t] : tables_) {
    Count(t, -1);
    t.parts = PartsOf(t.bytes);
    Count(t, +1);
  }
}

int64_t TableLedger::PartsOf(uint64_t bytes) const {
  // A table of half a slot or more keeps its zone (the filesystem packs only
  // files under half of theirs): a whole slot.
  if (bytes == 0 || slot_bytes_ == 0 || 2 * bytes >= slot_bytes_) return kSlotParts;
  const uint64_t parts = (bytes * kSlotParts + slot_bytes_ - 1) / slot_bytes_;
  return std::max<int64_t>(1, static_cast<int64_t>(parts));
}

void TableLedger::Expect(const std::string& path, int level) {
  if (level < 0 || level >= kMaxLevels || tables_.count(path) != 0) return;
  expected_[path].level = level;
}

bool TableLedger::Landed(const std::string& path, Tier tier) {
  auto it = expected_.find(path);
  if (it == expected_.end()) return false;
  Table t{it->second.level, tier == Tier::kFast, it->second.bytes, PartsOf(it->second.bytes)};
  tables_[path] = t;
  Count(t, +1);
  expected_.erase(it);
  return true;
}

void TableLedger::Found(const std::string& path, int level, Tier tier, uint64_t bytes) {
  if (level < 0 || level >= kMaxLevels || tables_.count(path) != 0) return;
  Table t{level, tier == Tier::kFast, bytes, PartsOf(bytes)};
  tables_[path] = t;
  Count(t, +1);
}

void TableLedger::Sized(const std::string& path, uint64_t bytes) {
  auto expected = expected_.find(path);
  if (expected != expected_.end()) expected->second.bytes = bytes;
  auto it = tables_.find(path);
  if (it == tables_.end()) return;
  Count(it->second, -1);
  it->second.bytes = bytes;
  it->second.parts = PartsOf(bytes);
  Count(it->second, +1);
}

void TableLedger::Moved(const std::string& path, Tier tier) {
  auto it = tables_.find(path);
  if (it == tables_.end()) return;
  Count(it->second, -1);
  it->second.fast = tier == Tier::kFast;
  Count(it->second, +1);
}

void TableLedger::Relevel(const std::string& path, int level) {
  if (level < 0 || level >= kMaxLevels) return;
  auto expected = expected_.find(path);
  if (expected != expected_.end()) expected->second.level = level;
  auto it = tables_.find(path);
  if (it == tables_.end() || it->second.level == level) return;
  Count(it->second, -1);
  it->second.level = level;
  Count(it->second, +1);
}

void TableLedger::Deleted(const std::string& path) {
  expected_.erase(path);
  auto it = tables_.find(path);
  if (it == tables_.end()) return;
  Count(it->second, -1);
  tables_.erase(it);
}

int64_t TableLedger::fast_total() const {
  int64_t parts = 0;
  for (int i = 0; i < kMaxLevels; i++) parts += fast_[i];
  return Slots(parts);
}

int64_t TableLedger::FastLargerThan(uint64_t bytes) const {
  int64_t n = 0;
  for (const auto& [path, t] : tables_) n += t.fast && t.bytes > bytes ? 1 : 0;
  return n;
}

int64_t TableLedger::FastAmong(int level, const std::vector<std::string>& paths) const {
  int64_t parts = 0;
  for (const std::string& path : paths) {
    auto it = tables_.find(path);
    if (it != tables_.end() && it->second.level == level && it->second.fast) parts += it->second.parts;
  }
  return Slots(parts);
}

void TableLedger::Count(const Table& t, int sign) {
  allocated_[t.level] = std::max<int64_t>(0, allocated_[t.level] + sign * t.parts);
  if (!t.fast) return;
  fast_[t.level] = std::max<int64_t>(0, fast_[t.level] + sign * t.parts);
  fast_tables_ = std::max<int64_t>(0, fast_tables_ + sign);
}

}  // namespace hintfs
