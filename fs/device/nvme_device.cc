// NVMe ZNS namespaces through the NVMe generic character device
// (/dev/ngXnY) with libnvme: reads, writes, zone append, zone management and
// zone reports as NVMe passthrough commands, bypassing the block layer (and
// so its I/O scheduler). Zone append lets the device pick the offset, so
// several appenders can share a zone.
#include <fcntl.h>
#include <libnvme.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <endian.h>
#include <memory>

#include "fs/device/kernel_zoned_device.h"

namespace hintfs {
namespace {

ZoneCondition ConditionOf(uint8_t zs) {
  switch (zs >> 4) {
    case NVME_ZNS_ZS_EMPTY: return ZoneCondition::kEmpty;
    case NVME_ZNS_ZS_IMPL_OPEN: return ZoneCondition::kImplicitOpen;
    case NVME_ZNS_ZS_EXPL_OPEN: return ZoneCondition::kExplicitOpen;
    case NVME_ZNS_ZS_CLOSED: return ZoneCondition::kClosed;
    case NVME_ZNS_ZS_READ_ONLY: return ZoneCondition::kReadOnly;
    case NVME_ZNS_ZS_FULL: return ZoneCondition::kFull;
    default: return ZoneCondition::kOffline;
  }
}

// libnvme returns -1 with errno, or the NVMe status of a completed command.
Status NvmeResult(const std::string& what, int rc) {
  if (rc == 0) return Status::OK();
  if (rc < 0) return ZonedErrno(what, errno);
  const int sct = (rc >> NVME_SCT_SHIFT) & NVME_SCT_MASK;
  const int sc = rc & NVME_SC_MASK;
  std::string msg = fmt::format("{}: NVMe status type {:#x} code {:#x}", what, sct, sc);
  if (sct == NVME_SCT_CMD_SPECIFIC) {
    switch (sc) {
      case NVME_SC_ZNS_TOO_MANY_ACTIVE: return Status::Busy(msg + " (too many active zones)");
      case NVME_SC_ZNS_TOO_MANY_OPENS: return Status::Busy(msg + " (too many open zones)");
      case NVME_SC_ZNS_BOUNDARY_ERROR:
      case NVME_SC_ZNS_FULL:
      case NVME_SC_ZNS_INVALID_WRITE:
      case NVME_SC_ZNS_INVAL_TRANSITION: return Status::InvalidArgument(msg);
      default: break;
    }
  }
  return Status::IOError(msg);
}

// The kernel caps passthrough transfers at the queue limits of the
// namespace's block device, which may be below the controller's MDTS.
size_t KernelTransferLimit(const std::string& path) {
  char resolved[PATH_MAX];
  std::string real = realpath(path.c_str(), resolved) ? resolved : path;  // through symlinks
  std::string name = real.substr(real.rfind('/') + 1);  // ng0n1
  if (name.rfind("ng", 0) != 0) return 128 << 10;
  return QueueTransferLimit("/sys/block/nvme" + name.substr(2) + "/queue/", "max_hw_sectors_kb");
}

class NvmeCommands : public ZoneCommands {
 public:
  NvmeCommands(std::string path, int fd, uint32_t nsid) : path_(std::move(path)), fd_(fd), nsid_(nsid) {}
  ~NvmeCommands() override { close(fd_); }

