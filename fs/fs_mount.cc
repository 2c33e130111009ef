// Filesystem: mount (journal replay, the host log, what a crash left) and
// unmount.
#include "fs/fs_impl.h"

#include <unistd.h>

#include <cstdlib>

#include <fmt/format.h>

#include "fs/block_sums.h"
#include "fs/uri.h"

namespace hintfs {

// ---------------------------------------------------------------- mount

namespace {

// Where a device URI points, comparable across spellings: the scheme and the
// real path (symlinks, relative paths and options left out).
std::string DevicePlace(const std::string& text) {
  DeviceUri uri;
  if (!DeviceUri::Parse(text, &uri).ok()) return text;
  std::string path = uri.path;
  if (uri.scheme != "mem") {
    char* real = ::realpath(uri.path.c_str(), nullptr);
    if (real != nullptr) {
      path = real;
      std::free(real);
    }
  }
  return uri.scheme + ":" + path;
}

// A device mounted away from the place mkfs recorded for it is a copy or was
// moved: the recorded places of the other members may then be the
// original's, which a copy must never open. They must be named.
Status CheckMemberPlaces(const std::string& opened, const Superblock& sb,
                         const std::map<uint32_t, std::string>& member_uris) {
  const std::string recorded = sb.members[sb.member_index].uri;
  if (DevicePlace(opened) == DevicePlace(recorded)) return Status::OK();
  std::string missing;
  for (uint32_t i = 0; i < sb.members.size(); i++) {
    if (i == sb.member_index || member_uris.count(i)) continue;
    missing += fmt::format("{}--member {}=URI (recorded: {})", missing.empty() ? "" : ", ", i, sb.members[i].uri);
  }
  if (missing.empty()) return Status::OK();
  return Status::InvalidArgument(fmt::format(
      "{} is member {} of filesystem {}, recorded at {}: it was copied or moved, so the recorded places "
      "of its other members may be the original's; name them: {}",
      opened, sb.member_index, UuidToString(sb.fs_uuid), recorded, missing));
}

}  // namespace

Status Filesystem::Mount(const std::string& uri, const MountOptions& options,
                         std::unique_ptr<Filesystem>* fs) {
  auto with_params = [&](const std::string& u) {
    if (options.device_params.empty()) return u;
    return u + (u.find('?') == std::string::npos ? "?" : "&") + options.device_params;
  };
  std::unique_ptr<ZonedDevice> first;
  Status s = OpenZonedDevice(with_params(uri), /*create=*/false, &first);
  if (!s.ok()) return s;
  Superblock sb;
  s = Superblock::Read(first.get(), &sb);
  if (!s.ok()) return s;
  s = CheckMemberPlaces(uri, sb, options.member_uris);
  if (!s.ok()) return s;
  std::vector<std::unique_ptr<Member>> members(sb.members.size());
  for (size_t i = 0; i < sb.members.size(); i++) {
    auto m = std::make_unique<Member>();
    m->info = sb.members[i];
    if (i == sb.member_index) {
      m->device = std::move(first);
      m->info.uri = DevicePlace(uri);
    } else {
      auto moved = options.member_uris.find(static_cast<uint32_t>(i));
      if (moved != options.member_uris.end()) m->info.uri = moved->second;
      s = OpenZonedDevice(with_params(m->info.uri), /*create=*/false, &m->device);
      if (s.ok()) m->info.uri = DevicePlace(m->info.uri);
      if (!s.ok()) {
        return Status(s.IsNotFound() ? Status::NotFound(fmt::format(
                                           "member {} ({}, {}) is missing: {}", i,
                                           TierName(m->info.tier), m->info.uri, s.message()))
                                     : s);
      }
      Superblock other;
      s = Superblock::Read(m->device.get(), &other);
      if (!s.ok()) return s;
      if (other.fs_uuid != sb.fs_uuid || other.member_index != i ||
          other.members[i].uuid != m->info.uuid) {
        return Status::InvalidArgument(fmt::format(
            "{} belongs to another filesystem ({}), not to {}", m->info.uri,
            UuidToString(other.fs_uuid), UuidToString(sb.fs_uuid)));
      }
    }
    const DeviceGeometry& g = m->device->geometry();
    if (g.zone_count != m->info.zone_count || g.zone_size != m->info.zone_size ||
        g.zone_capacity != m->info.zone_capacity) {
      return Status::Corruption(m->info.uri + ": device geometry differs from the superblock");
    }
    m->block_size = g.block_size;
    m->max_active = g.max_active_zones;
    m->seeks = SeekOutweighsTransfer(*m->device, 1 << 20);
    members[i] = std::move(m);
  }
  auto impl = std::make_unique<FsImpl>(options, sb, std::move(members));
  s = impl->Open();
  if (!s.ok()) return s;
  *fs = std::move(impl);
  return Status::OK();
}

namespace {

uint32_t SmallestBlock(const std::vector<std::unique_ptr<Member>>& members) {
  uint32_t smallest = 4096;
  for (const auto& m : members) smallest = std::min(smallest, m->block_size);
  return smallest;
}

}  // namespace

FsImpl::FsImpl(const MountOptions& options, Superblock sb,
               std::vector<std::unique_ptr<Member>> members)
    : options_(options),
      sb_(std::move(sb)),
      members_(std::move(members)),
      recent_(options.recent_blocks_bytes, SmallestBlock(members_), options.reread_window_bytes),
      readahead_(options.readahead_memory_bytes, options.readahead_bytes) {}

FsImpl::~FsImpl() {
  if (!unmounted_) Unmount();
}

Status FsImpl::Open() {
  Member* meta = members_[sb_.meta_device].get();
  journal_ = std::make_unique<Journal>(meta->device.get(), sb_.meta_first_zone,
                                       sb_.meta_zone_count, [this] { return FlushDirtyDevices(); });
  AttachHostLog();
  // The last run's data may still be only in a host or drive cache: the
  // first commit that declares anything durable flushes every device.
  if (!options_.read_only) {
    for (auto& m : members_) m->dirty = true;
  }
  MetadataImage image;
  ReplayReport replay;
  journal_->SetSalvage(options_.repair);
  Status s = journal_->Recover(options_.read_only, &image, &replay);
  if (!s.ok()) return s;
  if (!replay.damage.empty()) repairs_.push_back(replay.damage + ": replayed up to there");
  s = ChoosePolicy(image.policy());
  if (s.ok()) s = LoadZones(image);
  if (s.ok()) s = LoadInodes(image, replay);
  if (s.ok() && !options_.repair) s = CheckMembersAgree();  // repair reads, and sets aside, file by file
  if (!s.ok()) return s;
  for (auto& m : members_) {
    for (ZoneSlot& slot : m->zones) {
      // Sealed zones take no more data, nor do zones holding blocks nobody
      // recorded a checksum for (no extent refers to them).
      if (slot.checksummed && (slot.sealed || slot.crcs.size() < slot.used / m->block_size)) {
        slot.used = slot.capacity;
      }
    }
  }
  std::vector<DeviceSpace> spaces;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (uint32_t d = 0; d < members_.size(); d++) spaces.push_back(DeviceSpaceLocked(d));
  }
  policy_->OnMount(spaces);
  policy_->OnMountedFiles(MountedFilesForPolicy());
  if (options_.read_only) return Status::OK();
  {
    std::lock_guard<std::mutex> l(mu_);
    // Zone owner records of earlier format versions: nothing claims them now.
    for (const auto& [key, owner] : image.owners()) {
      MetadataOp release;
      release.type = MetadataOp::Type::kZoneOwner;
      release.device = key.first;
      release.zone = key.second;
      journal_->Add(release);
    }
    // Inodes left unlinked by a crash while open are deleted now.
    std::vector<Inode*> orphans;
    for (auto& [id, ino] : inodes_) {
      if (id != kRootInode && ino->nlink == 0) orphans.push_back(ino.get());
    }
    for (Inode* ino : orphans) DeleteInodeLocked(ino);
  }
  s = SetDamagedFilesAside();
  if (!s.ok()) return s;
  // Zones whose bytes nothing references (an unfinished migration or GC
  // copy, orphans, blocks appended but never flushed) are reset once the
  // changes above are durable.
  return CommitAndReclaim();
}

