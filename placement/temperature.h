// RocksDB's own tiering on hintfs. RocksDB names the temperature of a file it
// creates (FileOptions::temperature: last_level_temperature for last-level
// tables, per-key placement's preclude_last_level_data_seconds); the plugin
// publishes it as a kFileTemperature hint before the file's first byte.
//
// TemperatureBook keeps what the store said per file, for any policy.
// TemperaturePolicy ("temperature") places by it alone, as a FileSystem
// built for RocksDB's tiered storage would: hot and unnamed files to the fast
// tier first, warm and cold ones to the slow tier (spilling to the fast tier
// only when the slow one is full: no write fails while there is room). It is
// what a user running RocksDB's native tiering would pick instead of hhzs;
// hhzs takes the same hints as an override of its own rules.
#ifndef HINTFS_PLACEMENT_TEMPERATURE_H_
#define HINTFS_PLACEMENT_TEMPERATURE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "fs/allocation.h"
#include "hints/hint_bus.h"
#include "placement/table_size.h"

namespace hintfs {

class TemperatureBook {
 public:
  explicit TemperatureBook(std::shared_ptr<HintBus> bus);
  ~TemperatureBook();
  TemperatureBook(const TemperatureBook&) = delete;
  TemperatureBook& operator=(const TemperatureBook&) = delete;

  // What the store said of the file at path (kUnknown if nothing, or if the
  // file was deleted since).
  Temperature Of(const std::string& path) const;
  // Whether t sends a file to the slow tier.
  static bool BelongsOnSlowTier(Temperature t) { return t == Temperature::kWarm || t == Temperature::kCold; }

 private:
  std::shared_ptr<HintBus> bus_;
  uint64_t subscription_ = 0;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Temperature> files_;
};

class TemperaturePolicy : public AllocationPolicy {
 public:
  explicit TemperaturePolicy(std::shared_ptr<HintBus> bus);
  ~TemperaturePolicy() override;

  std::string name() const override { return "temperature"; }
  ZoneRole RoleForNewFile(const std::string& path) override;
  bool MayUseReserve(const AllocationRequest& request) override;
  bool ZonePerFile(ZoneRole role, uint64_t zone_capacity) override;
  bool WritersShareZones(ZoneRole role) override;
  void ChooseDevices(const AllocationRequest& request, const std::vector<DeviceSpace>& devices,
                     std::vector<uint32_t>* order) override;
  uint64_t AskAgainAfter(const AllocationRequest& request, const DeviceSpace& device) override;
  // {"policy": "temperature", "placed": {"hot": n, "warm": n, "cold": n, "unknown": n}}
  // (files by the temperature they had at their first zone).
  std::string StateJson() const override;

 private:
  std::shared_ptr<HintBus> bus_;
  TemperatureBook book_;
  TableSize table_size_{0};
  uint64_t subscription_ = 0;
  mutable std::mutex mu_;
  uint64_t placed_[4] = {};
};

}  // namespace hintfs

#endif  // HINTFS_PLACEMENT_TEMPERATURE_H_
