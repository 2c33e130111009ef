#include "fs/device/kernel_zoned_device.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace hintfs {

Status ZonedErrno(const std::string& what, int err) {
  std::string msg = fmt::format("{}: {}", what, std::strerror(err));
  switch (err) {
    case ETOOMANYREFS:  // BLK_STS_ZONE_OPEN_RESOURCE
    case EOVERFLOW:     // BLK_STS_ZONE_ACTIVE_RESOURCE
      return Status::Busy(msg);
    case EINVAL: return Status::InvalidArgument(msg);
    default: return Status::IOError(msg, err);
  }
}

size_t QueueTransferLimit(const std::string& queue, const char* max_sectors_file) {
  size_t kb = 0, segments = 0;
  std::ifstream sectors(queue + max_sectors_file), seg(queue + "max_segments");
  if (!(sectors >> kb) || kb == 0 || !(seg >> segments) || segments == 0) return 128 << 10;
  return std::min<size_t>(kb << 10, segments * 4096);
}

namespace {

// Heap memory aligned for direct I/O.
class AlignedBuffer {
 public:
  AlignedBuffer(size_t alignment, size_t size) {
    if (posix_memalign(reinterpret_cast<void**>(&data_), std::max<size_t>(alignment, 64), size) != 0) {
      data_ = nullptr;
    }
  }
  ~AlignedBuffer() { free(data_); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  char* data() const { return data_; }

 private:
  char* data_ = nullptr;
};

constexpr size_t kMaxChunk = 1 << 20;

// This process's view of one zone, kept by its own writes.
struct ZoneShadow {
  bool conventional = false;
  bool full = false;
  bool unusable = false;  // read-only or offline
  uint64_t wp = 0;        // bytes written, relative to the zone start
};

class KernelZonedDevice : public ZonedDevice {
 public:
  KernelZonedDevice(std::string uri, std::unique_ptr<ZoneCommands> commands, DeviceGeometry geometry,
                    std::vector<ZoneShadow> shadow)
      : uri_(std::move(uri)),
        commands_(std::move(commands)),
        geometry_(geometry),
        shadow_(std::move(shadow)),
        zone_mu_(new std::shared_mutex[geometry.zone_count]) {
    uint64_t chunk = std::min<uint64_t>(commands_->max_transfer(), kMaxChunk);
    chunk_ = std::max<uint64_t>(chunk - chunk % geometry_.block_size, geometry_.block_size);
  }

  std::string uri() const override { return uri_; }
  const DeviceGeometry& geometry() const override { return geometry_; }

  Status ReportZones(uint32_t first, uint32_t count, std::vector<ZoneInfo>* zones) override {
    if (first >= geometry_.zone_count || count > geometry_.zone_count - first) {
      return Status::InvalidArgument(fmt::format("zone report [{}, +{}) beyond {} zones", first,
                                                 count, geometry_.zone_count));
    }
    Status s = commands_->Report(first, count, zones);
    if (!s.ok()) return s;
    for (ZoneInfo& z : *zones) Normalize(&z);
    return Status::OK();
  }

  Status Read(uint64_t offset, size_t n, char* buf) override {
    if (n == 0) return Status::OK();
    if (offset >= geometry_.capacity_bytes() || n > geometry_.capacity_bytes() - offset) {
      return Status::InvalidArgument(fmt::format("read [{}, +{}) beyond device end", offset, n));
    }
    {
      std::lock_guard<std::mutex> l(mu_);
      for (uint64_t pos = offset; pos < offset + n;) {
        uint32_t z = ZoneOf(pos);
        uint64_t start = geometry_.zone_start(z);
        uint64_t end = std::min<uint64_t>(offset + n, start + geometry_.zone_size);
        const ZoneShadow& zs = shadow_[z];
        uint64_t readable = start + (zs.conventional ? geometry_.zone_capacity : zs.wp);
        if (end > readable) {
          return Status::InvalidArgument(fmt::format(
              "read [{}, {}) past the write pointer {} of zone {}", pos, end, readable, z));
        }
        pos = end;
      }
    }
    return ReadBlocks(offset, n, buf);
  }

  Status Write(uint64_t offset, const char* data, size_t n) override {
    uint32_t zone = ZoneOf(offset);
    if (zone >= geometry_.zone_count) {
      return Status::InvalidArgument(fmt::format("write at {} beyond the device", offset));
    }
    std::unique_lock<std::shared_mutex> zl(zone_mu_[zone]);
    return WriteLocked(zone, offset, data, n);
  }