Status FsImpl::ChoosePolicy(const std::string& recorded_name) {
  // The caller's, or the one recorded by mkfs.
  const std::string recorded = recorded_name.empty() ? "fast-first" : recorded_name;
  policy_ = options_.policy;
  if (!policy_ && options_.policy_factory) {
    Status s = options_.policy_factory(recorded, &policy_);
    if (!s.ok()) return s;
  }
  if (!policy_) {
    if (recorded != "fast-first") {
      return Status::NotSupported("this filesystem uses placement policy '" + recorded +
                                  "'; mount it through a tool that links placement/");
    }
    policy_ = std::make_shared<FastFirstPolicy>();
  }
  if (policy_->name().size() > kMaxPolicyName) {
    return Status::InvalidArgument(fmt::format("placement policy name longer than {} bytes", kMaxPolicyName));
  }
  if (policy_->name() != recorded && !options_.read_only) {
    MetadataOp op;
    op.type = MetadataOp::Type::kSetPolicy;
    op.name = policy_->name();
    journal_->Add(op);
  }
  return Status::OK();
}

Status FsImpl::SetDamagedFilesAside() {
  for (uint64_t id : damaged_) {
    std::string path;
    {
      std::lock_guard<std::mutex> l(mu_);
      if (inodes_.count(id) == 0) continue;  // deleted meanwhile (an orphan)
      path = PathOfLocked(id);
    }
    if (path.rfind(std::string(kLostAndFound) + "/", 0) == 0 || path[0] != '/') continue;
    Status s = Mkdir(kLostAndFound);
    if (!s.ok() && !s.IsAlreadyExists()) return s;
    std::string to = fmt::format("{}/{}-{}", kLostAndFound, id, path.substr(path.rfind('/') + 1));
    s = Rename(path, to);
    if (!s.ok()) return s;
    repairs_.push_back(fmt::format("{} moved to {}", path, to));
  }
  return Status::OK();
}

