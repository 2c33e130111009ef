#include "fs/device/block_device.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "fs/device/emulated_state.h"

namespace hintfs {

using emulated::Backing;
using emulated::DeviceState;
using emulated::ZoneState;

namespace {

// Everything the layout may occupy before zone 0, and what a foreign
// filesystem or partition table writes there too.
constexpr uint64_t kLayoutRegion = 1 << 20;
// Unaligned requests move through a bounce buffer this large, a chunk at a
// time.
constexpr size_t kBounceSize = 1 << 20;

Status Errno(const std::string& what) {
  return Status::IOError(fmt::format("{}: {}", what, std::strerror(errno)), errno);
}

// A buffer aligned for O_DIRECT, one per thread (requests are synchronous).
char* BounceBuffer() {
  struct Freer {
    void operator()(char* p) const { std::free(p); }
  };
  thread_local std::unique_ptr<char, Freer> buffer(static_cast<char*>(std::aligned_alloc(4096, kBounceSize)));
  return buffer.get();
}

// The descriptors of an open blk: PATH: data_fd moves zone bytes (O_DIRECT
// when the host allows it), meta_fd the header and zone table (page cache).
struct OpenedTarget {
  int data_fd = -1;
  int meta_fd = -1;
  bool block_device = false;
  bool direct = false;
  uint64_t size = 0;
  uint32_t alignment = 4096;  // of O_DIRECT offsets, lengths and buffers
  ~OpenedTarget() {
    if (data_fd >= 0) ::close(data_fd);
    if (meta_fd >= 0) ::close(meta_fd);
  }
};

class DirectBacking : public Backing {
 public:
  DirectBacking(std::unique_ptr<OpenedTarget> target, uint64_t data_offset, uint64_t zone_size, bool snapshot)
      : t_(std::move(target)), data_offset_(data_offset), zone_size_(zone_size), snapshot_(snapshot) {}

  Status ReadData(uint64_t offset, size_t n, char* buf) override {
    uint64_t pos = data_offset_ + offset;
    if (!t_->direct || Aligned(pos, n, buf)) return emulated::PreadFd(t_->data_fd, pos, n, buf);
    const uint64_t a = t_->alignment;
    while (n > 0) {
      const uint64_t start = pos / a * a;
      const uint64_t end = std::min<uint64_t>((pos + n + a - 1) / a * a, start + kBounceSize);
      char* bounce = BounceBuffer();
      Status s = emulated::PreadFd(t_->data_fd, start, end - start, bounce);
      if (!s.ok()) return s;
      const size_t copied = static_cast<size_t>(std::min<uint64_t>(n, end - pos));
      std::memcpy(buf, bounce + (pos - start), copied);
      buf += copied;
      pos += copied;
      n -= copied;
    }
    return Status::OK();
  }

  // The device checked offset and n against its block size, a multiple of
  // the alignment; only the buffer may be unaligned.
  Status WriteData(uint64_t offset, const char* data, size_t n) override {
    if (snapshot_) return SnapshotRefuses();
    uint64_t pos = data_offset_ + offset;
    if (!t_->direct || Aligned(pos, n, data)) return emulated::PwriteFd(t_->data_fd, pos, data, n);
    while (n > 0) {
      const size_t chunk = std::min(n, kBounceSize);
      char* bounce = BounceBuffer();
      std::memcpy(bounce, data, chunk);
      Status s = emulated::PwriteFd(t_->data_fd, pos, bounce, chunk);
      if (!s.ok()) return s;
      data += chunk;
      pos += chunk;
      n -= chunk;
    }
    return Status::OK();
  }

  Status DiscardZone(uint32_t zone) override {
    if (snapshot_) return SnapshotRefuses();
    return Discard(*t_, data_offset_ + zone_size_ * zone, zone_size_);
  }