  Status Append(uint32_t zone, const char* data, size_t n, uint64_t* written_offset) override {
    if (zone >= geometry_.zone_count) {
      return Status::InvalidArgument(fmt::format("zone {} beyond {} zones", zone, geometry_.zone_count));
    }
    if (shadow_[zone].conventional) {
      return Status::InvalidArgument(fmt::format("zone append to conventional zone {}", zone));
    }
    if (n != 0 && n <= commands_->max_append() && n % geometry_.block_size == 0) {
      // A native append needs no ordering with other appends: shared lock.
      std::shared_lock<std::shared_mutex> zl(zone_mu_[zone]);
      Status s = CheckWritable(zone, n);
      if (!s.ok()) return s;
      AlignedBuffer bounce(commands_->io_alignment(), Aligned(data) ? 0 : n);
      const char* src = data;
      if (!Aligned(data)) {
        if (bounce.data() == nullptr) return Status::IOError("out of memory for a bounce buffer", ENOMEM);
        std::memcpy(bounce.data(), data, n);
        src = bounce.data();
      }
      uint64_t at = 0;
      s = commands_->Append(zone, src, n, &at);
      if (!s.IsNotSupported()) {
        if (!s.ok()) return Refreshed(zone, s);
        std::lock_guard<std::mutex> l(mu_);
        ZoneShadow& zs = shadow_[zone];
        zs.wp = std::max(zs.wp, at + n - geometry_.zone_start(zone));
        zs.full = zs.wp >= geometry_.zone_capacity;
        *written_offset = at;
        return Status::OK();
      }
    }
    // No native append (or too large for one): a write at the write pointer,
    // excluding every other writer of the zone.
    std::unique_lock<std::shared_mutex> zl(zone_mu_[zone]);
    uint64_t at;
    {
      std::lock_guard<std::mutex> l(mu_);
      at = geometry_.zone_start(zone) + shadow_[zone].wp;
    }
    Status s = WriteLocked(zone, at, data, n);
    if (s.ok()) *written_offset = at;
    return s;
  }

  Status OpenZone(uint32_t zone) override {
    ZoneInfo info;
    Status s = ManagedZone(zone, "open", &info);
    if (!s.ok()) return s;
    switch (info.condition) {
      case ZoneCondition::kExplicitOpen: return Status::OK();
      case ZoneCondition::kEmpty:
      case ZoneCondition::kImplicitOpen:
      case ZoneCondition::kClosed: return commands_->Manage(ZoneAction::kOpen, zone);
      default: return InvalidTransition(zone, "open", info.condition);
    }
  }

  Status CloseZone(uint32_t zone) override {
    ZoneInfo info;
    Status s = ManagedZone(zone, "close", &info);
    if (!s.ok()) return s;
    switch (info.condition) {
      case ZoneCondition::kEmpty:
      case ZoneCondition::kClosed: return Status::OK();
      case ZoneCondition::kImplicitOpen:
      case ZoneCondition::kExplicitOpen: return commands_->Manage(ZoneAction::kClose, zone);
      default: return InvalidTransition(zone, "close", info.condition);
    }
  }

  Status FinishZone(uint32_t zone) override {
    ZoneInfo info;
    Status s = ManagedZone(zone, "finish", &info);
    if (!s.ok()) return s;
    if (info.condition == ZoneCondition::kFull) return Status::OK();
    if (info.condition == ZoneCondition::kReadOnly) return InvalidTransition(zone, "finish", info.condition);
    std::unique_lock<std::shared_mutex> zl(zone_mu_[zone]);
    s = commands_->Manage(ZoneAction::kFinish, zone);
    if (!s.ok()) return Refreshed(zone, s);
    std::lock_guard<std::mutex> l(mu_);
    shadow_[zone].full = true;
    shadow_[zone].wp = geometry_.zone_capacity;
    return Status::OK();
  }

  Status ResetZone(uint32_t zone) override {
    ZoneInfo info;
    Status s = ManagedZone(zone, "reset", &info);
    if (!s.ok()) return s;
    if (info.condition == ZoneCondition::kReadOnly) return InvalidTransition(zone, "reset", info.condition);
    std::unique_lock<std::shared_mutex> zl(zone_mu_[zone]);
    s = commands_->Manage(ZoneAction::kReset, zone);
    if (!s.ok()) return Refreshed(zone, s);
    std::lock_guard<std::mutex> l(mu_);
    shadow_[zone].full = false;
    shadow_[zone].wp = 0;
    return Status::OK();
  }

  Status Flush() override { return commands_->Flush(); }

 private:
  bool Aligned(const void* p) const {
    return reinterpret_cast<uintptr_t>(p) % commands_->io_alignment() == 0;
  }

  // Full zones report their write pointer at the capacity, as the emulated
  // device does (drives leave it undefined or at the zone end).
  void Normalize(ZoneInfo* z) const {
    if (!z->is_sequential()) {
      z->condition = ZoneCondition::kNotWritePointer;
      z->write_pointer = z->start;
    } else if (z->condition == ZoneCondition::kFull) {
      z->write_pointer = z->start + z->capacity;
    }
  }