void FsImpl::AttachHostLog() {
  if (options_.host_log_dir.empty()) return;
  const Member* meta = members_[sb_.meta_device].get();
  std::unique_ptr<HostLog> log;
  std::string path = HostLogPath(options_.host_log_dir, meta->info.uri, sb_.fs_uuid);
  // Without one, process-kill commits write unflushed device batches.
  if (!HostLog::Open(path, options_.host_log_bytes, /*create=*/!options_.read_only, &log).ok()) return;
  HostLogOwner owner;
  owner.fs_uuid = sb_.fs_uuid;
  owner.boot_id = CurrentBootId();
  owner.power_cycles = meta->device->power_cycles();
  journal_->UseHostLog(std::move(log), owner);
}

Status FsImpl::LoadZones(const MetadataImage& image) {
  for (uint32_t d = 0; d < members_.size(); d++) {
    Member* m = members_[d].get();
    std::vector<ZoneInfo> zones;
    Status s = m->device->ReportZones(0, m->device->geometry().zone_count, &zones);
    if (!s.ok()) return s;
    m->data_capacity = m->info.zone_capacity -
                       uint64_t{TrailerBlocks(m->info.zone_capacity, m->block_size)} * m->block_size;
    m->zones.resize(zones.size());
    for (const ZoneInfo& z : zones) {
      ZoneSlot& slot = m->zones[z.index];
      slot.capacity = z.capacity;
      slot.used = z.is_sequential() ? z.write_pointer - z.start : 0;
      if (!z.is_sequential()) slot.reserved = true, slot.role = ZoneRole::kFree;
      if (z.index == 0) slot.reserved = true, slot.role = ZoneRole::kSuperblock;
      if (d == sb_.meta_device && z.index >= sb_.meta_first_zone &&
          z.index < sb_.meta_first_zone + sb_.meta_zone_count) {
        slot.reserved = true;
        slot.role = ZoneRole::kMetadata;
      }
      if (slot.reserved) continue;
      auto sums = image.zone_sums().find({d, z.index});
      if (slot.used > 0 && sums == image.zone_sums().end()) continue;  // written before checksums
      // A data zone keeps room for its trailer; one sealed (or whose trailer
      // was written but not yet recorded) takes no more data.
      slot.capacity = m->data_capacity;
      auto zone_class = image.zone_classes().find({d, z.index});
      if (zone_class != image.zone_classes().end() && slot.used > 0) {
        slot.role = zone_class->second;  // a copy's class; its files' own may differ
        slot.class_recorded = true;
      } else if (zone_class != image.zone_classes().end() && !options_.read_only) {
        // Empty (a reset the journal missed): the class must not pass to
        // whatever writes the zone next.
        JournalZoneEmptied(d, z.index);
      }
      if (sums == image.zone_sums().end() || slot.used == 0) continue;  // empty (a reset the journal missed)
      const uint64_t written = slot.used;
      slot.used = std::min(slot.used, slot.capacity);  // data bytes (a trailer follows them)
      slot.checksummed = true;
      slot.sealed = sums->second.sealed;
      slot.trailer_block = sums->second.trailer_block;
      slot.table_known = sums->second.table_known;
      slot.table_crc = sums->second.table_crc;
      slot.crcs = sums->second.crcs;
      const uint64_t trailer_end =
          (uint64_t{slot.trailer_block} + TrailerBlocks(uint64_t{slot.trailer_block} * m->block_size, m->block_size)) *
          m->block_size;
      if (slot.sealed && written < trailer_end) {
        // A power cut kept the record of the trailer, not the trailer: the
        // journal keeps the checksums after all.
        slot.sealed = slot.table_known = false;
        if (!options_.read_only) {
          MetadataOp keep;
          keep.type = MetadataOp::Type::kBlockSums;
          keep.device = d;
          keep.zone = z.index;
          keep.crcs = slot.crcs;
          journal_->Add(keep);
        }
      }
      if (slot.crcs.size() > slot.used / m->block_size) {
        slot.crcs.resize(slot.used / m->block_size);  // a power cut kept checksums, not all their blocks
      }
    }
    LeaveZonesPastDataCapacity(m);
  }
  return Status::OK();
}

