#include "placement/table_ledger.h"

#include <algorithm>

namespace hintfs {

void TableLedger::Expect(const std::string& path, int level) {
  if (level < 0 || level >= kMaxLevels || tables_.count(path) != 0) return;
  expected_[path] = level;
}

bool TableLedger::Landed(const std::string& path, Tier tier) {
  auto it = expected_.find(path);
  if (it == expected_.end()) return false;
  Table t{it->second, tier == Tier::kFast};
  tables_[path] = t;
  Count(t, +1);
  expected_.erase(it);
  return true;
}

void TableLedger::Found(const std::string& path, int level, Tier tier) {
  if (level < 0 || level >= kMaxLevels || tables_.count(path) != 0) return;
  Table t{level, tier == Tier::kFast};
  tables_[path] = t;
  Count(t, +1);
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
  if (expected != expected_.end()) expected->second = level;
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
  int64_t n = 0;
  for (int i = 0; i < kMaxLevels; i++) n += fast_[i];
  return n;
}

int64_t TableLedger::FastAmong(int level, const std::vector<std::string>& paths) const {
  int64_t n = 0;
  for (const std::string& path : paths) {
    auto it = tables_.find(path);
    if (it != tables_.end() && it->second.level == level && it->second.fast) n++;
  }
  return n;
}

void TableLedger::Count(const Table& t, int sign) {
  allocated_[t.level] = std::max<int64_t>(0, allocated_[t.level] + sign);
  if (t.fast) fast_[t.level] = std::max<int64_t>(0, fast_[t.level] + sign);
}

}  // namespace hintfs
