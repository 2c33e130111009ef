// The image file of a file: emulated device: header, zone table, data
// (docs/formats.md, "Emulated device image").
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "fs/coding.h"
#include "fs/crc32c.h"
#include "fs/device/emulated_state.h"

namespace hintfs {
namespace emulated {

namespace {

constexpr char kImageMagic[8] = {'H', 'Z', 'D', 'E', 'V', 'I', 'M', 'G'};
constexpr uint32_t kImageVersion = 1;
constexpr uint64_t kHeaderSize = 4096;
constexpr uint64_t kZoneEntrySize = 16;
constexpr uint64_t kDataAlignment = 1 << 20;
// Where the header keeps the count of simulated power losses (zero in images
// written before it existed).
constexpr uint64_t kPowerCyclesOffset = kHeaderSize - 12;

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

}  // namespace

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

namespace {

Status DecodeHeader(std::string_view h, DeviceGeometry* g, StoredProfile* p, uint64_t* data_offset,
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
  // A snapshot backing reads only (the image is another process's).
  FileBacking(int fd, uint64_t data_offset, uint64_t capacity, uint64_t zone_size, bool sync, bool snapshot)
      : fd_(fd), data_offset_(data_offset), zone_size_(zone_size), sync_(sync), snapshot_(snapshot) {
    // Reads copy out of a shared read-only mapping of the image (the page
    // cache pwrite fills): no system call per read. Without one, pread.
    map_size_ = data_offset + capacity;
    void* map = ::mmap(nullptr, map_size_, PROT_READ, MAP_SHARED, fd, 0);
    map_ = map == MAP_FAILED ? nullptr : static_cast<const char*>(map);
  }
  ~FileBacking() override {
    if (map_ != nullptr) ::munmap(const_cast<char*>(map_), map_size_);
    ::close(fd_);
  }

  const char* View(uint64_t offset, size_t n) override {
    static_cast<void>(n);
    return map_ == nullptr ? nullptr : map_ + data_offset_ + offset;
  }

  Status ReadData(uint64_t offset, size_t n, char* buf) override {
    if (map_ != nullptr) {
      std::memcpy(buf, map_ + data_offset_ + offset, n);
      return Status::OK();
    }
    return PreadFull(data_offset_ + offset, n, buf);
  }

  Status WriteData(uint64_t offset, const char* data, size_t n) override {
    return PwriteFull(data_offset_ + offset, data, n);
  }

  Status DiscardZone(uint32_t zone) override {
    if (snapshot_) return SnapshotRefuses();
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
    if (snapshot_) return SnapshotRefuses();
    return PwriteFd(fd_, offset, data, n);
  }
  static Status SnapshotRefuses() { return Status::NotSupported("the image is open as a snapshot (read-only)"); }

 private:
  int fd_;
  const char* map_ = nullptr;
  uint64_t map_size_ = 0;
  uint64_t data_offset_;
  uint64_t zone_size_;
  bool sync_;
  bool snapshot_;
};

}  // namespace

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

namespace {

// Writes a new image's header and zone table on fd (which it then owns;
// the image is removed if that fails).
Status CreateImage(const DeviceUri& uri, int fd, bool sync, DeviceState* state,
                   std::unique_ptr<Backing>* backing_out) {
  Status s = GeometryFromUri(uri, &state->geometry);
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
  const uint64_t data_offset =
      (kHeaderSize + kZoneEntrySize * g.zone_count + kDataAlignment - 1) / kDataAlignment * kDataAlignment;
  std::string image = EncodeHeader(g, state->profile, data_offset, 0);
  state->zones.resize(g.zone_count);
  state->zone_write_mu.reset(new std::mutex[g.zone_count]);
  for (uint32_t z = 0; z < g.zone_count; z++) {
    if (z < g.conventional_zones) state->zones[z].condition = ZoneCondition::kNotWritePointer;
    image += EncodeZoneEntry(state->zones[z]);
  }
  auto backing = std::make_unique<FileBacking>(fd, data_offset, g.capacity_bytes(), g.zone_size, sync, false);
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
  *backing_out = std::move(backing);
  return Status::OK();
}

// Reads an existing image's header and zone table from fd (which it then
// owns).
Status LoadImage(const DeviceUri& uri, int fd, bool sync, bool snapshot, DeviceState* state,
                 std::unique_ptr<Backing>* backing_out) {
  uint64_t data_offset = 0;
  Status s;
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
  *backing_out = std::make_unique<FileBacking>(fd, data_offset, g.capacity_bytes(), g.zone_size, sync, snapshot);
  return Status::OK();
}

}  // namespace

Status OpenImage(const DeviceUri& uri, bool create, std::shared_ptr<DeviceState>* state_out,
                 std::unique_ptr<Backing>* backing_out) {
  uint64_t sync = 1;
  Status s = uri.GetUint("sync", 1, &sync);
  if (!s.ok()) return s;
  if (sync > 1) return Status::InvalidArgument("sync: expected 0 or 1");
  uint64_t snapshot = 0;
  s = uri.GetUint("snapshot", 0, &snapshot);
  if (!s.ok()) return s;
  if (snapshot > 1) return Status::InvalidArgument("snapshot: expected 0 or 1");
  if (snapshot == 1 && create) return Status::InvalidArgument("snapshot=1 opens an existing image; it creates none");
  int fd = ::open(uri.path.c_str(), (snapshot == 1 ? O_RDONLY : O_RDWR) | O_CLOEXEC);
  bool fresh = false;
  if (fd < 0 && errno == ENOENT && create) {
    fd = ::open(uri.path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    fresh = true;
  }
  if (fd < 0) {
    if (errno == ENOENT && create) {
      std::string dir = std::filesystem::path(uri.path).parent_path().string();
      return Status::NotFound(fmt::format("cannot create {}: directory {} does not exist", uri.path,
                                          dir.empty() ? "." : dir));
    }
    if (errno == ENOENT) return Status::NotFound("no device image at " + uri.path + ": make one with hintfs mkfs");
    return Status::IOError(fmt::format("{}: {}", uri.path, std::strerror(errno)), errno);
  }
  // A snapshot reads what another process holds: it takes no lock, and sees
  // the image as the holder has written it (zone states are stored at every
  // write).
  if (snapshot == 0 && flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return Status::Busy(uri.path + ": device image is in use by another process or handle");
  }
  auto state = std::make_shared<DeviceState>();
  s = fresh ? CreateImage(uri, fd, sync != 0, state.get(), backing_out)
            : LoadImage(uri, fd, sync != 0, snapshot == 1, state.get(), backing_out);
  if (s.ok()) *state_out = state;
  return s;
}
}  // namespace emulated
}  // namespace hintfs