void FsImpl::LeaveZonesPastDataCapacity(Member* m) {
  if (m->info.data_zones == 0) return;
  // Zones that hold data stay usable whatever their place (an earlier mount
  // may have kept more zones back); empty ones are taken in zone order.
  uint64_t usable = uint64_t{m->info.data_zones} + KeptBackZones();
  uint64_t holding = 0;
  for (const ZoneSlot& slot : m->zones) holding += !slot.reserved && slot.used > 0;
  uint64_t empty_allowed = usable > holding ? usable - holding : 0;
  for (ZoneSlot& slot : m->zones) {
    if (slot.reserved || slot.used > 0) continue;
    if (empty_allowed > 0) {
      empty_allowed--;
      continue;
    }
    slot.reserved = true;  // past the data capacity: never written
    slot.role = ZoneRole::kFree;
  }
}

bool FsImpl::TrimToDevices(InodeRecord* rec) const {
  uint64_t kept = 0;
  for (size_t i = 0; i < rec->extents.size(); i++) {
    Extent& e = rec->extents[i];
    if (e.device >= members_.size() || e.zone >= members_[e.device]->zones.size()) return false;
    const Member* m = members_[e.device].get();
    uint64_t written_end = m->device->geometry().zone_start(e.zone) + m->zones[e.zone].used;
    if (e.offset + e.length <= written_end) {
      kept += e.length;
      continue;
    }
    uint64_t held = written_end > e.offset ? written_end - e.offset : 0;
    e.length = held;
    rec->extents.resize(held > 0 ? i + 1 : i);
    rec->tail.clear();
    rec->size = kept + held;
    return true;
  }
  return false;
}

Status FsImpl::LoadInodes(const MetadataImage& image, const ReplayReport& replay) {
  std::vector<RecoveredFile> recovered;
  for (const auto& [id, journaled] : image.inodes()) {
    InodeRecord rec = journaled;
    auto durable = replay.durable.find(id);
    bool rewrite = false;
    if (durable != replay.durable.end() && TrimToDevices(&rec)) {
      // Unflushed batches named bytes the devices lost in a power cut: the
      // file keeps the longest state the devices hold, never less than its
      // last durable one, as after a crash of any filesystem.
      if (rec.size < durable->second.size) rec = durable->second;
      rewrite = true;
    }
    auto ino = std::make_shared<Inode>();
    ino->id = id;
    ino->type = rec.type;
    ino->role = rec.role;
    ino->nlink = rec.nlink;
    ino->size = rec.size;
    ino->mtime_ns = rec.mtime_ns;
    ino->extents = rec.extents;
    ino->tag = rec.tag;
    ino->mode = rec.mode;
    ino->uid = rec.uid;
    ino->gid = rec.gid;
    ino->pending = rec.tail;  // a synced tail is not on a device yet
    ino->tail_len = rec.tail.size();
    if (rewrite) {
      ino->nlink = journaled.nlink;  // the names are the journal's
      ino->first_dirty = 0;
      ino->attr_dirty = true;
      rec.nlink = journaled.nlink;
      cut_records_[id] = rec;  // what fsck checks instead of the journal's record
    }
    Status s = AdoptExtents(ino.get());
    if (!s.ok()) return s;
    if (!options_.read_only) QueueInodeLocked(ino.get());  // files mount cut or repaired
    if (durable != replay.durable.end() && rec.type == FileType::kFile) {
      RecoveredFile f;
      f.inode = id;
      f.recovered_bytes = ino->size > durable->second.size ? ino->size - durable->second.size : 0;
      f.dropped_bytes = journaled.size > ino->size ? journaled.size - ino->size : 0;
      recovered.push_back(f);
    }
    next_inode_ = std::max(next_inode_, id + 1);
    inodes_[id] = ino;
  }
  if (inodes_.count(kRootInode) == 0) return Status::Corruption("journal has no root directory");
  for (const auto& [parent, names] : image.entries()) dirs_[parent] = names;
  attributes_ = image.attributes();
  std::lock_guard<std::mutex> l(stats_mu_);
  for (RecoveredFile& f : recovered) {
    f.path = PathOfLocked(f.inode);
    stats_.recovered_bytes += f.recovered_bytes;
    stats_.dropped_bytes += f.dropped_bytes;
  }
  stats_.recovered_files = std::move(recovered);
  return Status::OK();
}