  Status Init() {
    nvme_id_ctrl ctrl;
    Status s = NvmeResult(path_ + ": identify controller", nvme_identify_ctrl(fd_, &ctrl));
    if (!s.ok()) return s;
    // MDTS is in units of the controller's minimum page size, 4 KiB on
    // every controller we know of (CAP.MPSMIN is not reachable from here).
    max_transfer_ = ctrl.mdts ? (size_t{4096} << ctrl.mdts) : (size_t{1} << 20);
    max_transfer_ = std::min(max_transfer_, KernelTransferLimit(path_));
    nvme_zns_id_ctrl zctrl;
    s = NvmeResult(path_ + ": identify ZNS controller", nvme_zns_identify_ctrl(fd_, &zctrl));
    if (!s.ok()) return s;
    max_append_ = zctrl.zasl ? std::min(size_t{4096} << zctrl.zasl, max_transfer_) : max_transfer_;

    nvme_id_ns ns;
    s = NvmeResult(path_ + ": identify namespace", nvme_identify_ns(fd_, nsid_, &ns));
    if (!s.ok()) return s;
    nvme_zns_id_ns zns;
    s = NvmeResult(path_ + ": identify ZNS namespace", nvme_zns_identify_ns(fd_, nsid_, &zns));
    if (!s.ok()) return Status::NotSupported(path_ + ": not a ZNS namespace (" + s.message() + ")");
    const int format = (ns.flbas & NVME_NS_FLBAS_LOWER_MASK) | ((ns.flbas & NVME_NS_FLBAS_HIGHER_MASK) >> 1);
    lba_ = 1u << ns.lbaf[format].ds;
    const uint64_t zone_lbas = le64toh(zns.lbafe[format].zsze);
    if (zone_lbas == 0) return Status::NotSupported(path_ + ": namespace reports no zone size");
    geometry_.block_size = lba_;
    geometry_.zone_size = zone_lbas * lba_;
    geometry_.zone_capacity = geometry_.zone_size;
    geometry_.zone_count = static_cast<uint32_t>(le64toh(ns.nsze) / zone_lbas);
    const uint32_t mor = le32toh(zns.mor), mar = le32toh(zns.mar);
    geometry_.max_open_zones = mor == 0xffffffffu ? 0 : mor + 1;  // 0's based; all ones: no limit
    geometry_.max_active_zones = mar == 0xffffffffu ? 0 : mar + 1;
    return Status::OK();
  }

  const DeviceGeometry& geometry() const override { return geometry_; }
  uint32_t io_alignment() const override { return 4096; }
  size_t max_transfer() const override { return max_transfer_; }
  size_t max_append() const override { return max_append_; }

  Status Report(uint32_t first, uint32_t count, std::vector<ZoneInfo>* zones) override {
    zones->clear();
    const size_t per_call = std::max<size_t>(1, std::min<size_t>(count, (std::min<size_t>(max_transfer_, 1 << 20) - 64) / 64));
    std::unique_ptr<char[]> buf(new char[64 + 64 * per_call]);
    while (zones->size() < count) {
      const uint32_t zone = first + static_cast<uint32_t>(zones->size());
      const size_t want = std::min<size_t>(per_call, count - zones->size());
      const uint32_t len = static_cast<uint32_t>(64 + 64 * want);
      std::memset(buf.get(), 0, len);
      int rc = nvme_zns_report_zones(fd_, nsid_, Lba(geometry_.zone_start(zone)), NVME_ZNS_ZRAS_REPORT_ALL,
                                     /*extended=*/false, /*partial=*/true, len, buf.get(),
                                     NVME_DEFAULT_IOCTL_TIMEOUT, nullptr);
      Status s = NvmeResult(fmt::format("{}: report zones from {}", path_, zone), rc);
      if (!s.ok()) return s;
      const auto* report = reinterpret_cast<const nvme_zone_report*>(buf.get());
      const uint64_t got = std::min<uint64_t>(le64toh(report->nr_zones), want);
      if (got == 0) return Status::IOError(fmt::format("{}: zone report from {} is empty", path_, zone));
      for (uint64_t i = 0; i < got; i++) {
        const nvme_zns_desc& d = report->entries[i];
        ZoneInfo z;
        z.index = zone + static_cast<uint32_t>(i);
        z.start = le64toh(d.zslba) * lba_;
        z.size = geometry_.zone_size;
        z.capacity = le64toh(d.zcap) * lba_;
        z.write_pointer = le64toh(d.wp) * lba_;
        z.type = ZoneType::kSequentialWriteRequired;
        if ((d.zt & 0xf) != NVME_ZONE_TYPE_SEQWRITE_REQ) {
          return Status::NotSupported(fmt::format("{}: zone {} of type {:#x}", path_, z.index, d.zt));
        }
        z.condition = ConditionOf(d.zs);
        zones->push_back(z);
      }
    }
    return Status::OK();
  }

  Status Read(uint64_t offset, size_t n, char* buf) override {
    return Io(nvme_cmd_read, offset, n, buf, "read");
  }

