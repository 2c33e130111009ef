// Filesystem: the consistency check behind `hintfs fsck`.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "fs/fs_impl.h"
#include "fs/uri.h"

namespace hintfs {

bool FsImpl::SetAside(uint64_t inode) {
  std::lock_guard<std::mutex> l(mu_);
  return PathOfLocked(inode).rfind(std::string(kLostAndFound) + "/", 0) == 0;
}

std::string DescribeRecoveredFile(const RecoveredFile& f) {
  std::string line = fmt::format("{}: kept {} bytes written after the last sync", f.path,
                                 f.recovered_bytes);
  if (f.dropped_bytes > 0) {
    line += fmt::format(", dropped {} more that the devices lost in a power cut", f.dropped_bytes);
  }
  return line + " (the last run stopped without unmounting)";
}

void FsImpl::CheckTrailers(const std::function<void(std::string)>& error) {
  for (uint32_t d = 0; d < members_.size(); d++) {
    for (uint32_t z = 0; z < members_[d]->zones.size(); z++) {
      std::vector<uint32_t> known;
      uint32_t blocks;
      {
        std::lock_guard<std::mutex> l(mu_);
        const ZoneSlot& slot = members_[d]->zones[z];
        if (!slot.sealed) continue;
        blocks = slot.trailer_block;
        known = slot.crcs;
      }
      std::vector<uint32_t> stored;
      Status s = ReadTrailer(d, z, blocks, &stored);
      if (!s.ok()) {
        error(fmt::format("device {} zone {}: {}", d, z, s.message()));
      } else if (known.size() == blocks && known != stored) {
        error(fmt::format("device {} zone {}: the trailer's checksums differ from the journal's", d, z));
      }
    }
  }
}

Status FsImpl::Check(bool deep, FsckReport* report, const ProgressFn& progress) {
  *report = FsckReport();
  const Reporter error = [&](std::string msg) { report->errors.push_back(std::move(msg)); };
  const Reporter warn = [&](std::string msg) { report->warnings.push_back(std::move(msg)); };
  MetadataImage image = journal_->image();
  JournalStats js = journal_->stats();
  if (js.torn_tail) warn("journal ends in a torn batch (a crash during a commit); mount rolls past it");
  for (const auto& [key, owner] : image.owners()) {
    warn(fmt::format("device {} zone {}: zone owner record of inode {} (an older format); mount "
                     "releases it", key.first, key.second, owner.inode));
  }
  for (const RecoveredFile& f : Stats().recovered_files) {
    warn(fmt::format("inode {} {}", f.inode, DescribeRecoveredFile(f)));
  }
  CheckSuperblocks(error);
  std::vector<std::vector<ZoneInfo>> zones(members_.size());
  Status s = CheckReportedZones(js, &zones, error, warn);
  if (!s.ok()) return s;
  NamespaceLinks names;
  CheckNamespace(image, &names, error);
  // The files as mount left them (a read-only mount cuts files back only in memory).
  std::map<uint64_t, InodeRecord> records = image.inodes();
  for (const auto& [id, cut] : cut_records_) records[id] = cut;
  const uint64_t total_bytes = CheckExtents(records, zones, names, report, error, warn);
  if (deep) {
    // Every byte against its block checksums, and every trailer against the journal's.
    ReadEveryExtent(records, total_bytes, report, progress, error, warn);
    CheckTrailers(error);
  }
  return Status::OK();
}

void FsImpl::CheckSuperblocks(const Reporter& error) {
  // Every member must carry the same description of the filesystem.
  for (uint32_t d = 0; d < members_.size(); d++) {
    Superblock copy;
    Status s = Superblock::Read(members_[d]->device.get(), &copy);
    if (!s.ok()) {
      error(fmt::format("member {}: {}", d, s.message()));
      continue;
    }
    Superblock expected = sb_;
    expected.member_index = d;
    if (copy.Encode() != expected.Encode()) error(fmt::format("member {}: superblock differs", d));
  }
}

Status FsImpl::CheckReportedZones(const JournalStats& js, std::vector<std::vector<ZoneInfo>>* zones,
                                  const Reporter& error, const Reporter& warn) {
  for (uint32_t d = 0; d < members_.size(); d++) {
    ZonedDevice* dev = members_[d]->device.get();
    Status s = dev->ReportZones(0, dev->geometry().zone_count, &(*zones)[d]);
    if (!s.ok()) return s;
    for (const ZoneInfo& z : (*zones)[d]) {
      if (z.is_sequential() && (z.write_pointer < z.start || z.write_pointer > z.start + z.capacity)) {
        error(fmt::format("device {} zone {}: write pointer outside the zone", d, z.index));
      }
      bool is_meta = d == sb_.meta_device && z.index >= sb_.meta_first_zone &&
                     z.index < sb_.meta_first_zone + sb_.meta_zone_count;
      if (is_meta && z.index != js.active_zone && z.write_pointer != z.start) {
        warn(fmt::format("metadata zone {} holds an older journal generation", z.index));
      }
    }
  }

  return Status::OK();
}

void FsImpl::CheckNamespace(const MetadataImage& image, NamespaceLinks* out, const Reporter& error) {
  // Entries point at inodes, link counts match, directories form a tree.
  std::map<uint64_t, uint32_t>& links = out->links;
  std::map<uint64_t, bool>& reachable = out->reachable;
  for (const auto& [parent, names] : image.entries()) {
    if (image.inodes().count(parent) == 0) error(fmt::format("directory {} has no inode", parent));
    for (const auto& [name, id] : names) {
      auto it = image.inodes().find(id);
      if (it == image.inodes().end()) {
        error(fmt::format("entry '{}' in directory {} points to missing inode {}", name, parent, id));
        continue;
      }
      links[id]++;
      if (it->second.type == FileType::kDirectory && links[id] > 1) {
        error(fmt::format("directory inode {} has more than one name", id));
      }
    }
  }
  std::vector<uint64_t> stack{kRootInode};
  while (!stack.empty()) {
    uint64_t dir = stack.back();
    stack.pop_back();
    if (reachable[dir]) continue;
    reachable[dir] = true;
    auto it = image.entries().find(dir);
    if (it == image.entries().end()) continue;
    for (const auto& [name, id] : it->second) {
      if (image.entries().count(id)) stack.push_back(id);
      else reachable[id] = true;
    }
  }
}

uint64_t FsImpl::CheckExtents(const std::map<uint64_t, InodeRecord>& records,
                              const std::vector<std::vector<ZoneInfo>>& zones, const NamespaceLinks& names,
                              FsckReport* report, const Reporter& error, const Reporter& warn) {
  // Inside written data zones, not overlapping (byte exact: packed copies
  // share device blocks, fs_copy.cc), sizes add up.
  struct Span {
    uint64_t start, end, inode;
  };
  std::vector<std::vector<Span>> spans(members_.size());
  uint64_t total_bytes = 0;
  for (const auto& [id, rec] : records) {
    if (rec.type == FileType::kDirectory) {
      report->directories++;
      if (!rec.extents.empty()) error(fmt::format("directory inode {} has extents", id));
    } else {
      report->files++;
    }
    if (id != kRootInode && rec.nlink != names.LinksOf(id)) {
      error(fmt::format("inode {}: link count {} but {} names", id, rec.nlink, names.LinksOf(id)));
    }
    if (id != kRootInode && rec.nlink == 0) {
      warn(fmt::format("inode {} has no name (open when the system stopped); mount deletes it", id));
    } else if (!names.Reachable(id)) {
      error(fmt::format("inode {} is not reachable from the root", id));
    }
    uint64_t sum = 0;
    for (const Extent& e : rec.extents) {
      report->extents++;
      sum += e.length;
      if (e.device >= members_.size() || e.zone >= zones[e.device].size()) {
        error(fmt::format("inode {}: extent on unknown device/zone {}/{}", id, e.device, e.zone));
        continue;
      }
      const ZoneInfo& z = zones[e.device][e.zone];
      const ZoneSlot& slot = members_[e.device]->zones[e.zone];
      const uint64_t end = e.offset + e.length;
      if (slot.reserved) error(fmt::format("inode {}: extent in reserved zone {}", id, e.zone));
      if (e.length == 0) error(fmt::format("inode {}: empty extent", id));
      if (e.offset < z.start || end > z.write_pointer) {
        error(fmt::format("inode {}: extent [{}, {}) outside the written part of zone {} on device {}",
                          id, e.offset, end, e.zone, e.device));
      }
      spans[e.device].push_back({e.offset, end, id});
      total_bytes += e.length;
    }
    if (sum + rec.tail.size() != rec.size) {
      error(fmt::format("inode {}: size {} but extents and tail hold {}", id, rec.size,
                        sum + rec.tail.size()));
    }
  }
  for (uint32_t d = 0; d < spans.size(); d++) {
    std::sort(spans[d].begin(), spans[d].end(),
              [](const Span& a, const Span& b) { return a.start < b.start; });
    for (size_t i = 1; i < spans[d].size(); i++) {
      if (spans[d][i].start < spans[d][i - 1].end) {
        error(fmt::format("device {}: extents of inodes {} and {} overlap at {}", d,
                          spans[d][i - 1].inode, spans[d][i].inode, spans[d][i].start));
      }
    }
  }
  return total_bytes;
}

void FsImpl::ReadEveryExtent(const std::map<uint64_t, InodeRecord>& records, uint64_t total_bytes, FsckReport* report,
                             const ProgressFn& progress, const Reporter& error, const Reporter& warn) {
  std::string buf;
  for (const auto& [id, rec] : records) {
    for (const Extent& e : rec.extents) {
      if (e.device >= members_.size() || e.zone >= members_[e.device]->zones.size()) continue;
      buf.resize(e.length);
      Status s = ReadChecked(e.device, e.zone, e.offset, e.length, &buf[0]);
      if (!s.ok()) {
        std::string msg = fmt::format("inode {}: reading extent at {}: {}", id, e.offset, s.message());
        if (SetAside(id)) {
          warn(msg + " (set aside in " + kLostAndFound + ")");
        } else {
          error(msg);
        }
      }
      report->bytes_checked += e.length;
      if (progress) progress(report->bytes_checked, total_bytes);
    }
  }
}

}  // namespace hintfs