Status FsImpl::AdoptExtents(Inode* ino) {
  for (size_t i = 0; i < ino->extents.size(); i++) {
    const Extent& e = ino->extents[i];
    std::string problem;
    if (e.device >= members_.size() || e.zone >= members_[e.device]->zones.size() ||
        members_[e.device]->zones[e.zone].reserved) {
      problem = fmt::format("inode {} has an extent outside the data zones", ino->id);
    } else if (e.offset + e.length - members_[e.device]->device->geometry().zone_start(e.zone) >
               members_[e.device]->zones[e.zone].used) {
      problem = fmt::format("inode {}: extent ends past the write pointer of zone {} on {} (run fsck)", ino->id,
                            e.zone, members_[e.device]->info.uri);
    }
    if (!problem.empty()) {
      if (!options_.repair) return Status::Corruption(problem);
      // Repair keeps what lies before the damage and sets the file aside.
      uint64_t kept = 0;
      for (size_t k = 0; k < i; k++) kept += ino->extents[k].length;
      repairs_.push_back(fmt::format("{}: cut to {} of its {} bytes", problem, kept, ino->size));
      damaged_.push_back(ino->id);
      ino->extents.resize(i);
      ino->pending.clear();
      ino->tail_len = 0;
      ino->size = kept;
      ino->first_dirty = 0;
      ino->attr_dirty = true;
      return Status::OK();
    }
    ZoneSlot& slot = members_[e.device]->zones[e.zone];
    if (!slot.class_recorded) slot.role = ino->role;
    AddLiveLocked(e, +1);
  }
  return Status::OK();
}

std::vector<MountedFile> FsImpl::MountedFilesForPolicy() {
  std::vector<MountedFile> files;
  std::lock_guard<std::mutex> l(mu_);
  for (const auto& [id, ino] : inodes_) {
    if (ino->type != FileType::kFile || ino->nlink == 0) continue;
    std::lock_guard<std::mutex> il(ino->mu);
    // Files of earlier mounts go by their name now, as they will when opened.
    MountedFile f{ino->created_as.empty() ? PathOfLocked(id) : ino->created_as, ino->role, ino->tag, 0, 0};
    for (const Extent& e : ino->extents) {
      (members_[e.device]->info.tier == Tier::kFast ? f.fast_bytes : f.slow_bytes) += e.length;
    }
    files.push_back(std::move(f));
  }
  return files;
}

std::string FsImpl::PathOfLocked(uint64_t inode) const {
  std::string path;
  for (uint64_t cur = inode; cur != kRootInode;) {
    bool found = false;
    for (const auto& [dir, names] : dirs_) {
      for (const auto& [name, child] : names) {
        if (child != cur) continue;
        path = "/" + name + path;
        cur = dir;
        found = true;
        break;
      }
      if (found) break;
    }
    if (!found) return path.empty() ? fmt::format("(inode {}, no name)", inode) : path;
  }
  return path.empty() ? "/" : path;
}

Status FsImpl::Unmount() {
  if (unmounted_) return Status::OK();
  Status result;
  if (!options_.read_only) {
    std::vector<std::shared_ptr<Inode>> all;
    {
      std::lock_guard<std::mutex> l(mu_);
      for (auto& [id, ino] : inodes_) all.push_back(ino);
    }
    for (auto& ino : all) {
      std::lock_guard<std::mutex> il(ino->mu);
      // A link's target or a node's record stays in the journal (its tail):
      // it is never data.
      if (ino->deleted || ino->type == FileType::kSymlink || ino->type == FileType::kSpecial) continue;
      Status s = FinishWriting(ino.get());
      if (!s.ok() && result.ok()) result = s;
    }
    Status s = CommitAndReclaim();
    if (!s.ok() && result.ok()) result = s;
    for (auto& m : members_) {
      s = m->device->Flush();
      if (!s.ok() && result.ok()) result = s;
    }
    if (result.ok()) journal_->RemoveHostLog();  // everything is in the device journal
  }
  unmounted_ = true;
  for (auto& m : members_) m->device.reset();
  return result;
}

}  // namespace hintfs