  Status InvalidTransition(uint32_t zone, const char* op, ZoneCondition c) const {
    return Status::InvalidArgument(
        fmt::format("zone {} {}: invalid in condition {}", op, zone, ZoneConditionName(c)));
  }

  // Checks a zone-management target and fetches its current condition.
  Status ManagedZone(uint32_t zone, const char* op, ZoneInfo* info) {
    if (zone >= geometry_.zone_count) {
      return Status::InvalidArgument(fmt::format("zone {} beyond {} zones", zone, geometry_.zone_count));
    }
    if (shadow_[zone].conventional) {
      return Status::InvalidArgument(fmt::format("zone {} {}: conventional zone", op, zone));
    }
    Status s = ReportZone(zone, info);
    if (!s.ok()) return s;
    if (info->condition == ZoneCondition::kOffline) {
      return Status::IOError(fmt::format("zone {} {}: zone is offline", op, zone));
    }
    return Status::OK();
  }

  // Checks that n more bytes fit in a sequential zone (its shadow) and, for
  // a write (not an append), that they go at its write pointer.
  static constexpr uint64_t kAnywhere = UINT64_MAX;
  Status CheckWritable(uint32_t zone, size_t n, uint64_t offset = kAnywhere) {
    std::lock_guard<std::mutex> l(mu_);
    const ZoneShadow& zs = shadow_[zone];
    if (zs.unusable) return Status::IOError(fmt::format("write to read-only or offline zone {}", zone));
    if (zs.full) return Status::InvalidArgument(fmt::format("write to full zone {}", zone));
    if (zs.wp + n > geometry_.zone_capacity) {
      return Status::InvalidArgument(fmt::format("{} bytes cross the capacity of zone {}", n, zone));
    }
    const uint64_t wp = geometry_.zone_start(zone) + zs.wp;
    if (offset != kAnywhere && offset != wp) {
      return Status::InvalidArgument(
          fmt::format("write at {} not at the write pointer {} of zone {}", offset, wp, zone));
    }
    return Status::OK();
  }

  // Caller holds the zone's lock exclusively.
  Status WriteLocked(uint32_t zone, uint64_t offset, const char* data, size_t n) {
    const uint64_t start = geometry_.zone_start(zone);
    if (offset % geometry_.block_size != 0 || n % geometry_.block_size != 0 || n == 0) {
      return Status::InvalidArgument(fmt::format(
          "write [{}, +{}) not aligned to the {}-byte block size", offset, n, geometry_.block_size));
    }
    if (offset - start + n > geometry_.zone_capacity) {
      return Status::InvalidArgument(fmt::format("write [{}, +{}) crosses the capacity of zone {}",
                                                 offset, n, zone));
    }
    if (!shadow_[zone].conventional) {
      Status s = CheckWritable(zone, n, offset);
      if (!s.ok()) return s;
    }
    AlignedBuffer bounce(commands_->io_alignment(), Aligned(data) ? 0 : std::min<size_t>(n, chunk_));
    if (!Aligned(data) && bounce.data() == nullptr) {
      return Status::IOError("out of memory for a bounce buffer", ENOMEM);
    }
    for (size_t done = 0; done < n;) {
      size_t len = std::min<size_t>(n - done, chunk_);
      const char* src = data + done;
      if (!Aligned(data)) {
        std::memcpy(bounce.data(), src, len);
        src = bounce.data();
      }
      Status s = commands_->Write(offset + done, src, len);
      if (!s.ok()) return Refreshed(zone, s);
      done += len;
      if (!shadow_[zone].conventional) {
        // Readers may see each piece as soon as the drive has it.
        std::lock_guard<std::mutex> l(mu_);
        shadow_[zone].wp += len;
        shadow_[zone].full = shadow_[zone].wp == geometry_.zone_capacity;
      }
    }
    return Status::OK();
  }

  // After a failed command the drive may have moved the write pointer (part
  // of a write landed, or the zone went offline): resynchronize the shadow.
  Status Refreshed(uint32_t zone, Status error) {
    ZoneInfo info;
    if (ReportZone(zone, &info).ok()) {
      // Not the zone's type: writers read it without the lock.
      ZoneShadow fresh = ShadowOf(info, geometry_.zone_capacity);
      std::lock_guard<std::mutex> l(mu_);
      shadow_[zone].full = fresh.full;
      shadow_[zone].unusable = fresh.unusable;
      shadow_[zone].wp = fresh.wp;
    }
    return error;
  }