  Status PersistZone(uint32_t zone, const ZoneState& state) override {
    if (snapshot_) return SnapshotRefuses();
    std::string e = emulated::EncodeZoneEntry(state);
    return emulated::PwriteFd(t_->meta_fd, emulated::kHeaderSize + emulated::kZoneEntrySize * zone, e.data(),
                              e.size());
  }

  Status PersistPowerCycles(uint64_t) override {
    return Status::NotSupported("a blk: device loses power for real only");
  }

  // One fdatasync covers both descriptors: they share the inode (a file) or
  // the block device, whose sync writes its cached pages and flushes the
  // drive's cache.
  Status Sync() override {
    if (snapshot_) return SnapshotRefuses();
    if (fdatasync(t_->meta_fd) != 0) return Errno("fdatasync");
    return Status::OK();
  }

  bool simulates_power_loss() const override { return false; }

  // Tells the drive (or the host filesystem) that [offset, +n) holds nothing.
  // Drives without discard ignore it, as they may.
  static Status Discard(const OpenedTarget& t, uint64_t offset, uint64_t n) {
    if (t.block_device) {
      uint64_t range[2] = {offset, n};
      if (ioctl(t.data_fd, BLKDISCARD, range) != 0 && errno != EOPNOTSUPP && errno != ENOTTY) {
        return Errno("discard");
      }
    } else if (fallocate(t.data_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
                         static_cast<off_t>(n)) != 0 &&
               errno != EOPNOTSUPP) {
      return Errno("punch hole");
    }
    return Status::OK();
  }

 private:
  bool Aligned(uint64_t pos, size_t n, const void* buf) const {
    const uint64_t a = t_->alignment;
    return pos % a == 0 && n % a == 0 && reinterpret_cast<uintptr_t>(buf) % a == 0;
  }
  static Status SnapshotRefuses() { return Status::NotSupported("the device is open as a snapshot (read-only)"); }

  std::unique_ptr<OpenedTarget> t_;
  uint64_t data_offset_;
  uint64_t zone_size_;
  bool snapshot_;
};

// Opens PATH: O_EXCL and a flock unless a snapshot, O_DIRECT for the data
// when the host filesystem takes it.
Status OpenTarget(const std::string& path, bool snapshot, std::unique_ptr<OpenedTarget>* out) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) {
      return Status::NotFound(fmt::format(
          "blk:{}: no such block device or file (a file must exist at its full size: fallocate -l SIZE {})", path,
          path));
    }
    return Errno(path);
  }
  auto t = std::make_unique<OpenedTarget>();
  t->block_device = S_ISBLK(st.st_mode);
  if (!t->block_device && !S_ISREG(st.st_mode)) {
    return Status::InvalidArgument("blk:" + path + " is neither a block device nor a regular file");
  }
  const int mode = snapshot ? O_RDONLY : O_RDWR;
  const int exclusive = t->block_device && !snapshot ? O_EXCL : 0;
  t->data_fd = ::open(path.c_str(), mode | exclusive | O_DIRECT | O_CLOEXEC);
  t->direct = t->data_fd >= 0;
  if (t->data_fd < 0 && errno == EINVAL) t->data_fd = ::open(path.c_str(), mode | exclusive | O_CLOEXEC);
  if (t->data_fd < 0 && errno == EBUSY) {
    return Status::Busy("blk:" + path + " is in use (mounted, or opened exclusively by another program)");
  }
  if (t->data_fd < 0) return Errno(path);
  if (!snapshot && flock(t->data_fd, LOCK_EX | LOCK_NB) != 0) {
    return Status::Busy("blk:" + path + " is in use by another process or handle");
  }
  t->meta_fd = ::open(path.c_str(), mode | O_CLOEXEC);
  if (t->meta_fd < 0) return Errno(path);
  t->size = static_cast<uint64_t>(st.st_size);
  if (t->block_device) {
    int logical = 0;
    if (ioctl(t->data_fd, BLKGETSIZE64, &t->size) != 0 || ioctl(t->data_fd, BLKSSZGET, &logical) != 0) {
      return Errno(path + ": block device size");
    }
    t->alignment = std::max<uint32_t>(4096, static_cast<uint32_t>(logical));
  }
  *out = std::move(t);
  return Status::OK();
}

