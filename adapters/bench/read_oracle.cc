#include "adapters/bench/read_oracle.h"

#include <algorithm>
#include <cmath>

namespace hintfs {

size_t ReadOracle::AddTable(uint64_t number, int level, uint64_t file_bytes, std::vector<OracleBlock> blocks) {
  std::vector<double> reads(blocks.size(), 0.0);
  tables_.push_back(Table{number, level, file_bytes, std::move(blocks), std::move(reads)});
  return tables_.size() - 1;
}

bool ReadOracle::Shallower(size_t a, size_t b) const {
  const Table& x = tables_[a];
  const Table& y = tables_[b];
  return x.level != y.level ? x.level < y.level : x.number > y.number;
}

void ReadOracle::AddKey(std::string_view key, size_t table, size_t block) {
  auto [it, fresh] = keys_.try_emplace(std::string(key), Location{table, block});
  if (!fresh && Shallower(table, it->second.table)) it->second = Location{table, block};
}

void ReadOracle::AddRecordReads(std::string_view key, uint64_t record_bytes, double reads) {
  auto it = keys_.find(std::string(key));
  if (it == keys_.end()) {
    memory_reads_ += reads;
    return;
  }
  tables_[it->second.table].block_reads[it->second.block] += reads;
  records_.push_back(Record{record_bytes, reads, it->second});
}

size_t ReadOracle::KeepHottestInMemory(uint64_t cache_bytes) {
  std::vector<std::pair<double, Location>> blocks;  // reads, where
  for (size_t t = 0; t < tables_.size(); t++) {
    for (size_t b = 0; b < tables_[t].blocks.size(); b++) {
      if (tables_[t].block_reads[b] > 0) blocks.push_back({tables_[t].block_reads[b], Location{t, b}});
    }
  }
  std::sort(blocks.begin(), blocks.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  std::vector<std::vector<bool>> cached(tables_.size());
  for (size_t t = 0; t < tables_.size(); t++) cached[t].assign(tables_[t].blocks.size(), false);
  size_t held = 0;
  uint64_t left = cache_bytes;
  for (const auto& [reads, at] : blocks) {
    const uint64_t bytes = tables_[at.table].blocks[at.block].bytes;
    if (bytes > left) break;  // an LRU holds the most recent, not the ones that happen to fit
    left -= bytes;
    cached[at.table][at.block] = true;
    memory_reads_ += reads;
    tables_[at.table].block_reads[at.block] = 0;
    held++;
  }
  std::vector<Record> on_devices;
  for (const Record& r : records_) {
    if (!cached[r.where.table][r.where.block]) on_devices.push_back(r);
  }
  records_.swap(on_devices);
  return held;
}

double ReadOracle::DeviceReads() const {
  double sum = 0;
  for (const Record& r : records_) sum += r.reads;
  return sum;
}

double HottestThatFit(std::vector<std::pair<uint64_t, double>> items, uint64_t capacity) {
  // Densest first; an item of no bytes is free.
  std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) {
    return a.second * static_cast<double>(b.first) > b.second * static_cast<double>(a.first);
  });
  double taken = 0;
  uint64_t left = capacity;
  for (const auto& [bytes, reads] : items) {
    if (bytes > left) continue;
    left -= bytes;
    taken += reads;
  }
  return taken;
}

std::vector<OracleShares> ReadOracle::Shares(const std::vector<uint64_t>& fast_bytes) const {
  std::vector<std::pair<uint64_t, double>> tables, blocks, records;
  for (const Table& t : tables_) {
    double sum = 0;
    for (size_t b = 0; b < t.blocks.size(); b++) {
      blocks.emplace_back(t.blocks[b].bytes, t.block_reads[b]);
      sum += t.block_reads[b];
    }
    tables.emplace_back(t.file_bytes, sum);
  }
  for (const Record& r : records_) records.emplace_back(r.bytes, r.reads);
  double total = DeviceReads();
  std::vector<OracleShares> out;
  for (uint64_t capacity : fast_bytes) {
    OracleShares s{capacity, 0, 0, 0};
    if (total > 0) {
      // (Sums in another order can pass the total by a rounding error.)
      auto slow = [&](const std::vector<std::pair<uint64_t, double>>& items) {
        return std::max(0.0, 1 - HottestThatFit(items, capacity) / total);
      };
      s.tables = slow(tables);
      s.blocks = slow(blocks);
      s.records = slow(records);
    }
    out.push_back(s);
  }
  return out;
}

