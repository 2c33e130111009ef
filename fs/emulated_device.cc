#include "fs/emulated_device.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <random>

#include <fmt/format.h>

#include "fs/coding.h"
#include "fs/crc32c.h"

namespace hintfs {

namespace {

constexpr char kImageMagic[8] = {'H', 'Z', 'D', 'E', 'V', 'I', 'M', 'G'};
constexpr uint32_t kImageVersion = 1;
constexpr uint64_t kHeaderSize = 4096;
constexpr uint64_t kZoneEntrySize = 16;
constexpr uint64_t kDataAlignment = 1 << 20;
constexpr uint32_t kMaxZones = 1u << 22;
// Where the header keeps the count of simulated power losses (zero in images
// written before it existed).
constexpr uint64_t kPowerCyclesOffset = kHeaderSize - 12;

// Mutable state of one zone. Offsets are relative to the zone start.
struct ZoneState {
  uint64_t wp = 0;
  ZoneCondition condition = ZoneCondition::kEmpty;
  uint64_t durable_wp = 0;  // write pointer as of the last Flush()
  uint64_t resets = 0;      // tells a Flush that the zone was reset while it synced
};

// Where a device keeps its bytes and zone table.
class Backing {
 public:
  virtual ~Backing() = default;
  virtual Status ReadData(uint64_t offset, size_t n, char* buf) = 0;
  virtual Status WriteData(uint64_t offset, const char* data, size_t n) = 0;
  virtual Status DiscardZone(uint32_t zone) = 0;
  virtual Status PersistZone(uint32_t zone, const ZoneState& state) = 0;
  virtual Status PersistPowerCycles(uint64_t power_cycles) = 0;
  virtual Status Sync() = 0;
};

// Zone states shared by all handles of one emulated device.
struct DeviceState {
  std::mutex mu;  // zone states; never held while bytes are copied
  std::unique_ptr<std::mutex[]> zone_write_mu;  // one writer per zone at a time
  DeviceGeometry geometry;
  StoredProfile profile;
  std::vector<ZoneState> zones;
  uint64_t power_cycles = 0;  // simulated power losses so far
};

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

// ---------------------------------------------------------------- file

std::string EncodeHeader(const DeviceGeometry& g, const StoredProfile& p, uint64_t data_offset,
                         uint64_t power_cycles) {
  std::string h(kImageMagic, sizeof(kImageMagic));
  PutFixed32(&h, kImageVersion);
  PutFixed32(&h, static_cast<uint32_t>(kHeaderSize));
  PutFixed64(&h, g.zone_size);
  PutFixed64(&h, g.zone_capacity);
  PutFixed32(&h, g.zone_count);
  PutFixed32(&h, g.conventional_zones);
  PutFixed32(&h, g.block_size);
  PutFixed32(&h, g.max_open_zones);
  PutFixed32(&h, g.max_active_zones);
  PutFixed64(&h, kHeaderSize);  // zone table offset
  PutFixed64(&h, data_offset);
  uint64_t scale_bits;
  std::memcpy(&scale_bits, &p.scale, sizeof(scale_bits));
  PutFixed64(&h, scale_bits);
  PutLengthPrefixed(&h, p.name);
  h.resize(kPowerCyclesOffset, '\0');
  PutFixed64(&h, power_cycles);
  PutFixed32(&h, crc32c::Value(h.data(), h.size()));
  return h;
}

std::string EncodeZoneEntry(const ZoneState& z) {
  std::string e;
  PutFixed64(&e, z.wp);
  e.push_back(static_cast<char>(z.condition));
  e.append(3, '\0');
  PutFixed32(&e, crc32c::Value(e.data(), e.size()));
  return e;
}

Status ValidateGeometry(const DeviceGeometry& g) {
  auto bad = [](const std::string& m) { return Status::InvalidArgument("device geometry: " + m); };
  if (g.block_size < 512 || g.block_size > 65536 || (g.block_size & (g.block_size - 1)) != 0) {
    return bad(fmt::format("block_size {} is not a power of two in [512, 64KiB]", g.block_size));
  }
  if (g.zone_size == 0 || g.zone_size % g.block_size != 0) {
    return bad(fmt::format("zone_size {} is not a positive multiple of block_size {}", g.zone_size,
                           g.block_size));
  }
  if (g.zone_capacity == 0 || g.zone_capacity > g.zone_size || g.zone_capacity % g.block_size != 0) {
    return bad(fmt::format("zone_capacity {} must be a block multiple in (0, zone_size]",
                           g.zone_capacity));
  }
  if (g.zone_count == 0 || g.zone_count > kMaxZones) {
    return bad(fmt::format("zones {} must be in [1, {}]", g.zone_count, kMaxZones));
  }
  if (g.conventional_zones > g.zone_count) return bad("conv_zones exceeds zones");
  if (g.zone_size > (uint64_t{1} << 40)) return bad("zone_size above 1TiB");
  return Status::OK();
}

Status DecodeHeader(std::string_view h, DeviceGeometry* g, StoredProfile* p, uint64_t* data_offset,
                    uint64_t* power_cycles, const std::string& path) {
  if (h.size() < kHeaderSize || std::memcmp(h.data(), kImageMagic, sizeof(kImageMagic)) != 0) {
    return Status::Corruption(path + " is not a hintfs emulated device image (bad magic)");
  }
  if (DecodeFixed32(h.data() + kHeaderSize - 4) != crc32c::Value(h.data(), kHeaderSize - 4)) {
    return Status::Corruption(path + ": device header checksum mismatch");
  }
  Decoder d(h.substr(sizeof(kImageMagic), kHeaderSize - sizeof(kImageMagic) - 4),
            "device image header");
  uint32_t version = 0, header_size = 0;
  uint64_t table_offset = 0, scale_bits = 0;
  d.GetFixed32(&version);
  d.GetFixed32(&header_size);
  d.GetFixed64(&g->zone_size);
  d.GetFixed64(&g->zone_capacity);
  d.GetFixed32(&g->zone_count);
  d.GetFixed32(&g->conventional_zones);
  d.GetFixed32(&g->block_size);
  d.GetFixed32(&g->max_open_zones);
  d.GetFixed32(&g->max_active_zones);
  d.GetFixed64(&table_offset);
  d.GetFixed64(data_offset);
  d.GetFixed64(&scale_bits);
  d.GetLengthPrefixed(&p->name, 64);
  if (!d.ok()) return d.status();
  if (version != kImageVersion) {
    return Status::NotSupported(fmt::format("{}: device image version {} (this build reads {})",
                                            path, version, kImageVersion));
  }
  std::memcpy(&p->scale, &scale_bits, sizeof(p->scale));
  *power_cycles = DecodeFixed64(h.data() + kPowerCyclesOffset);
  Status s = ValidateGeometry(*g);
  if (!s.ok()) return Status::Corruption(path + ": " + s.message());
  uint64_t min_data = kHeaderSize + kZoneEntrySize * g->zone_count;
  if (header_size != kHeaderSize || table_offset != kHeaderSize || *data_offset < min_data ||
      *data_offset % 4096 != 0 || !(p->scale > 0)) {
    return Status::Corruption(path + ": device header fields out of range");
  }
  return Status::OK();
}

bool IsOpenCondition(ZoneCondition c) {
  return c == ZoneCondition::kImplicitOpen || c == ZoneCondition::kExplicitOpen;
}

Status PreadFd(int fd, uint64_t offset, size_t n, char* buf) {
  while (n > 0) {
    ssize_t r = pread(fd, buf, n, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Status::IOError(fmt::format("pread: {}", std::strerror(errno)), errno);
    if (r == 0) {
      std::memset(buf, 0, n);  // beyond the end of a sparse image: zeros
      return Status::OK();
    }
    buf += r;
    offset += static_cast<uint64_t>(r);
    n -= static_cast<size_t>(r);
  }
  return Status::OK();
}

Status PwriteFd(int fd, uint64_t offset, const char* data, size_t n) {
  while (n > 0) {
    ssize_t r = pwrite(fd, data, n, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Status::IOError(fmt::format("pwrite: {}", std::strerror(errno)), errno);
    data += r;
    offset += static_cast<uint64_t>(r);
    n -= static_cast<size_t>(r);
  }
  return Status::OK();
}

class FileBacking : public Backing {
 public:
  FileBacking(int fd, uint64_t data_offset, uint64_t zone_size, bool sync)
      : fd_(fd), data_offset_(data_offset), zone_size_(zone_size), sync_(sync) {}
  ~FileBacking() override { ::close(fd_); }

  Status ReadData(uint64_t offset, size_t n, char* buf) override {
    return PreadFull(data_offset_ + offset, n, buf);
  }

  Status WriteData(uint64_t offset, const char* data, size_t n) override {
    return PwriteFull(data_offset_ + offset, data, n);
  }

  Status DiscardZone(uint32_t zone) override {
    if (fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                  static_cast<off_t>(data_offset_ + zone_size_ * zone),
                  static_cast<off_t>(zone_size_)) != 0 &&
        errno != EOPNOTSUPP) {
      return Status::IOError(fmt::format("punch hole: {}", std::strerror(errno)), errno);
    }
    return Status::OK();
  }

  Status PersistZone(uint32_t zone, const ZoneState& state) override {
    std::string e = EncodeZoneEntry(state);
    return PwriteFull(kHeaderSize + kZoneEntrySize * zone, e.data(), e.size());
  }

  Status PersistPowerCycles(uint64_t power_cycles) override {
    std::string h(kHeaderSize, '\0');
    Status s = PreadFull(0, h.size(), &h[0]);
    if (!s.ok()) return s;
    std::string count;
    PutFixed64(&count, power_cycles);
    h.replace(kPowerCyclesOffset, count.size(), count);
    std::string crc;
    PutFixed32(&crc, crc32c::Value(h.data(), kHeaderSize - 4));
    h.replace(kHeaderSize - 4, 4, crc);
    return PwriteFull(0, h.data(), h.size());
  }

  Status Sync() override {
    if (sync_ && fdatasync(fd_) != 0) {
      return Status::IOError(fmt::format("fdatasync: {}", std::strerror(errno)), errno);
    }
    return Status::OK();
  }

  Status PreadFull(uint64_t offset, size_t n, char* buf) { return PreadFd(fd_, offset, n, buf); }
  Status PwriteFull(uint64_t offset, const char* data, size_t n) {
    return PwriteFd(fd_, offset, data, n);
  }

 private:
  int fd_;
  uint64_t data_offset_;
  uint64_t zone_size_;
  bool sync_;
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
    {
      std::lock_guard<std::mutex> l(state_->mu);
      Status s = CheckPowered();
      if (!s.ok()) return s;
      const DeviceGeometry& g = state_->geometry;
      if (n == 0) return Status::OK();
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
    return backing_->ReadData(offset, n, buf);
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
      if (IsOpenCondition(z.condition) || z.condition == ZoneCondition::kClosed) ++*active;
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

Status GeometryFromUri(const DeviceUri& uri, DeviceGeometry* g) {
  uint64_t zones = 0, conv = 0, block = 0, max_open = 0, max_active = 0;
  Status s;
  if (!(s = uri.GetSize("zone_size", 64ull << 20, &g->zone_size)).ok()) return s;
  if (!(s = uri.GetSize("zone_capacity", g->zone_size, &g->zone_capacity)).ok()) return s;
  if (!(s = uri.GetUint("zones", 0, &zones)).ok()) return s;
  if (!(s = uri.GetUint("conv_zones", 0, &conv)).ok()) return s;
  if (!(s = uri.GetSize("block_size", 4096, &block)).ok()) return s;
  if (!(s = uri.GetUint("max_open", 14, &max_open)).ok()) return s;
  if (!(s = uri.GetUint("max_active", 14, &max_active)).ok()) return s;
  if (zones == 0) return Status::InvalidArgument(uri.ToString() + ": zones=N is required to create a device");
  if (zones > kMaxZones || conv > zones || block > 65536 || max_open > kMaxZones ||
      max_active > kMaxZones) {
    return Status::InvalidArgument(uri.ToString() + ": zone counts out of range");
  }
  g->zone_count = static_cast<uint32_t>(zones);
  g->conventional_zones = static_cast<uint32_t>(conv);
  g->block_size = static_cast<uint32_t>(block);
  g->max_open_zones = static_cast<uint32_t>(max_open);
  g->max_active_zones = static_cast<uint32_t>(max_active);
  if (g->max_active_zones != 0 && g->max_open_zones > g->max_active_zones) {
    return Status::InvalidArgument("max_open exceeds max_active");
  }
  return ValidateGeometry(*g);
}

// Geometry keys in a URI that opens an existing device must agree with it.
Status CheckGeometryMatches(const DeviceUri& uri, const DeviceGeometry& actual) {
  static const char* kKeys[] = {"zone_size", "zone_capacity", "zones", "conv_zones",
                                "block_size", "max_open", "max_active"};
  bool any = false;
  for (const char* k : kKeys) any = any || uri.Has(k);
  if (!any) return Status::OK();
  DeviceUri filled = uri;
  auto set_default = [&](const char* key, uint64_t v) {
    if (!filled.Has(key)) filled.params[key] = std::to_string(v);
  };
  set_default("zone_size", actual.zone_size);
  set_default("zone_capacity", uri.Has("zone_size") ? 0 : actual.zone_capacity);
  if (filled.params["zone_capacity"] == "0") filled.params.erase("zone_capacity");
  set_default("zones", actual.zone_count);
  set_default("conv_zones", actual.conventional_zones);
  set_default("block_size", actual.block_size);
  set_default("max_open", actual.max_open_zones);
  set_default("max_active", actual.max_active_zones);
  DeviceGeometry wanted;
  Status s = GeometryFromUri(filled, &wanted);
  if (!s.ok()) return s;
  if (wanted.zone_size != actual.zone_size || wanted.zone_capacity != actual.zone_capacity ||
      wanted.zone_count != actual.zone_count ||
      wanted.conventional_zones != actual.conventional_zones ||
      wanted.block_size != actual.block_size || wanted.max_open_zones != actual.max_open_zones ||
      wanted.max_active_zones != actual.max_active_zones) {
    return Status::InvalidArgument(fmt::format(
        "{} exists with a different geometry ({} zones of {}, capacity {}); use --force to recreate",
        uri.path, actual.zone_count, FormatSize(actual.zone_size), FormatSize(actual.zone_capacity)));
  }
  return Status::OK();
}

Status OpenFileDevice(const DeviceUri& uri, bool create, std::unique_ptr<ZonedDevice>* device,
                      StoredProfile* profile) {
  uint64_t sync = 1;
  Status s = uri.GetUint("sync", 1, &sync);
  if (!s.ok()) return s;
  if (sync > 1) return Status::InvalidArgument("sync: expected 0 or 1");
  int fd = ::open(uri.path.c_str(), O_RDWR | O_CLOEXEC);
  bool fresh = false;
  if (fd < 0 && errno == ENOENT && create) {
    fd = ::open(uri.path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    fresh = true;
  }
  if (fd < 0) {
    if (errno == ENOENT) return Status::NotFound(uri.path + ": no such device image");
    return Status::IOError(fmt::format("{}: {}", uri.path, std::strerror(errno)), errno);
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return Status::Busy(uri.path + ": device image is in use by another process or handle");
  }
  auto state = std::make_shared<DeviceState>();
  uint64_t data_offset = 0;
  if (fresh) {
    s = GeometryFromUri(uri, &state->geometry);
    if (s.ok()) {
      state->profile.name = uri.GetString("profile", "");
      s = uri.GetDouble("profile_scale", 1.0, &state->profile.scale);
    }
    if (!s.ok()) {
      ::close(fd);
      ::unlink(uri.path.c_str());
      return s;
    }
    const DeviceGeometry& g = state->geometry;
    data_offset = (kHeaderSize + kZoneEntrySize * g.zone_count + kDataAlignment - 1) /
                  kDataAlignment * kDataAlignment;
    std::string image = EncodeHeader(g, state->profile, data_offset, 0);
    state->zones.resize(g.zone_count);
    state->zone_write_mu.reset(new std::mutex[g.zone_count]);
    for (uint32_t z = 0; z < g.zone_count; z++) {
      if (z < g.conventional_zones) state->zones[z].condition = ZoneCondition::kNotWritePointer;
      image += EncodeZoneEntry(state->zones[z]);
    }
    auto backing = std::make_unique<FileBacking>(fd, data_offset, g.zone_size, sync != 0);
    s = backing->PwriteFull(0, image.data(), image.size());
    if (s.ok() && ftruncate(fd, static_cast<off_t>(data_offset + g.capacity_bytes())) != 0) {
      s = Status::IOError(fmt::format("{}: ftruncate: {}", uri.path, std::strerror(errno)), errno);
    }
    if (s.ok()) s = backing->Sync();
    if (!s.ok()) {
      backing.reset();
      ::unlink(uri.path.c_str());
      return s;
    }
    *profile = state->profile;
    device->reset(new EmulatedDevice("file:" + uri.path, state, std::move(backing)));
    return Status::OK();
  }

  auto fail = [fd](Status st) {
    ::close(fd);
    return st;
  };
  std::string header(kHeaderSize, '\0');
  s = PreadFd(fd, 0, kHeaderSize, &header[0]);
  if (!s.ok()) return fail(s);
  s = DecodeHeader(header, &state->geometry, &state->profile, &data_offset, &state->power_cycles,
                   uri.path);
  if (!s.ok()) return fail(s);
  s = CheckGeometryMatches(uri, state->geometry);
  if (!s.ok()) return fail(s);
  const DeviceGeometry& g = state->geometry;
  // A cut image would read back zeros where its data was.
  struct stat st;
  if (fstat(fd, &st) != 0) {
    return fail(Status::IOError(fmt::format("{}: {}", uri.path, std::strerror(errno)), errno));
  }
  if (static_cast<uint64_t>(st.st_size) < data_offset + g.capacity_bytes()) {
    return fail(Status::Corruption(fmt::format(
        "{} is shorter than its geometry ({} bytes, {} zones of {} need {}): the image was cut or "
        "copied incompletely", uri.path, st.st_size, g.zone_count, FormatSize(g.zone_size),
        data_offset + g.capacity_bytes())));
  }
  state->zone_write_mu.reset(new std::mutex[g.zone_count]);
  std::string table(kZoneEntrySize * g.zone_count, '\0');
  s = PreadFd(fd, kHeaderSize, table.size(), &table[0]);
  if (!s.ok()) return fail(s);
  state->zones.resize(g.zone_count);
  for (uint32_t z = 0; z < g.zone_count; z++) {
    const char* e = table.data() + kZoneEntrySize * z;
    if (DecodeFixed32(e + 12) != crc32c::Value(e, 12)) {
      return fail(Status::Corruption(fmt::format("{}: zone {} state checksum mismatch", uri.path, z)));
    }
    ZoneState& zs = state->zones[z];
    zs.wp = zs.durable_wp = DecodeFixed64(e);
    uint8_t cond = static_cast<uint8_t>(e[8]);
    bool conventional = z < g.conventional_zones;
    bool valid = conventional ? cond == 0 : (cond >= 1 && cond <= 7);
    if (!valid || zs.wp > g.zone_capacity || zs.wp % g.block_size != 0 ||
        (cond == static_cast<uint8_t>(ZoneCondition::kEmpty) && zs.wp != 0)) {
      return fail(Status::Corruption(fmt::format("{}: zone {} state out of range", uri.path, z)));
    }
    zs.condition = static_cast<ZoneCondition>(cond);
    // A restart closes open zones, as a power cycle does on a drive.
    if (IsOpenCondition(zs.condition)) zs.condition = ZoneCondition::kClosed;
  }
  // The backing owns the descriptor, and with it the flock that keeps a
  // second handle from opening the same image.
  auto backing = std::make_unique<FileBacking>(fd, data_offset, g.zone_size, sync != 0);
  *profile = state->profile;
  device->reset(new EmulatedDevice("file:" + uri.path, state, std::move(backing)));
  return Status::OK();
}

}  // namespace

Status OpenEmulatedDevice(const DeviceUri& uri, bool create, std::unique_ptr<ZonedDevice>* device,
                          StoredProfile* profile) {
  if (uri.scheme == "file") return OpenFileDevice(uri, create, device, profile);
  if (uri.scheme != "mem") return Status::InvalidArgument("not an emulated device: " + uri.scheme);
  std::lock_guard<std::mutex> l(g_mem_mu);
  auto& devices = MemDevices();
  auto it = devices.find(uri.path);
  std::shared_ptr<MemStore> store;
  if (it == devices.end()) {
    if (!create) return Status::NotFound("mem:" + uri.path + ": no such memory device");
    store = std::make_shared<MemStore>();
    store->state = std::make_shared<DeviceState>();
    Status s = GeometryFromUri(uri, &store->state->geometry);
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
    Status s = CheckGeometryMatches(uri, store->state->geometry);
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
