// Filesystem: checked block I/O. Every write to a data zone records the
// checksum of each block it wrote; every read checks the blocks it touches;
// a zone that fills keeps its checksums in a trailer (block_sums.h).
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "fs/block_sums.h"
#include "fs/crc32c.h"
#include "fs/fs_impl.h"

namespace hintfs {

uint64_t FsImpl::RoomLocked(const Member* m, const ZoneSlot& slot) const {
  if (slot.sealed || slot.used >= slot.capacity) return 0;
  return (slot.capacity - slot.used) / m->block_size * m->block_size;
}

Status FsImpl::WriteBlocks(uint32_t device, uint32_t zone, uint64_t at, const char* data, size_t n) {
  Member* m = members_[device].get();
  Status s = m->device->Write(at, data, n);
  if (!s.ok()) return s;
  m->dirty = true;
  if (m->info.tier == Tier::kSlow) recent_.Put(device, at, data, n, m->block_size, /*written=*/true);
  std::vector<uint32_t> crcs;
  BlockChecksums(data, n, m->block_size, &crcs);
  std::lock_guard<std::mutex> l(mu_);
  ZoneSlot& slot = m->zones[zone];
  const uint64_t first = (at - m->device->geometry().zone_start(zone)) / m->block_size;
  if (first == 0) {
    slot.checksummed = true;  // a fresh zone; one written before checksums stays unchecked
    slot.crcs.clear();
  }
  slot.used += n;
  if (!slot.checksummed) return Status::OK();
  if (first != slot.crcs.size()) {
    return Status::Corruption(fmt::format("zone {} on {}: checksums cover {} blocks, write at block {}", zone,
                                          m->info.uri, slot.crcs.size(), first));
  }
  slot.crcs.insert(slot.crcs.end(), crcs.begin(), crcs.end());
  MetadataOp op;
  op.type = MetadataOp::Type::kBlockSums;
  op.device = device;
  op.zone = zone;
  op.block = static_cast<uint32_t>(first);
  op.crcs = std::move(crcs);
  journal_->Add(op);
  return Status::OK();
}

Status FsImpl::SealZone(uint32_t device, uint32_t zone) {
  std::lock_guard<std::mutex> l(mu_);
  return SealZoneLocked(device, zone);
}

Status FsImpl::SealZoneLocked(uint32_t device, uint32_t zone) {
  Member* m = members_[device].get();
  ZoneSlot& slot = m->zones[zone];
  if (slot.sealed) return Status::OK();
  if (slot.checksummed && slot.used > 0) {
    Status s = WriteTrailerLocked(device, zone);
    if (!s.ok()) return s;
  }
  // A zone the device still counts as open would hold one of its active-zone places.
  return m->device->FinishZone(zone);
}

Status FsImpl::RetireZoneLocked(uint32_t device, uint32_t zone) {
  Status s = SealZoneLocked(device, zone);
  if (!s.ok()) return s;
  ZoneSlot& slot = members_[device]->zones[zone];
  slot.used = slot.capacity;
  std::lock_guard<std::mutex> l(stats_mu_);
  stats_.zones_finished++;
  return Status::OK();
}

Status FsImpl::WriteTrailerLocked(uint32_t device, uint32_t zone) {
  Member* m = members_[device].get();
  ZoneSlot& slot = m->zones[zone];
  const uint32_t blocks = static_cast<uint32_t>(slot.used / m->block_size);
  if (slot.crcs.size() != blocks) {
    return Status::Corruption(fmt::format("zone {} on {}: {} checksums for {} blocks", zone, m->info.uri,
                                          slot.crcs.size(), blocks));
  }
  std::string trailer = EncodeTrailer(device, zone, slot.crcs, m->block_size);
  Status s = m->device->Write(m->device->geometry().zone_start(zone) + slot.used, trailer.data(), trailer.size());
  if (!s.ok()) return s;
  m->dirty = true;
  slot.sealed = true;
  slot.trailer_block = blocks;
  slot.table_known = true;
  slot.table_crc = ChecksumTableCrc(slot.crcs);
  MetadataOp op;
  op.type = MetadataOp::Type::kZoneSealedTable;
  op.device = device;
  op.zone = zone;
  op.block = blocks;
  op.table_crc = slot.table_crc;
  journal_->Add(op);
  return Status::OK();
}

Status FsImpl::ReadTrailer(uint32_t device, uint32_t zone, uint32_t blocks, std::vector<uint32_t>* crcs,
                           bool* foreign) {
  if (foreign != nullptr) *foreign = false;
  Member* m = members_[device].get();
  std::string t(static_cast<size_t>(TrailerBlocks(uint64_t{blocks} * m->block_size, m->block_size)) *
                    m->block_size, '\0');
  const uint64_t at = m->device->geometry().zone_start(zone) + uint64_t{blocks} * m->block_size;
  Status s = m->device->Read(at, t.size(), &t[0]);
  if (s.ok()) s = DecodeTrailer(t, device, zone, crcs);
  if (s.ok() && crcs->size() != blocks) {
    s = Status::Corruption(fmt::format("trailer of zone {} on {} has {} checksums, the zone {} blocks", zone,
                                       m->info.uri, crcs->size(), blocks));
  }
  if (s.ok()) {
    std::lock_guard<std::mutex> l(mu_);
    const ZoneSlot& slot = m->zones[zone];
    if (slot.table_known && slot.table_crc != ChecksumTableCrc(*crcs)) {
      if (foreign != nullptr) *foreign = true;
      s = Status::Corruption(fmt::format(
          "zone {} on {} (member {}) holds other data than the journal recorded: the member is a copy "
          "from another time or another copy of this filesystem",
          zone, m->info.uri, device));
    }
  }
  return s.ok() ? s : Status::IOError("block checksums unreadable: " + s.message(), EIO);
}

Status FsImpl::LoadTrailer(uint32_t device, uint32_t zone) {
  Member* m = members_[device].get();
  uint32_t blocks;
  {
    std::lock_guard<std::mutex> l(mu_);
    const ZoneSlot& slot = m->zones[zone];
    if (!slot.sealed || slot.crcs.size() >= slot.trailer_block) return Status::OK();
    blocks = slot.trailer_block;
  }
  std::vector<uint32_t> crcs;
  Status s = ReadTrailer(device, zone, blocks, &crcs);
  if (!s.ok()) return s;
  std::lock_guard<std::mutex> l(mu_);
  ZoneSlot& slot = m->zones[zone];
  if (slot.sealed && slot.trailer_block == blocks) slot.crcs = std::move(crcs);
  return Status::OK();
}

Status FsImpl::CheckMembersAgree() {
  // A few sealed zones per member, spread over its zones: a member that is
  // a copy from another time has, in some of the zones written since, a
  // sound trailer the journal did not record. Reads would refuse such a zone
  // anyway; this names the member before anything is read or written.
  constexpr uint32_t kSamples = 8;
  for (uint32_t d = 0; d < members_.size(); d++) {
    std::vector<std::pair<uint32_t, uint32_t>> sealed;  // zone, trailer block
    for (uint32_t z = 0; z < members_[d]->zones.size(); z++) {
      const ZoneSlot& slot = members_[d]->zones[z];
      // Only zones files use: a crash may leave the record of a dead zone
      // that was reset and written again before the journal heard of it.
      if (slot.sealed && slot.table_known && slot.live > 0) sealed.emplace_back(z, slot.trailer_block);
    }
    const size_t step = std::max<size_t>(1, sealed.size() / kSamples);
    for (size_t i = 0; i < sealed.size(); i += step) {
      std::vector<uint32_t> crcs;
      bool foreign = false;
      Status s = ReadTrailer(d, sealed[i].first, sealed[i].second, &crcs, &foreign);
      if (foreign) {  // (a damaged trailer fails only the reads of its zone)
        return Status::Corruption(fmt::format("member {} ({}) does not agree with the journal on {}: {}", d,
                                              members_[d]->info.uri, members_[sb_.meta_device]->info.uri,
                                              s.message()));
      }
    }
  }
  return Status::OK();
}

Status FsImpl::CheckBlocks(const char* blocks, const std::vector<uint32_t>& want, uint32_t device, uint32_t zone,
                           uint64_t first, uint64_t from) const {
  const Member* m = members_[device].get();
  const uint64_t bs = m->block_size;
  for (size_t i = 0; i < want.size(); i++) {
    if (crc32c::Value(blocks + i * bs, bs) != want[i]) {
      return Status::IOError(fmt::format("checksum mismatch in block {} of zone {} on {} (device offset {}): "
                                         "the data is damaged",
                                         first + i, zone, m->info.uri, from + i * bs),
                             EIO);
    }
  }
  return Status::OK();
}

Status FsImpl::ReadChecked(uint32_t device, uint32_t zone, uint64_t offset, size_t n, char* dst, bool check) {
  Member* m = members_[device].get();
  if (n == 0) return Status::OK();
  const uint64_t bs = m->block_size;
  const uint64_t zone_start = m->device->geometry().zone_start(zone);
  const uint64_t first = (offset - zone_start) / bs;
  const uint64_t end = (offset + n - zone_start + bs - 1) / bs;
  // Reused: a read must not cost an allocation.
  thread_local std::vector<uint32_t> want;
  thread_local std::string bounce;
  want.clear();
  for (int attempt = 0; want.empty(); attempt++) {
    bool load = false;
    {
      std::lock_guard<std::mutex> l(mu_);
      const ZoneSlot& slot = m->zones[zone];
      if (!check || !slot.checksummed) return m->device->Read(offset, n, dst);
      if (slot.crcs.size() >= end) {
        want.assign(slot.crcs.begin() + static_cast<long>(first), slot.crcs.begin() + static_cast<long>(end));
      } else if (slot.sealed && attempt == 0) {
        load = true;
      } else {
        return Status::IOError(fmt::format("zone {} on {}: no checksum for block {}", zone, m->info.uri, end - 1),
                               EIO);
      }
    }
    if (load) {
      Status s = LoadTrailer(device, zone);
      if (!s.ok()) return s;
    }
  }
  const uint64_t from = zone_start + first * bs;
  const size_t span = static_cast<size_t>((end - first) * bs);
  // In place when the device's bytes are in memory: checked there, and only
  // the bytes asked for copied out.
  if (const char* view = m->device->ReadView(from, span)) {
    Status s = CheckBlocks(view, want, device, zone, first, from);
    if (!s.ok()) return s;
    if (m->info.tier == Tier::kSlow) recent_.Put(device, from, view, span, m->block_size, /*written=*/false);
    std::memcpy(dst, view + (offset - from), n);
    return s;
  }
  // Whole blocks: the caller's buffer when the range is block aligned.
  char* blocks = dst;
  if (from != offset || span != n) {
    if (bounce.size() < span) bounce.resize(span);
    blocks = &bounce[0];
  }
  Status s = m->device->Read(from, span, blocks);
  if (s.ok()) s = CheckBlocks(blocks, want, device, zone, first, from);
  if (!s.ok()) return s;
  if (m->info.tier == Tier::kSlow) recent_.Put(device, from, blocks, span, m->block_size, /*written=*/false);
  if (blocks != dst) std::memcpy(dst, blocks + (offset - from), n);
  return Status::OK();
}

Status FsImpl::ReadForStore(uint32_t device, uint32_t zone, uint64_t offset, size_t n, char* dst,
                            bool* from_memory) {
  const Member* m = members_[device].get();
  *from_memory = m->info.tier == Tier::kSlow && recent_.GetWritten(device, offset, n, m->block_size, dst);
  if (*from_memory) return Status::OK();
  return ReadChecked(device, zone, offset, n, dst, options_.verify_reads);
}

}  // namespace hintfs
