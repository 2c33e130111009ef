// The image format every logically zoned device keeps at its front (file:
// images and blk: devices): header, zone table, and the geometry rules
// (docs/formats.md, "Emulated device image").
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "fs/coding.h"
#include "fs/crc32c.h"
#include "fs/device/emulated_state.h"

namespace hintfs {
namespace emulated {

namespace {

constexpr char kImageMagic[8] = {'H', 'Z', 'D', 'E', 'V', 'I', 'M', 'G'};
constexpr uint32_t kImageVersion = 1;
constexpr uint64_t kDataAlignment = 1 << 20;
// Where the header keeps the count of simulated power losses (zero in images
// written before it existed).
constexpr uint64_t kPowerCyclesOffset = kHeaderSize - 12;

}  // namespace

uint64_t ImageDataOffset(uint32_t zone_count) {
  return (kHeaderSize + kZoneEntrySize * zone_count + kDataAlignment - 1) / kDataAlignment * kDataAlignment;
}

std::string EncodeImageHeader(const DeviceGeometry& g, const StoredProfile& p, uint64_t data_offset,
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

Status DecodeImageHeader(std::string_view h, DeviceGeometry* g, StoredProfile* p, uint64_t* data_offset,
                    uint64_t* power_cycles, const std::string& path) {
  if (h.size() < kHeaderSize || std::memcmp(h.data(), kImageMagic, sizeof(kImageMagic)) != 0) {
    // A blank file, or one holding something else: not damage, but the wrong
    // file (or one mkfs never made).
    return Status::NotFound(path + " is not a hintfs device image (no hintfs header at its start): "
                            "check the path, or make one with hintfs mkfs --force");
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

Status DecodeZoneTable(std::string_view table, const DeviceGeometry& g, const std::string& path,
                       std::vector<ZoneState>* zones) {
  if (table.size() < kZoneEntrySize * g.zone_count) {
    return Status::Corruption(path + ": zone table cut short");
  }
  zones->assign(g.zone_count, ZoneState());
  for (uint32_t z = 0; z < g.zone_count; z++) {
    const char* e = table.data() + kZoneEntrySize * z;
    if (DecodeFixed32(e + 12) != crc32c::Value(e, 12)) {
      return Status::Corruption(fmt::format("{}: zone {} state checksum mismatch", path, z));
    }
    ZoneState& zs = (*zones)[z];
    zs.wp = zs.durable_wp = DecodeFixed64(e);
    uint8_t cond = static_cast<uint8_t>(e[8]);
    bool conventional = z < g.conventional_zones;
    bool valid = conventional ? cond == 0 : (cond >= 1 && cond <= 7);
    if (!valid || zs.wp > g.zone_capacity || zs.wp % g.block_size != 0 ||
        (cond == static_cast<uint8_t>(ZoneCondition::kEmpty) && zs.wp != 0)) {
      return Status::Corruption(fmt::format("{}: zone {} state out of range", path, z));
    }
    zs.condition = static_cast<ZoneCondition>(cond);
    // A restart closes open zones, as a power cycle does on a drive.
    if (IsOpenCondition(zs.condition)) zs.condition = ZoneCondition::kClosed;
  }
  return Status::OK();
}

std::string HeaderWithPowerCycles(std::string header, uint64_t power_cycles) {
  std::string count;
  PutFixed64(&count, power_cycles);
  header.replace(kPowerCyclesOffset, count.size(), count);
  std::string crc;
  PutFixed32(&crc, crc32c::Value(header.data(), kHeaderSize - 4));
  header.replace(kHeaderSize - 4, 4, crc);
  return header;
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

}  // namespace emulated
}  // namespace hintfs
