// Zoned block devices through the kernel with libzbd: host-managed SMR disks
// and ZNS namespaces (/dev/nvme0n1), or zoned null_blk. Data moves with
// O_DIRECT pread/pwrite; zone management with libzbd's ioctls.
#include <fcntl.h>
#include <libzbd/zbd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "fs/device/kernel_zoned_device.h"

namespace hintfs {
namespace {

ZoneCondition ConditionOf(unsigned int cond) {
  switch (cond) {
    case ZBD_ZONE_COND_NOT_WP: return ZoneCondition::kNotWritePointer;
    case ZBD_ZONE_COND_EMPTY: return ZoneCondition::kEmpty;
    case ZBD_ZONE_COND_IMP_OPEN: return ZoneCondition::kImplicitOpen;
    case ZBD_ZONE_COND_EXP_OPEN: return ZoneCondition::kExplicitOpen;
    case ZBD_ZONE_COND_CLOSED: return ZoneCondition::kClosed;
    case ZBD_ZONE_COND_FULL: return ZoneCondition::kFull;
    case ZBD_ZONE_COND_READONLY: return ZoneCondition::kReadOnly;
    default: return ZoneCondition::kOffline;
  }
}

// Each pwrite we issue must reach the drive as one request, so that writes
// to a zone cannot be reordered whatever the I/O scheduler.
size_t MaxRequestBytes(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return 128 << 10;
  return QueueTransferLimit(fmt::format("/sys/dev/block/{}:{}/queue/", major(st.st_rdev), minor(st.st_rdev)),
                            "max_sectors_kb");
}

class ZbdCommands : public ZoneCommands {
 public:
  ZbdCommands(std::string path, int fd, const zbd_info& info)
      : path_(std::move(path)), fd_(fd), max_transfer_(MaxRequestBytes(path_)) {
    geometry_.zone_count = info.nr_zones;
    geometry_.zone_size = info.zone_size;
    geometry_.zone_capacity = info.zone_size;  // per zone, from the report
    geometry_.block_size = info.lblock_size;
    // libzbd reports -1 (as unsigned) when a limit is unknown: treat as none.
    geometry_.max_open_zones = info.max_nr_open_zones == static_cast<unsigned>(-1) ? 0 : info.max_nr_open_zones;
    geometry_.max_active_zones =
        info.max_nr_active_zones == static_cast<unsigned>(-1) ? 0 : info.max_nr_active_zones;
  }
  ~ZbdCommands() override { zbd_close(fd_); }

  const DeviceGeometry& geometry() const override { return geometry_; }
  uint32_t io_alignment() const override { return geometry_.block_size; }
  size_t max_transfer() const override { return max_transfer_; }

  Status Report(uint32_t first, uint32_t count, std::vector<ZoneInfo>* zones) override {
    std::vector<zbd_zone> raw(count);
    unsigned int got = count;
    if (zbd_report_zones(fd_, static_cast<off_t>(first) * geometry_.zone_size,
                         static_cast<off_t>(count) * geometry_.zone_size, ZBD_RO_ALL, raw.data(),
                         &got) != 0) {
      return ZonedErrno(path_ + ": zone report", errno);
    }
    zones->clear();
    for (unsigned int i = 0; i < got && i < count; i++) {
      const zbd_zone& r = raw[i];
      ZoneInfo z;
      z.index = first + i;
      z.start = r.start;
      z.size = r.len;
      z.capacity = r.capacity;
      z.write_pointer = r.wp;
      z.type = r.type == ZBD_ZONE_TYPE_CNV ? ZoneType::kConventional : ZoneType::kSequentialWriteRequired;
      z.condition = ConditionOf(r.cond);
      if (r.type == ZBD_ZONE_TYPE_SWP) {
        return Status::NotSupported(path_ + ": sequential-write-preferred zones (host-aware drive)");
      }
      zones->push_back(z);
    }
    return Status::OK();
  }

  Status Read(uint64_t offset, size_t n, char* buf) override {
    while (n > 0) {
      ssize_t r = pread(fd_, buf, n, static_cast<off_t>(offset));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return ZonedErrno(fmt::format("{}: read [{}, +{})", path_, offset, n), errno);
      if (r == 0) return Status::IOError(fmt::format("{}: read at {}: end of device", path_, offset));
      buf += r, offset += r, n -= r;
    }
    return Status::OK();
  }

  Status Write(uint64_t offset, const char* data, size_t n) override {
    while (n > 0) {
      ssize_t r = pwrite(fd_, data, n, static_cast<off_t>(offset));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return ZonedErrno(fmt::format("{}: write [{}, +{})", path_, offset, n), errno);
      data += r, offset += r, n -= r;
    }
    return Status::OK();
  }

  Status Append(uint32_t, const char*, size_t, uint64_t*) override {
    return Status::NotSupported("zone append through a block device");
  }

  Status Manage(ZoneAction action, uint32_t zone) override {
    static const zbd_zone_op kOps[] = {ZBD_OP_OPEN, ZBD_OP_CLOSE, ZBD_OP_FINISH, ZBD_OP_RESET};
    static const char* kNames[] = {"open", "close", "finish", "reset"};
    int i = static_cast<int>(action);
    // Never len 0: libzbd takes that as "every zone from here on".
    if (zbd_zones_operation(fd_, kOps[i], static_cast<off_t>(zone) * geometry_.zone_size,
                            static_cast<off_t>(geometry_.zone_size)) != 0) {
      return ZonedErrno(fmt::format("{}: zone {} {}", path_, zone, kNames[i]), errno);
    }
    return Status::OK();
  }

  Status Flush() override {
    if (fdatasync(fd_) != 0) return ZonedErrno(path_ + ": flush", errno);
    return Status::OK();
  }

 private:
  const std::string path_;
  const int fd_;
  const size_t max_transfer_;
  DeviceGeometry geometry_;
};

}  // namespace

Status OpenZbdCommands(const std::string& path, std::unique_ptr<ZoneCommands>* commands) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return ZonedErrno(path, errno);
  if (!S_ISBLK(st.st_mode)) return Status::NotSupported(path + ": not a block device");
  zbd_set_log_level(ZBD_LOG_NONE);
  zbd_info info;
  std::memset(&info, 0, sizeof(info));
  // O_EXCL on a block device: no other opener may write behind our shadow.
  int fd = zbd_open(path.c_str(), O_RDWR | O_DIRECT | O_EXCL, &info);
  if (fd < 0) {
    int err = fd == -1 ? errno : -fd;  // libzbd returns -ENXIO for a non-zoned device
    if (err == EBUSY) return Status::Busy(path + ": device is in use (mounted or opened by another program)");
    if (err == ENXIO || err == ENOTSUP || err == EOPNOTSUPP) {
      return Status::NotSupported(path + ": not a zoned block device");
    }
    return ZonedErrno(path + ": open", err);
  }
  if (info.model != ZBD_DM_HOST_MANAGED) {
    zbd_close(fd);
    return Status::NotSupported(path + ": not a host-managed zoned block device (hintfs needs "
                                "sequential-write-required zones)");
  }
  commands->reset(new ZbdCommands(path, fd, info));
  return Status::OK();
}

}  // namespace hintfs
