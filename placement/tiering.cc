#include "placement/tiering.h"

#include <algorithm>
#include <map>
#include <vector>

#include <fmt/format.h>

namespace hintfs {

TieringSource* TieringOf(AllocationPolicy* policy) {
  // A capability query: policies that tier derive from both interfaces; a
  // decorator tiers as the policy it wraps.
  if (auto* wrapper = dynamic_cast<AllocationPolicyWrapper*>(policy); wrapper != nullptr) {
    return TieringOf(wrapper->target());
  }
  return dynamic_cast<TieringSource*>(policy);
}

bool MovedReadSavesMuch(double fast_read_us, double slow_read_us) {
  if (fast_read_us <= 0 || slow_read_us <= 0) return true;
  return slow_read_us - fast_read_us >= 4 * fast_read_us;
}

std::string ResolveCacheAdmission(const std::string& configured, bool blocks_take_room) {
  if (configured != "auto") return configured;
  return blocks_take_room ? "off" : "all";
}

Status CheckCacheOption(const std::string& key, const std::string& value) {
  static const std::map<std::string, std::vector<std::string>> kValues{
      {"cache", {"off", "auto", "all", "cbf", "expsmooth"}},
      {"cache_room", {"budget", "free", "auto"}},
  };
  auto it = kValues.find(key);
  if (it == kValues.end()) return Status::InvalidArgument(fmt::format("'{}' is not a cache option", key));
  const std::vector<std::string>& values = it->second;
  if (std::find(values.begin(), values.end(), value) != values.end()) return Status::OK();
  std::string listed;
  for (size_t i = 0; i < values.size(); i++) {
    listed += (i == 0 ? "" : i + 1 == values.size() ? " or " : ", ") + values[i];
  }
  return Status::InvalidArgument(fmt::format("{} is {}, not '{}'", key, listed, value));
}

bool CacheBorrowsFreeZones(const std::string& cache_room, const std::string& configured_cache) {
  if (cache_room == "free") return true;
  if (cache_room == "budget") return false;
  return configured_cache == "auto";
}

bool BlocksTakeRoomFromTables(double fast_read_us, double slow_read_us) {
  return MovedReadSavesMuch(fast_read_us, slow_read_us);
}

bool ResolveMigration(bool configured, bool automatic, bool block_tiering, double fast_read_us,
                      double slow_read_us) {
  if (!configured) return false;
  if (!automatic || !block_tiering) return true;
  return MovedReadSavesMuch(fast_read_us, slow_read_us);
}

uint64_t ResolveWalBudget(uint64_t configured, uint64_t zone_capacity, uint64_t fast_bytes) {
  if (configured != kWalBudgetFromDevice) return configured;
  uint64_t quarter = std::max(fast_bytes / 4, zone_capacity);
  return std::min(2 * zone_capacity, quarter);
}

std::string TablesOutgrowZones(int64_t oversized, int64_t fast_tables, uint64_t fast_zones, uint64_t zone_bytes) {
  if (oversized < 2 || static_cast<uint64_t>(oversized) * 8 < fast_zones) return "";
  constexpr double kMiB = 1 << 20;
  return fmt::format(
      "{} of the {} tables on the fast tier are larger than a zone ({:.1f} MiB): each takes part of a second zone, "
      "which no table slot counts; size the store's tables to at most a zone (RocksDB 7.8 and later: also "
      "level_compaction_dynamic_file_size=false)",
      oversized, fast_tables, static_cast<double>(zone_bytes) / kMiB);
}

std::string FastTierUnusable(uint64_t fast_bytes, uint64_t budget_bytes, uint64_t table_bytes) {
  if (fast_bytes == 0 || table_bytes == 0) return "";
  if (fast_bytes > budget_bytes && (fast_bytes - budget_bytes) / table_bytes > 0) return "";
  constexpr double kMiB = 1 << 20;
  return fmt::format(
      "the fast tier ({:.1f} MiB) has no room for a table of {:.1f} MiB once {:.1f} MiB are held for the WAL "
      "and the cache: every table goes to the slow tier (lower the policy's wal_budget, cache_budget or "
      "table_bytes, or leave them unset)",
      static_cast<double>(fast_bytes) / kMiB, static_cast<double>(table_bytes) / kMiB,
      static_cast<double>(budget_bytes) / kMiB);
}

}  // namespace hintfs
