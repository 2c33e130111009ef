#include "fs/device/emulated_device.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <random>

#include <fmt/format.h>

#include "fs/device/emulated_state.h"

namespace hintfs {

using emulated::Backing;
using emulated::DeviceState;
using emulated::IsOpenCondition;
using emulated::ZoneState;

namespace {

// ---------------------------------------------------------------- memory

struct MemStore {
  std::shared_ptr<DeviceState> state;
  std::mutex data_mu;  // guards the pointers in data, not the bytes
  // Per zone, allocated at the zone's capacity on its first write and freed
  // at reset, so bytes are copied without a lock: reads touch only bytes
  // below the write pointer, writes only bytes above it.
  std::vector<std::unique_ptr<char[]>> data;
};

std::mutex g_mem_mu;
std::map<std::string, std::shared_ptr<MemStore>>& MemDevices() {
  static auto* devices = new std::map<std::string, std::shared_ptr<MemStore>>();
  return *devices;
}

class MemBacking : public Backing {
 public:
  explicit MemBacking(std::shared_ptr<MemStore> store) : store_(std::move(store)) {}

  Status ReadData(uint64_t offset, size_t n, char* buf) override {
    const uint64_t zone_size = store_->state->geometry.zone_size;
    while (n > 0) {
      uint32_t zone = static_cast<uint32_t>(offset / zone_size);
      uint64_t in_zone = offset % zone_size;
      size_t chunk = static_cast<size_t>(std::min<uint64_t>(n, zone_size - in_zone));
      const char* z = Zone(zone, /*allocate=*/false);
      if (z == nullptr) {
        std::memset(buf, 0, chunk);
      } else {
        std::memcpy(buf, z + in_zone, chunk);
      }
      buf += chunk;
      offset += chunk;
      n -= chunk;
    }
    return Status::OK();
  }

  Status WriteData(uint64_t offset, const char* data, size_t n) override {
    const uint64_t zone_size = store_->state->geometry.zone_size;
    uint32_t zone = static_cast<uint32_t>(offset / zone_size);
    std::memcpy(Zone(zone, /*allocate=*/true) + offset % zone_size, data, n);
    return Status::OK();
  }

  Status DiscardZone(uint32_t zone) override {
    std::lock_guard<std::mutex> l(store_->data_mu);
    store_->data[zone].reset();
    return Status::OK();
  }

  const char* View(uint64_t offset, size_t n) override {
    const uint64_t zone_size = store_->state->geometry.zone_size;
    const uint64_t in_zone = offset % zone_size;
    if (in_zone + n > zone_size) return nullptr;  // spans zones
    const char* z = Zone(static_cast<uint32_t>(offset / zone_size), /*allocate=*/false);
    return z == nullptr ? nullptr : z + in_zone;
  }

  Status PersistZone(uint32_t, const ZoneState&) override { return Status::OK(); }
  Status PersistPowerCycles(uint64_t) override { return Status::OK(); }
  Status Sync() override { return Status::OK(); }

 private:
  char* Zone(uint32_t zone, bool allocate) {
    std::lock_guard<std::mutex> l(store_->data_mu);
    auto& z = store_->data[zone];
    if (!z && allocate) {
      z.reset(new char[store_->state->geometry.zone_capacity]);
    }
    return z.get();
  }

  std::shared_ptr<MemStore> store_;
};

// ---------------------------------------------------------------- device

class EmulatedDevice : public ZonedDevice {
 public:
  EmulatedDevice(std::string uri, std::shared_ptr<DeviceState> state,
                 std::unique_ptr<Backing> backing)
      : uri_(std::move(uri)), state_(std::move(state)), backing_(std::move(backing)) {}

  std::string uri() const override { return uri_; }
  const DeviceGeometry& geometry() const override { return state_->geometry; }
  uint64_t power_cycles() const override {
    std::lock_guard<std::mutex> l(state_->mu);
    return state_->power_cycles;
  }

  Status ReportZones(uint32_t first, uint32_t count, std::vector<ZoneInfo>* zones) override {
    std::lock_guard<std::mutex> l(state_->mu);
    const DeviceGeometry& g = state_->geometry;
    if (first >= g.zone_count || count > g.zone_count - first) {
      return Status::InvalidArgument(fmt::format("zone report [{}, +{}) beyond {} zones", first,
                                                 count, g.zone_count));
    }
    zones->clear();
    for (uint32_t z = first; z < first + count; z++) zones->push_back(InfoLocked(z));
    return Status::OK();
  }