  Status Write(uint64_t offset, const char* data, size_t n) override {
    return Io(nvme_cmd_write, offset, n, const_cast<char*>(data), "write");
  }

  Status Append(uint32_t zone, const char* data, size_t n, uint64_t* written_offset) override {
    __u64 assigned = 0;
    nvme_zns_append_args args;
    std::memset(&args, 0, sizeof(args));
    args.args_size = sizeof(args);
    args.fd = fd_;
    args.nsid = nsid_;
    args.zslba = Lba(geometry_.zone_start(zone));
    args.data = const_cast<char*>(data);
    args.data_len = static_cast<__u32>(n);
    args.nlb = static_cast<__u16>(n / lba_ - 1);
    args.result = &assigned;
    args.timeout = NVME_DEFAULT_IOCTL_TIMEOUT;
    Status s = NvmeResult(fmt::format("{}: append {} bytes to zone {}", path_, n, zone), nvme_zns_append(&args));
    if (s.ok()) *written_offset = assigned * lba_;
    return s;
  }

  Status Manage(ZoneAction action, uint32_t zone) override {
    static const nvme_zns_send_action kActions[] = {NVME_ZNS_ZSA_OPEN, NVME_ZNS_ZSA_CLOSE,
                                                     NVME_ZNS_ZSA_FINISH, NVME_ZNS_ZSA_RESET};
    static const char* kNames[] = {"open", "close", "finish", "reset"};
    const int i = static_cast<int>(action);
    __u32 result = 0;
    nvme_zns_mgmt_send_args args;
    std::memset(&args, 0, sizeof(args));
    args.args_size = sizeof(args);
    args.fd = fd_;
    args.nsid = nsid_;
    args.slba = Lba(geometry_.zone_start(zone));
    args.zsa = kActions[i];
    args.select_all = false;
    args.result = &result;
    args.timeout = NVME_DEFAULT_IOCTL_TIMEOUT;
    return NvmeResult(fmt::format("{}: zone {} {}", path_, zone, kNames[i]), nvme_zns_mgmt_send(&args));
  }

  Status Flush() override { return NvmeResult(path_ + ": flush", nvme_flush(fd_, nsid_)); }

 private:
  uint64_t Lba(uint64_t offset) const { return offset / lba_; }

  Status Io(uint8_t opcode, uint64_t offset, size_t n, char* buf, const char* what) {
    __u32 result = 0;
    nvme_io_args args;
    std::memset(&args, 0, sizeof(args));
    args.args_size = sizeof(args);
    args.fd = fd_;
    args.nsid = nsid_;
    args.slba = Lba(offset);
    args.data = buf;
    args.data_len = static_cast<__u32>(n);
    args.nlb = static_cast<__u16>(n / lba_ - 1);
    args.result = &result;
    args.timeout = NVME_DEFAULT_IOCTL_TIMEOUT;
    return NvmeResult(fmt::format("{}: {} [{}, +{})", path_, what, offset, n), nvme_io(&args, opcode));
  }

  const std::string path_;
  const int fd_;
  const uint32_t nsid_;
  uint32_t lba_ = 4096;  // the namespace's LBA size, from Init
  size_t max_transfer_ = 128 << 10;
  size_t max_append_ = 0;
  DeviceGeometry geometry_;
};

}  // namespace

Status OpenNvmeCommands(const std::string& path, std::unique_ptr<ZoneCommands>* commands) {
  int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return ZonedErrno(path + ": open", errno);
  // One hintfs per namespace: the write-pointer shadow must see every write.
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    close(fd);
    return Status::Busy(path + ": namespace is in use by another hintfs");
  }
  __u32 nsid = 0;
  if (nvme_get_nsid(fd, &nsid) != 0) {
    int err = errno;
    close(fd);
    return Status::NotSupported(fmt::format("{}: not an NVMe namespace device ({})", path, std::strerror(err)));
  }
  std::unique_ptr<NvmeCommands> nvme(new NvmeCommands(path, fd, nsid));  // closes fd from here on
  Status s = nvme->Init();
  if (!s.ok()) return s;
  *commands = std::move(nvme);
  return Status::OK();
}

}  // namespace hintfs
