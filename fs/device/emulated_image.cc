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

#include "fs/device/emulated_state.h"

namespace hintfs {
namespace emulated {

namespace {

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
    h = HeaderWithPowerCycles(std::move(h), power_cycles);
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
  const uint64_t data_offset = ImageDataOffset(g.zone_count);
  std::string image = EncodeImageHeader(g, state->profile, data_offset, 0);
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
  s = DecodeImageHeader(header, &state->geometry, &state->profile, &data_offset, &state->power_cycles,
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
  s = DecodeZoneTable(table, g, uri.path, &state->zones);
  if (!s.ok()) return fail(s);
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