  Status ReadBlocks(uint64_t offset, size_t n, char* buf) {
    const uint64_t lbs = commands_->geometry().block_size;
    if (offset % lbs == 0 && n % lbs == 0 && Aligned(buf)) {
      for (size_t done = 0; done < n;) {
        size_t len = std::min<size_t>(n - done, chunk_);
        Status s = commands_->Read(offset + done, len, buf + done);
        if (!s.ok()) return s;
        done += len;
      }
      return Status::OK();
    }
    const uint64_t first = offset - offset % lbs;
    const uint64_t end = (offset + n + lbs - 1) / lbs * lbs;
    AlignedBuffer bounce(commands_->io_alignment(), std::min<uint64_t>(end - first, chunk_));
    if (bounce.data() == nullptr) return Status::IOError("out of memory for a bounce buffer", ENOMEM);
    for (uint64_t pos = first; pos < end;) {
      size_t len = std::min<uint64_t>(end - pos, chunk_);
      Status s = commands_->Read(pos, len, bounce.data());
      if (!s.ok()) return s;
      uint64_t from = std::max(pos, offset), to = std::min(pos + len, offset + n);
      std::memcpy(buf + (from - offset), bounce.data() + (from - pos), to - from);
      pos += len;
    }
    return Status::OK();
  }

 public:
  static ZoneShadow ShadowOf(const ZoneInfo& z, uint64_t capacity) {
    ZoneShadow s;
    s.conventional = !z.is_sequential();
    s.full = z.condition == ZoneCondition::kFull;
    s.unusable = z.condition == ZoneCondition::kReadOnly || z.condition == ZoneCondition::kOffline;
    s.wp = s.full ? capacity : std::min(z.write_pointer - z.start, capacity);
    return s;
  }

 private:
  const std::string uri_;
  const std::unique_ptr<ZoneCommands> commands_;
  const DeviceGeometry geometry_;
  uint64_t chunk_ = 0;
  std::mutex mu_;  // guards shadow_
  std::vector<ZoneShadow> shadow_;
  // Writers of a zone hold its lock exclusively; native appends share it.
  std::unique_ptr<std::shared_mutex[]> zone_mu_;
};

}  // namespace

Status NewKernelZonedDevice(std::string uri, std::unique_ptr<ZoneCommands> commands,
                            std::unique_ptr<ZonedDevice>* device) {
  const DeviceGeometry& raw = commands->geometry();
  if (raw.zone_count == 0 || raw.zone_size == 0) return Status::NotSupported(uri + ": no zones");
  std::vector<ZoneInfo> zones;
  Status s = commands->Report(0, raw.zone_count, &zones);
  if (!s.ok()) return s;
  if (zones.size() != raw.zone_count) {
    return Status::IOError(fmt::format("{}: zone report returned {} of {} zones", uri, zones.size(),
                                       raw.zone_count));
  }
  DeviceGeometry g = raw;
  // The filesystem writes in 4 KiB blocks at least; a 512-byte drive takes those too.
  g.block_size = std::max<uint32_t>(raw.block_size, 4096);
  // A smaller last zone (some drives have one) is left unused.
  if (zones.size() > 1 && zones.back().size < raw.zone_size) zones.pop_back();
  g.zone_count = static_cast<uint32_t>(zones.size());
  g.conventional_zones = 0;
  g.zone_capacity = 0;
  for (const ZoneInfo& z : zones) {
    if (z.size != g.zone_size || z.start != g.zone_start(z.index)) {
      return Status::NotSupported(fmt::format("{}: zone {} has size {} (others {})", uri, z.index,
                                              z.size, g.zone_size));
    }
    if (!z.is_sequential()) {
      if (z.index != g.conventional_zones) {
        return Status::NotSupported(fmt::format(
            "{}: conventional zone {} after sequential zones (hintfs needs them first)", uri, z.index));
      }
      g.conventional_zones++;
      continue;
    }
    if (g.zone_capacity == 0) g.zone_capacity = z.capacity;
    if (z.capacity != g.zone_capacity) {
      return Status::NotSupported(fmt::format("{}: zone {} has capacity {} (others {})", uri, z.index,
                                              z.capacity, g.zone_capacity));
    }
  }
  if (g.zone_capacity == 0) g.zone_capacity = g.zone_size;  // conventional zones only
  if (g.zone_capacity % g.block_size != 0 || g.zone_size % g.block_size != 0) {
    return Status::NotSupported(fmt::format("{}: zone capacity {} is not a multiple of {} bytes", uri,
                                            g.zone_capacity, g.block_size));
  }
  std::vector<ZoneShadow> shadow;
  shadow.reserve(zones.size());
  for (const ZoneInfo& z : zones) shadow.push_back(KernelZonedDevice::ShadowOf(z, g.zone_capacity));
  device->reset(new KernelZonedDevice(std::move(uri), std::move(commands), g, std::move(shadow)));
  return Status::OK();
}

}  // namespace hintfs