double ReadOracle::StartSlowShare() const { return Online(1, RunMix{}).placed_share; }

OnlineBound ReadOracle::Online(uint64_t ops, const RunMix& mix) const {
  OnlineBound bound;
  const double n = static_cast<double>(ops);
  const double reads = mix.read + mix.read_modify_write, writes = mix.update + mix.read_modify_write;
  const double touches = reads + mix.update;
  if (ops == 0 || reads <= 0) return bound;
  // Per record picked with probability p per operation: its device reads
  // are the reads before its first write, r p (1 - (1 - w p)^n) / (w p)
  // (r p n without writes); it is read from a device at all when the first
  // operation that picks it reads, (1 - (1 - t p)^n) r / t.
  std::vector<std::vector<double>> never_read(tables_.size());  // per block: log P(no device read)
  for (size_t t = 0; t < tables_.size(); t++) never_read[t].assign(tables_[t].blocks.size(), 0.0);
  double placed_slow = 0;
  for (const Record& r : records_) {
    const double p = std::min(r.reads, 1.0);
    if (p <= 0) continue;
    const double expected =
        writes > 0 ? reads / writes * -std::expm1(n * std::log1p(-std::min(writes * p, 1.0 - 1e-15))) : reads * p * n;
    const double read_at_all = -std::expm1(n * std::log1p(-std::min(touches * p, 1.0 - 1e-15))) * reads / touches;
    bound.device_reads += expected;
    if (tables_[r.where.table].blocks[r.where.block].slow) placed_slow += expected;
    never_read[r.where.table][r.where.block] += std::log1p(-std::min(read_at_all, 1.0 - 1e-15));
  }
  if (bound.device_reads <= 0) return bound;
  double distinct_slow = 0;
  for (size_t t = 0; t < tables_.size(); t++) {
    for (size_t b = 0; b < tables_[t].blocks.size(); b++) {
      if (tables_[t].blocks[b].slow) distinct_slow += -std::expm1(never_read[t][b]);
    }
  }
  bound.placed_share = std::min(1.0, placed_slow / bound.device_reads);
  bound.online_share = std::min(1.0, distinct_slow / bound.device_reads);
  return bound;
}

std::map<int, LevelReads> ReadOracle::Levels() const {
  std::map<int, LevelReads> levels;
  double total = DeviceReads();
  for (const Table& t : tables_) {
    LevelReads& l = levels[t.level];
    l.tables++;
    l.bytes += t.file_bytes;
    double sum = 0;
    for (double r : t.block_reads) sum += r;
    if (total > 0) l.read_share += sum / total;
  }
  return levels;
}

std::vector<TableReads> ReadOracle::HottestTables(size_t n) const {
  double total = DeviceReads();
  std::vector<TableReads> out;
  for (const Table& t : tables_) {
    TableReads r{t.number, t.level, t.file_bytes, 0, 0};
    uint64_t data = 0, slow = 0;
    for (size_t b = 0; b < t.blocks.size(); b++) {
      data += t.blocks[b].bytes;
      slow += t.blocks[b].slow ? t.blocks[b].bytes : 0;
      r.read_share += total > 0 ? t.block_reads[b] / total : 0;
    }
    r.slow_bytes_share = data > 0 ? static_cast<double>(slow) / static_cast<double>(data) : 0;
    out.push_back(r);
  }
  auto density = [](const TableReads& r) { return r.bytes > 0 ? r.read_share / static_cast<double>(r.bytes) : 0; };
  std::sort(out.begin(), out.end(), [&](const TableReads& a, const TableReads& b) { return density(a) > density(b); });
  if (out.size() > n) out.resize(n);
  return out;
}

double ReadOracle::MemoryShare() const {
  double all = memory_reads_ + DeviceReads();
  return all > 0 ? memory_reads_ / all : 0;
}

}  // namespace hintfs