  Status Read(uint64_t offset, size_t n, char* buf) override {
    if (n == 0) return CheckPoweredNow();
    Status s = CheckReadable(offset, n);
    if (!s.ok()) return s;
    return backing_->ReadData(offset, n, buf);
  }

  const char* ReadView(uint64_t offset, size_t n) override {
    if (n == 0 || !CheckReadable(offset, n).ok()) return nullptr;
    return backing_->View(offset, n);
  }

  // Read's rules: powered, inside the device, below every write pointer the
  // range crosses, no offline zone.
  Status CheckReadable(uint64_t offset, size_t n) {
    {
      std::lock_guard<std::mutex> l(state_->mu);
      Status s = CheckPowered();
      if (!s.ok()) return s;
      const DeviceGeometry& g = state_->geometry;
      if (offset >= g.capacity_bytes() || n > g.capacity_bytes() - offset) {
        return Status::InvalidArgument(fmt::format("read [{}, +{}) beyond device end", offset, n));
      }
      // Every zone the read touches must hold written data over the range.
      for (uint64_t pos = offset; pos < offset + n;) {
        uint32_t z = static_cast<uint32_t>(pos / g.zone_size);
        uint64_t zone_end = g.zone_start(z) + g.zone_size;
        uint64_t end = std::min<uint64_t>(offset + n, zone_end);
        ZoneInfo info = InfoLocked(z);
        if (info.condition == ZoneCondition::kOffline) {
          return Status::IOError(fmt::format("read of offline zone {}", z));
        }
        uint64_t readable_end = info.is_sequential() ? info.write_pointer : info.start + info.capacity;
        if (end > readable_end) {
          return Status::InvalidArgument(fmt::format(
              "read [{}, {}) past the write pointer {} of zone {}", pos, end, readable_end, z));
        }
        pos = end;
      }
    }
    return Status::OK();
  }

  Status CheckPoweredNow() {
    std::lock_guard<std::mutex> l(state_->mu);
    return CheckPowered();
  }

  Status Write(uint64_t offset, const char* data, size_t n) override {
    uint32_t zone = static_cast<uint32_t>(offset / state_->geometry.zone_size);
    if (zone >= state_->geometry.zone_count) {
      return Status::InvalidArgument(fmt::format("write at {} beyond the device", offset));
    }
    std::lock_guard<std::mutex> zl(state_->zone_write_mu[zone]);
    return WriteZone(zone, offset, data, n);
  }

  Status Append(uint32_t zone, const char* data, size_t n, uint64_t* written_offset) override {
    if (zone >= state_->geometry.zone_count) {
      return Status::InvalidArgument(fmt::format("zone {} beyond {} zones", zone, state_->geometry.zone_count));
    }
    std::lock_guard<std::mutex> zl(state_->zone_write_mu[zone]);
    uint64_t offset;
    {
      std::lock_guard<std::mutex> l(state_->mu);
      Status s = CheckZone(zone);
      if (!s.ok()) return s;
      if (zone < state_->geometry.conventional_zones) {
        return Status::InvalidArgument(fmt::format("zone append to conventional zone {}", zone));
      }
      offset = state_->geometry.zone_start(zone) + state_->zones[zone].wp;
    }
    Status s = WriteZone(zone, offset, data, n);
    if (s.ok()) *written_offset = offset;
    return s;
  }

  Status OpenZone(uint32_t zone) override {
    std::lock_guard<std::mutex> l(state_->mu);
    Status s = CheckSequential(zone, "open");
    if (!s.ok()) return s;
    ZoneState& z = state_->zones[zone];
    switch (z.condition) {
      case ZoneCondition::kExplicitOpen: return Status::OK();
      case ZoneCondition::kImplicitOpen: z.condition = ZoneCondition::kExplicitOpen; break;
      case ZoneCondition::kEmpty:
      case ZoneCondition::kClosed:
        s = MakeRoomToOpen(zone, z.condition == ZoneCondition::kEmpty);
        if (!s.ok()) return s;
        z.condition = ZoneCondition::kExplicitOpen;
        break;
      default: return InvalidTransition(zone, "open");
    }
    return backing_->PersistZone(zone, z);
  }