// The geometry a first open lays out: the URI's, zones defaulting to as many
// as fit and the open and active limits to none.
Status CarvedGeometry(const DeviceUri& uri, uint64_t size, uint32_t alignment, DeviceGeometry* g) {
  DeviceUri filled = uri;
  if (!filled.Has("max_open")) filled.params["max_open"] = "0";
  if (!filled.Has("max_active")) filled.params["max_active"] = "0";
  if (!filled.Has("zones")) {
    uint64_t zone_size = 0;
    Status s = uri.GetSize("zone_size", 64ull << 20, &zone_size);
    if (!s.ok()) return s;
    uint64_t zones = zone_size == 0 || size < kLayoutRegion ? 0 : (size - kLayoutRegion) / zone_size;
    zones = std::min<uint64_t>(zones, emulated::kMaxZones);
    while (zones > 0 && emulated::ImageDataOffset(static_cast<uint32_t>(zones)) + zones * zone_size > size) zones--;
    if (zones < 2) {
      return Status::InvalidArgument(fmt::format("blk:{} ({} bytes) holds fewer than two zones of {}", uri.path,
                                                 size, FormatSize(zone_size)));
    }
    filled.params["zones"] = std::to_string(zones);
  }
  Status s = emulated::GeometryFromUri(filled, g);
  if (!s.ok()) return s;
  if (g->block_size % alignment != 0) {
    return Status::InvalidArgument(fmt::format("blk:{}: block_size {} is not a multiple of the device's {}-byte blocks",
                                               uri.path, g->block_size, alignment));
  }
  const uint64_t needed = emulated::ImageDataOffset(g->zone_count) + g->capacity_bytes();
  if (needed > size) {
    return Status::InvalidArgument(fmt::format("blk:{}: {} zones of {} need {} bytes; it has {}", uri.path,
                                               g->zone_count, FormatSize(g->zone_size), needed, size));
  }
  return Status::OK();
}

// Lays out a new device: refuses to overwrite what is not ours, then writes
// the header and zone table and discards every zone.
Status Carve(const DeviceUri& uri, const OpenedTarget& t, const std::string& first_region, DeviceState* state) {
  if (first_region.find_first_not_of('\0') != std::string::npos) {
    return Status::InvalidArgument(fmt::format(
        "blk:{} holds data that is not hintfs (a filesystem or partition table?): hintfs mkfs --force "
        "overwrites it", uri.path));
  }
  Status s = CarvedGeometry(uri, t.size, t.alignment, &state->geometry);
  if (!s.ok()) return s;
  state->profile.name = uri.GetString("profile", "");
  s = uri.GetDouble("profile_scale", 1.0, &state->profile.scale);
  if (!s.ok()) return s;
  const DeviceGeometry& g = state->geometry;
  const uint64_t data_offset = emulated::ImageDataOffset(g.zone_count);
  state->zones.assign(g.zone_count, ZoneState());
  std::string layout = emulated::EncodeImageHeader(g, state->profile, data_offset, 0);
  for (uint32_t z = 0; z < g.zone_count; z++) {
    if (z < g.conventional_zones) state->zones[z].condition = ZoneCondition::kNotWritePointer;
    layout += emulated::EncodeZoneEntry(state->zones[z]);
  }
  s = DirectBacking::Discard(t, data_offset, g.capacity_bytes());
  if (s.ok()) s = emulated::PwriteFd(t.meta_fd, 0, layout.data(), layout.size());
  if (s.ok() && fdatasync(t.meta_fd) != 0) s = Errno("fdatasync");
  return s;
}

