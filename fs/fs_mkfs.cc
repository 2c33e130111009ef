// Filesystem: mkfs (devices opened and wiped, superblocks, the first
// journal snapshot).
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <set>

#include <fmt/format.h>

#include "fs/fs_impl.h"
#include "fs/uri.h"

namespace hintfs {

namespace {

// "scheme:path" with an absolute path, as recorded in the superblock.
std::string CanonicalUri(const DeviceUri& uri) {
  std::string path = uri.path;
  if ((uri.scheme == "file" || uri.scheme == "blk") && !path.empty() && path[0] != '/') {
    char* cwd = ::getcwd(nullptr, 0);
    if (cwd != nullptr) {
      path = std::string(cwd) + "/" + path;
      std::free(cwd);
    }
  }
  return uri.scheme + ":" + path;
}

// Opens a device for mkfs (creating an emulated one), refusing a name given
// twice and, without force, a device that holds anything.
Status OpenMkfsDevice(const MkfsDevice& d, bool force, std::set<std::string>* seen,
                      std::unique_ptr<ZonedDevice>* dev, MemberInfo* member) {
  DeviceUri uri;
  Status s = DeviceUri::Parse(d.uri, &uri);
  if (!s.ok()) return s;
  std::string canonical = CanonicalUri(uri);
  if (!seen->insert(canonical).second) return Status::InvalidArgument(canonical + " is named twice");
  // The emulated device anew, with the geometry asked for; a blk: device laid
  // out anew (its URI's geometry or the defaults), over whatever it held.
  if (force && (uri.Has("zones") || uri.scheme == "blk")) {
    s = ForgetDeviceLayout(d.uri);
    if (!s.ok()) return s;
  }
  s = OpenZonedDevice(d.uri, /*create=*/true, dev);
  if (!s.ok()) return s;
  std::vector<ZoneInfo> zones;
  s = (*dev)->ReportZones(0, (*dev)->geometry().zone_count, &zones);
  if (!s.ok()) return s;
  bool written = false;
  for (const ZoneInfo& z : zones) written = written || (z.is_sequential() && z.write_pointer != z.start);
  if (!force && written) {
    Superblock existing;
    if (Superblock::Read(dev->get(), &existing).ok()) {
      return Status::AlreadyExists(fmt::format("{} holds hintfs filesystem {}; use --force to overwrite",
                                               canonical, UuidToString(existing.fs_uuid)));
    }
    return Status::AlreadyExists(canonical + " is not empty; use --force to overwrite");
  }
  member->uuid = NewUuid();
  member->tier = d.tier;
  member->uri = canonical;
  member->zone_count = (*dev)->geometry().zone_count;
  member->zone_size = (*dev)->geometry().zone_size;
  member->zone_capacity = (*dev)->geometry().zone_capacity;
  member->data_zones = d.data_zones;
  return Status::OK();
}

// Resets every written zone, then writes each member's superblock in zone 0.
Status WipeAndWriteSuperblocks(const std::vector<std::unique_ptr<ZonedDevice>>& devices, Superblock sb,
                               const ProgressFn& progress) {
  uint64_t total_zones = 0, done_zones = 0;
  for (auto& dev : devices) total_zones += dev->geometry().zone_count;
  for (size_t i = 0; i < devices.size(); i++) {
    ZonedDevice* dev = devices[i].get();
    const DeviceGeometry& g = dev->geometry();
    if (g.zone_count < 2) return Status::InvalidArgument(sb.members[i].uri + " needs at least 2 zones");
    std::vector<ZoneInfo> zones;
    Status s = dev->ReportZones(0, g.zone_count, &zones);
    if (!s.ok()) return s;
    for (const ZoneInfo& z : zones) {
      if (z.is_sequential() && z.condition != ZoneCondition::kEmpty) {
        s = dev->ResetZone(z.index);
        if (!s.ok()) return s;
      }
      if (progress) progress(++done_zones, total_zones);
    }
  }
  for (size_t i = 0; i < devices.size(); i++) {
    ZonedDevice* dev = devices[i].get();
    sb.member_index = static_cast<uint32_t>(i);
    std::string block = sb.Encode();
    block.resize(std::max<size_t>(block.size(), dev->geometry().block_size), '\0');
    Status s = dev->Write(0, block.data(), block.size());
    if (s.ok() && dev->geometry().conventional_zones == 0) s = dev->FinishZone(0);
    if (s.ok()) s = dev->Flush();
    if (!s.ok()) return s;
  }
  return Status::OK();
}

// The first journal snapshot: the policy and the root directory.
Status FormatJournal(ZonedDevice* meta, const Superblock& sb, const std::string& policy_name) {
  MetadataImage image;
  MetadataOp policy;
  policy.type = MetadataOp::Type::kSetPolicy;
  policy.name = policy_name;
  MetadataOp root;
  root.type = MetadataOp::Type::kCreateInode;
  root.inode.id = kRootInode;
  root.inode.type = FileType::kDirectory;
  root.inode.mtime_ns = sb.created_ns;
  Status s = image.Apply(policy);
  if (s.ok()) s = image.Apply(root);
  if (!s.ok()) return s;
  // A host log in process memory of an earlier filesystem on this mem: device.
  HostLog::ForgetMemory(HostLogPath("", sb.members[sb.meta_device].uri, sb.fs_uuid));
  Journal journal(meta, sb.meta_first_zone, sb.meta_zone_count, [] { return Status::OK(); });
  return journal.Format(image);
}

}  // namespace

Status Filesystem::Mkfs(const MkfsOptions& options) {
  if (options.devices.empty()) return Status::InvalidArgument("mkfs needs at least one device");
  if (options.meta_zones < 2) return Status::InvalidArgument("meta_zones must be at least 2");
  if (options.policy.size() > kMaxPolicyName) {
    return Status::InvalidArgument(fmt::format("placement policy name longer than {} bytes", kMaxPolicyName));
  }
  size_t meta_device = options.devices.size();
  for (size_t i = 0; i < options.devices.size(); i++) {
    if (options.devices[i].tier == Tier::kFast) {
      meta_device = i;
      break;
    }
  }
  if (meta_device == options.devices.size()) {
    return Status::InvalidArgument("mkfs needs a fast device (it holds the journal)");
  }
  Superblock sb;
  sb.fs_uuid = NewUuid();
  sb.created_ns = WallClockNs();
  sb.meta_device = static_cast<uint32_t>(meta_device);
  sb.meta_zone_count = options.meta_zones;
  std::vector<std::unique_ptr<ZonedDevice>> devices;
  std::set<std::string> seen;
  for (const MkfsDevice& d : options.devices) {
    std::unique_ptr<ZonedDevice> dev;
    MemberInfo member;
    Status s = OpenMkfsDevice(d, options.force, &seen, &dev, &member);
    if (!s.ok()) return s;
    sb.members.push_back(member);
    devices.push_back(std::move(dev));
  }
  ZonedDevice* meta = devices[meta_device].get();
  sb.meta_first_zone = std::max<uint32_t>(1, meta->geometry().conventional_zones);
  uint64_t needed = uint64_t{sb.meta_first_zone} + sb.meta_zone_count + 2;
  if (meta->geometry().zone_count < needed) {
    return Status::InvalidArgument(fmt::format(
        "{} has {} zones; the journal device needs at least {} (superblock, {} journal zones, 2 data)",
        sb.members[meta_device].uri, meta->geometry().zone_count, needed, sb.meta_zone_count));
  }
  for (size_t i = 0; i < sb.members.size(); i++) {
    const MemberInfo& m = sb.members[i];
    uint32_t own = std::max<uint32_t>(1, devices[i]->geometry().conventional_zones) +
                   (i == meta_device ? sb.meta_zone_count : 0);
    if (m.data_zones > 0 && uint64_t{m.data_zones} + own > m.zone_count) {
      return Status::InvalidArgument(fmt::format("{}: {} data zones asked, {} of its {} zones are free for data",
                                                 m.uri, m.data_zones, m.zone_count - own, m.zone_count));
    }
  }
  Status s = WipeAndWriteSuperblocks(devices, sb, options.progress);
  if (!s.ok()) return s;
  return FormatJournal(meta, sb, options.policy);
}

}  // namespace hintfs