  Status CloseZone(uint32_t zone) override {
    std::lock_guard<std::mutex> l(state_->mu);
    Status s = CheckSequential(zone, "close");
    if (!s.ok()) return s;
    ZoneState& z = state_->zones[zone];
    if (z.condition == ZoneCondition::kEmpty || z.condition == ZoneCondition::kClosed) {
      return Status::OK();
    }
    if (!IsOpenCondition(z.condition)) return InvalidTransition(zone, "close");
    z.condition = z.wp == 0 ? ZoneCondition::kEmpty : ZoneCondition::kClosed;
    return backing_->PersistZone(zone, z);
  }

  Status FinishZone(uint32_t zone) override {
    if (zone >= state_->geometry.zone_count) return CheckZone(zone);
    std::lock_guard<std::mutex> zl(state_->zone_write_mu[zone]);
    std::lock_guard<std::mutex> l(state_->mu);
    Status s = CheckSequential(zone, "finish");
    if (!s.ok()) return s;
    ZoneState& z = state_->zones[zone];
    if (z.condition == ZoneCondition::kFull) return Status::OK();
    if (z.condition == ZoneCondition::kReadOnly) return InvalidTransition(zone, "finish");
    z.condition = ZoneCondition::kFull;
    z.wp = state_->geometry.zone_capacity;
    // A finish is a zone management command: durable on completion.
    z.durable_wp = z.wp;
    return backing_->PersistZone(zone, z);
  }

  Status ResetZone(uint32_t zone) override {
    if (zone >= state_->geometry.zone_count) return CheckZone(zone);
    std::lock_guard<std::mutex> zl(state_->zone_write_mu[zone]);
    std::lock_guard<std::mutex> l(state_->mu);
    Status s = CheckSequential(zone, "reset");
    if (!s.ok()) return s;
    ZoneState& z = state_->zones[zone];
    if (z.condition == ZoneCondition::kReadOnly) return InvalidTransition(zone, "reset");
    const uint64_t resets = z.resets + 1;
    z = ZoneState();
    z.resets = resets;
    s = backing_->DiscardZone(zone);
    if (!s.ok()) return s;
    return backing_->PersistZone(zone, z);
  }

  Status Flush() override {
    // Write pointers advance only after their bytes were handed to the
    // backing, so the sync covers every byte below the ones seen here.
    std::vector<ZoneState> seen;
    {
      std::lock_guard<std::mutex> l(state_->mu);
      Status s = CheckPowered();
      if (!s.ok()) return s;
      seen = state_->zones;
    }
    // Unlocked: a host fdatasync can take a long time, and reads and writes
    // of other zones (and of this one) must not queue behind it.
    Status s = backing_->Sync();
    if (!s.ok()) return s;
    std::lock_guard<std::mutex> l(state_->mu);
    s = CheckPowered();
    if (!s.ok()) return s;
    for (size_t i = 0; i < seen.size(); i++) {
      ZoneState& z = state_->zones[i];
      // A zone reset meanwhile holds new bytes below the old pointer that
      // this sync may have missed.
      if (z.resets == seen[i].resets) z.durable_wp = std::max(z.durable_wp, seen[i].wp);
    }
    return Status::OK();
  }

  Status SimulatePowerLoss(uint64_t seed) override {
    if (!backing_->simulates_power_loss()) return ZonedDevice::SimulatePowerLoss(seed);
    std::lock_guard<std::mutex> l(state_->mu);
    // Counted, so that what lived in host memory meanwhile can tell it is stale.
    state_->power_cycles++;
    Status counted = backing_->PersistPowerCycles(state_->power_cycles);
    if (!counted.ok()) return counted;
    std::mt19937_64 rng(seed);
    const DeviceGeometry& g = state_->geometry;
    for (uint32_t zone = g.conventional_zones; zone < g.zone_count; zone++) {
      ZoneState& z = state_->zones[zone];
      if (z.wp > z.durable_wp) {
        // Any block-aligned prefix of the unflushed writes may have reached media.
        uint64_t blocks = (z.wp - z.durable_wp) / g.block_size;
        z.wp = z.durable_wp + (rng() % (blocks + 1)) * g.block_size;
      }
      // Power cycling closes every open zone.
      if (z.wp == 0 && z.condition != ZoneCondition::kReadOnly &&
          z.condition != ZoneCondition::kOffline) {
        z.condition = ZoneCondition::kEmpty;
      } else if (IsOpenCondition(z.condition) ||
                 (z.condition == ZoneCondition::kFull && z.wp < g.zone_capacity)) {
        z.condition = ZoneCondition::kClosed;
      }
      Status s = backing_->PersistZone(zone, z);
      if (!s.ok()) return s;
    }
    powered_off_ = true;
    return Status::OK();
  }