// Reads back the layout a first open wrote.
Status LoadLayout(const DeviceUri& uri, const OpenedTarget& t, const std::string& header, DeviceState* state,
                  uint64_t* data_offset) {
  const std::string name = "blk:" + uri.path;
  Status s = emulated::DecodeImageHeader(header, &state->geometry, &state->profile, data_offset,
                                         &state->power_cycles, name);
  if (!s.ok()) return s;
  s = emulated::CheckGeometryMatches(uri, state->geometry);
  if (!s.ok()) return s;
  const DeviceGeometry& g = state->geometry;
  if (g.block_size % t.alignment != 0) {  // a layout copied to a drive with larger blocks
    return Status::InvalidArgument(fmt::format("{}: its layout's block_size {} is not a multiple of the device's "
                                               "{}-byte blocks", name, g.block_size, t.alignment));
  }
  if (*data_offset + g.capacity_bytes() > t.size) {
    return Status::Corruption(fmt::format("{} is smaller ({} bytes) than its zone layout ({} zones of {})", name,
                                          t.size, g.zone_count, FormatSize(g.zone_size)));
  }
  std::string table(emulated::kZoneEntrySize * g.zone_count, '\0');
  s = emulated::PreadFd(t.meta_fd, emulated::kHeaderSize, table.size(), &table[0]);
  if (!s.ok()) return s;
  return emulated::DecodeZoneTable(table, g, name, &state->zones);
}

}  // namespace

Status OpenBlockDevice(const DeviceUri& uri, bool create, std::unique_ptr<ZonedDevice>* device,
                       StoredProfile* profile) {
  uint64_t snapshot = 0;
  Status s = uri.GetUint("snapshot", 0, &snapshot);
  if (!s.ok()) return s;
  if (snapshot > 1) return Status::InvalidArgument("snapshot: expected 0 or 1");
  if (snapshot == 1 && create) return Status::InvalidArgument("snapshot=1 opens an existing layout; it makes none");
  std::unique_ptr<OpenedTarget> t;
  s = OpenTarget(uri.path, snapshot == 1, &t);
  if (!s.ok()) return s;
  std::string first_region(std::min<uint64_t>(kLayoutRegion, t->size), '\0');
  s = emulated::PreadFd(t->meta_fd, 0, first_region.size(), &first_region[0]);
  if (!s.ok()) return s;
  auto state = std::make_shared<DeviceState>();
  uint64_t data_offset = 0;
  s = LoadLayout(uri, *t, first_region.substr(0, emulated::kHeaderSize), state.get(), &data_offset);
  if (s.IsNotFound()) {  // no header: never laid out
    if (!create) {
      return Status::NotFound("blk:" + uri.path + " holds no hintfs zone layout: make one with hintfs mkfs");
    }
    s = Carve(uri, *t, first_region, state.get());
    data_offset = emulated::ImageDataOffset(state->geometry.zone_count);
  }
  if (!s.ok()) return s;
  state->zone_write_mu.reset(new std::mutex[state->geometry.zone_count]);
  *profile = state->profile;
  const uint64_t zone_size = state->geometry.zone_size;
  *device = emulated::NewLogicalZoneDevice(
      "blk:" + uri.path, state, std::make_unique<DirectBacking>(std::move(t), data_offset, zone_size, snapshot == 1));
  return Status::OK();
}

Status ForgetBlockDeviceLayout(const DeviceUri& uri) {
  std::unique_ptr<OpenedTarget> t;
  Status s = OpenTarget(uri.path, /*snapshot=*/false, &t);
  if (!s.ok()) return s;
  std::string zeros(std::min<uint64_t>(kLayoutRegion, t->size), '\0');
  s = emulated::PwriteFd(t->meta_fd, 0, zeros.data(), zeros.size());
  if (s.ok() && fdatasync(t->meta_fd) != 0) s = Errno("fdatasync");
  return s;
}

}  // namespace hintfs