 private:
  Status CheckPowered() const {
    if (powered_off_) return Status::IOError("device lost power; reopen it");
    return Status::OK();
  }

  Status CheckZone(uint32_t zone) const {
    Status s = CheckPowered();
    if (!s.ok()) return s;
    if (zone >= state_->geometry.zone_count) {
      return Status::InvalidArgument(fmt::format("zone {} beyond {} zones", zone,
                                                 state_->geometry.zone_count));
    }
    return Status::OK();
  }

  Status CheckSequential(uint32_t zone, const char* op) const {
    Status s = CheckZone(zone);
    if (!s.ok()) return s;
    if (zone < state_->geometry.conventional_zones) {
      return Status::InvalidArgument(fmt::format("zone {} {}: conventional zone", op, zone));
    }
    if (state_->zones[zone].condition == ZoneCondition::kOffline) {
      return Status::IOError(fmt::format("zone {} {}: zone is offline", op, zone));
    }
    return Status::OK();
  }

  Status InvalidTransition(uint32_t zone, const char* op) const {
    return Status::InvalidArgument(fmt::format("zone {} {}: invalid in condition {}", op, zone,
                                               ZoneConditionName(state_->zones[zone].condition)));
  }

  ZoneInfo InfoLocked(uint32_t zone) const {
    const DeviceGeometry& g = state_->geometry;
    ZoneInfo info;
    info.index = zone;
    info.start = g.zone_start(zone);
    info.size = g.zone_size;
    info.capacity = g.zone_capacity;
    if (zone < g.conventional_zones) {
      info.type = ZoneType::kConventional;
      info.condition = ZoneCondition::kNotWritePointer;
      info.write_pointer = info.start;
    } else {
      info.type = ZoneType::kSequentialWriteRequired;
      info.condition = state_->zones[zone].condition;
      info.write_pointer = info.start + state_->zones[zone].wp;
    }
    return info;
  }

  void CountZones(uint32_t* open, uint32_t* active) const {
    *open = *active = 0;
    for (const ZoneState& z : state_->zones) {
      if (IsOpenCondition(z.condition)) ++*open;
      if (IsActiveCondition(z.condition)) ++*active;
    }
  }

  // Ensures a zone may become open (and active, if it is empty), implicitly
  // closing an implicitly opened zone when the open limit is reached, as
  // ZNS controllers do.
  Status MakeRoomToOpen(uint32_t zone, bool needs_active) {
    const DeviceGeometry& g = state_->geometry;
    uint32_t open = 0, active = 0;
    CountZones(&open, &active);
    if (needs_active && g.max_active_zones != 0 && active >= g.max_active_zones) {
      return Status::Busy(fmt::format("zone {}: too many active zones (max {})", zone,
                                      g.max_active_zones));
    }
    if (g.max_open_zones != 0 && open >= g.max_open_zones) {
      for (uint32_t z = g.conventional_zones; z < g.zone_count; z++) {
        ZoneState& victim = state_->zones[z];
        if (victim.condition == ZoneCondition::kImplicitOpen) {
          victim.condition = ZoneCondition::kClosed;
          return backing_->PersistZone(z, victim);
        }
      }
      return Status::Busy(fmt::format("zone {}: too many open zones (max {})", zone,
                                      g.max_open_zones));
    }
    return Status::OK();
  }

  // Caller holds the zone's write lock.
  Status WriteZone(uint32_t zone, uint64_t offset, const char* data, size_t n) {
    {
      std::lock_guard<std::mutex> l(state_->mu);
      Status s = CheckWritable(zone, offset, n);
      if (!s.ok()) return s;
      if (zone < state_->geometry.conventional_zones) return backing_->WriteData(offset, data, n);
    }
    // The bytes land above the write pointer, where no read may look yet.
    Status s = backing_->WriteData(offset, data, n);
    if (!s.ok()) return s;
    std::lock_guard<std::mutex> l(state_->mu);
    if (powered_off_) return Status::IOError("device lost power; reopen it");
    ZoneState& z = state_->zones[zone];
    z.wp += n;
    if (z.wp == state_->geometry.zone_capacity) z.condition = ZoneCondition::kFull;
    return backing_->PersistZone(zone, z);
  }

  // Checks a write against the zone rules and opens the zone for it.
  Status CheckWritable(uint32_t zone, uint64_t offset, size_t n) {
    Status s = CheckZone(zone);
    if (!s.ok()) return s;
    const DeviceGeometry& g = state_->geometry;
    if (offset % g.block_size != 0 || n % g.block_size != 0 || n == 0) {
      return Status::InvalidArgument(fmt::format(
          "write [{}, +{}) not aligned to the {}-byte block size", offset, n, g.block_size));
    }
    uint64_t zone_start = g.zone_start(zone);
    uint64_t rel = offset - zone_start;
    if (rel + n > g.zone_capacity) {
      return Status::InvalidArgument(fmt::format(
          "write [{}, +{}) crosses the capacity of zone {}", offset, n, zone));
    }
    if (zone < g.conventional_zones) return Status::OK();
    ZoneState& z = state_->zones[zone];
    switch (z.condition) {
      case ZoneCondition::kFull:
        return Status::InvalidArgument(fmt::format("write to full zone {}", zone));
      case ZoneCondition::kReadOnly:
        return Status::IOError(fmt::format("write to read-only zone {}", zone), EROFS);
      case ZoneCondition::kOffline:
        return Status::IOError(fmt::format("write to offline zone {}", zone));
      default: break;
    }
    if (rel != z.wp) {
      return Status::InvalidArgument(fmt::format(
          "write at {} not at the write pointer {} of zone {}", offset, zone_start + z.wp, zone));
    }
    if (!IsOpenCondition(z.condition)) {
      s = MakeRoomToOpen(zone, z.condition == ZoneCondition::kEmpty);
      if (!s.ok()) return s;
      z.condition = ZoneCondition::kImplicitOpen;
    }
    return Status::OK();
  }

  std::string uri_;
  std::shared_ptr<DeviceState> state_;
  std::unique_ptr<Backing> backing_;
  bool powered_off_ = false;
};

}  // namespace

namespace emulated {
std::unique_ptr<ZonedDevice> NewLogicalZoneDevice(std::string uri, std::shared_ptr<DeviceState> state,
                                                  std::unique_ptr<Backing> backing) {
  return std::make_unique<EmulatedDevice>(std::move(uri), std::move(state), std::move(backing));
}
}  // namespace emulated

Status OpenEmulatedDevice(const DeviceUri& uri, bool create, std::unique_ptr<ZonedDevice>* device,
                          StoredProfile* profile) {
  if (uri.scheme == "file") {
    std::shared_ptr<DeviceState> state;
    std::unique_ptr<Backing> backing;
    Status s = emulated::OpenImage(uri, create, &state, &backing);
    if (!s.ok()) return s;
    *profile = state->profile;
    *device = emulated::NewLogicalZoneDevice("file:" + uri.path, state, std::move(backing));
    return Status::OK();
  }
  if (uri.scheme != "mem") return Status::InvalidArgument("not an emulated device: " + uri.scheme);
  std::lock_guard<std::mutex> l(g_mem_mu);
  auto& devices = MemDevices();
  auto it = devices.find(uri.path);
  std::shared_ptr<MemStore> store;
  if (it == devices.end()) {
    if (!create) return Status::NotFound("mem:" + uri.path + ": no such memory device");
    store = std::make_shared<MemStore>();
    store->state = std::make_shared<DeviceState>();
    Status s = emulated::GeometryFromUri(uri, &store->state->geometry);
    if (!s.ok()) return s;
    store->state->profile.name = uri.GetString("profile", "");
    s = uri.GetDouble("profile_scale", 1.0, &store->state->profile.scale);
    if (!s.ok()) return s;
    const DeviceGeometry& g = store->state->geometry;
    store->state->zones.resize(g.zone_count);
    store->state->zone_write_mu.reset(new std::mutex[g.zone_count]);
    for (uint32_t z = 0; z < g.conventional_zones; z++) {
      store->state->zones[z].condition = ZoneCondition::kNotWritePointer;
    }
    store->data.resize(g.zone_count);
    devices[uri.path] = store;
  } else {
    store = it->second;
    Status s = emulated::CheckGeometryMatches(uri, store->state->geometry);
    if (!s.ok()) return s;
  }
  *profile = store->state->profile;
  device->reset(new EmulatedDevice("mem:" + uri.path, store->state,
                                   std::make_unique<MemBacking>(store)));
  return Status::OK();
}

void DestroyMemDevice(const std::string& name) {
  std::lock_guard<std::mutex> l(g_mem_mu);
  MemDevices().erase(name);
}

}  // namespace hintfs