// Filesystem: file writers and readers, and how a file's bytes reach zones.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "fs/fs_impl.h"

namespace hintfs {

class FsFileWriter : public FileWriter {
 public:
  FsFileWriter(FsImpl* fs, std::shared_ptr<Inode> ino) : fs_(fs), ino_(std::move(ino)) {}
  ~FsFileWriter() override { Close(); }

  Status Append(std::string_view data) override {
    if (closed_) return Status::InvalidArgument("append to a closed file");
    if (fs_->options().observer) fs_->options().observer->OnAppend(ino_->created_as, data);
    std::lock_guard<std::mutex> l(ino_->mu);
    ino_->mtime_ns = WallClockNs();
    ino_->attr_dirty = true;
    Status s;
    if (ino_->pending.empty() && data.size() >= fs_->options().write_buffer_bytes) {
      // Whole blocks go to the zone straight from the caller's bytes (a FUSE
      // write-back sends 1 MiB at a time): one copy fewer. What is left in
      // data, a partial block or all of it after an error, is buffered.
      // WriteOut counts what it writes in the size, block by block, so that
      // the size never runs ahead of the extents (GC may journal the file
      // while this waits for a zone).
      s = fs_->WriteOut(ino_.get(), /*include_partial=*/false, &data);
    }
    ino_->size += data.size();
    ino_->pending.append(data.data(), data.size());
    if (s.ok() && ino_->pending.size() >= fs_->options().write_buffer_bytes) {
      s = fs_->WriteOut(ino_.get(), /*include_partial=*/false);
    }
    return s;
  }

  Status WriteAt(uint64_t offset, std::string_view data) override {
    if (closed_) return Status::InvalidArgument("write to a closed file");
    uint64_t size;
    for (int attempt = 0;; attempt++) {
      Status s;
      {
        std::lock_guard<std::mutex> l(ino_->mu);
        size = ino_->size;
        if (offset < size) {
          const size_t over = static_cast<size_t>(std::min<uint64_t>(data.size(), size - offset));
          s = fs_->Overwrite(ino_.get(), offset, data.substr(0, over));
          if (s.ok()) data.remove_prefix(over);
        }
      }
      if (s.ok()) break;
      if (!s.IsNoSpace() || attempt == 2) return s;
      // Without the file's lock, so that GC may move its blocks too.
      uint32_t freed = 0;
      Status gc = fs_->CollectGarbage(4, &freed);
      if (!gc.ok() && !gc.IsNoSpace()) return gc;
      if (freed == 0) return s;
    }
    if (data.empty()) return Status::OK();
    // A write past the end: the gap reads as zeros.
    static const std::string kZeros(1 << 20, '\0');
    for (uint64_t gap = offset > size ? offset - size : 0; gap > 0;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(gap, kZeros.size()));
      Status s = Append(std::string_view(kZeros.data(), n));
      if (!s.ok()) return s;
      gap -= n;
    }
    return Append(data);
  }

  Status Flush() override {
    if (closed_) return Status::InvalidArgument("flush of a closed file");
    {
      std::lock_guard<std::mutex> l(ino_->mu);
      Status s = fs_->QueueAllBytes(ino_.get(), /*keep_whole_blocks=*/true);
      if (!s.ok()) return s;
    }
    return fs_->CommitUnflushed();
  }

  Status Sync() override {
    if (closed_) return Status::InvalidArgument("sync of a closed file");
    return fs_->SyncInode(ino_.get());
  }

  Status Close() override {
    if (closed_) return Status::OK();
    closed_ = true;
    Status s;
    {
      std::lock_guard<std::mutex> l(ino_->mu);
      s = fs_->FinishWriting(ino_.get());
      ino_->has_writer = false;
    }
    fs_->CloseHandle(ino_);
    Status c = fs_->CommitUnflushed();
    if (fs_->options().observer) fs_->options().observer->OnClose(ino_->created_as, Size());
    return s.ok() ? c : s;
  }

  uint64_t Size() const override {
    std::lock_guard<std::mutex> l(ino_->mu);
    return ino_->size;
  }

  void SetLifetimeHint(int hint) override {
    if (fs_->options().observer) fs_->options().observer->OnLifetimeHint(ino_->created_as, hint);
    std::lock_guard<std::mutex> l(ino_->mu);
    ino_->lifetime_hint = hint;
  }

 private:
  FsImpl* fs_;
  std::shared_ptr<Inode> ino_;
  bool closed_ = false;
};

class FsFileReader : public FileReader {
 public:
  FsFileReader(FsImpl* fs, std::shared_ptr<Inode> ino, ReadaheadPool* pool)
      : fs_(fs), ino_(std::move(ino)), readahead_(pool) {}
  ~FsFileReader() override { fs_->CloseHandle(ino_); }

  Status Read(uint64_t offset, size_t n, char* scratch, size_t* got) override {
    return readahead_.Read(
        offset, n, scratch, got,
        [this](uint64_t o, size_t k, char* dst, size_t* g) { return fs_->ReadInode(ino_.get(), o, k, dst, g); },
        [this] {
          std::lock_guard<std::mutex> l(ino_->mu);
          return ino_->data_version;
        },
        [this](size_t window) { return fs_->SeekOutweighsTransfer(ino_.get(), window); });
  }
  ReadLocation Locate(uint64_t offset, size_t n) const override { return fs_->LocateInode(ino_.get(), offset, n); }
  uint64_t Size() const override {
    std::lock_guard<std::mutex> l(ino_->mu);
    return ino_->size;
  }

 private:
  FsImpl* fs_;
  std::shared_ptr<Inode> ino_;
  Readahead readahead_;
};

Status FsImpl::OpenWriter(const std::string& path, WriteMode mode,
                          std::unique_ptr<FileWriter>* writer) {
  std::shared_ptr<Inode> ino;
  {
    std::lock_guard<std::mutex> l(mu_);
    Status s = CheckWritable();
    if (!s.ok()) return s;
    uint64_t parent, id;
    std::string name;
    s = ResolveParent(path, &parent, &name);
    if (!s.ok()) return s;
    auto e = dirs_[parent].find(name);
    if (e != dirs_[parent].end()) {
      if (mode == WriteMode::kExclusive) return Status::AlreadyExists(path);
      id = e->second;
      if (dirs_.count(id)) return Status::InvalidArgument(path + " is a directory");
      if (inodes_.at(id)->type != FileType::kFile) return Status::InvalidArgument(path + " is not a regular file");
    } else {
      s = CreateLocked(parent, name, FileType::kFile, path, &id);
      if (!s.ok()) return s;
    }
    ino = inodes_.at(id);
    if (ino->created_as.empty()) ino->created_as = path;
    ino->open_count++;
  }
  std::unique_lock<std::mutex> il(ino->mu);
  if (ino->has_writer) {
    il.unlock();
    CloseHandle(ino);
    return Status::Busy(path + " is already open for writing");
  }
  ino->has_writer = true;
  if (mode == WriteMode::kTruncate && ino->size > 0) {
    ino->pending.clear();
    CountKeptBytes(ino.get(), 0);
    ino->tail_len = 0;
    ino->size = 0;
    ino->data_version++;
    std::lock_guard<std::mutex> l(mu_);
    for (const Extent& e : ino->extents) AddLiveLocked(e, -1);
    ino->extents.clear();
    ino->first_dirty = 0;
    ino->mtime_ns = WallClockNs();
    ino->attr_dirty = true;
  }
  if (mode == WriteMode::kTruncate) QueueInodeLocked(ino.get());
  il.unlock();
  writer->reset(new FsFileWriter(this, ino));
  Status s = CommitUnflushed();  // the create or truncate survives a kill
  if (!s.ok()) writer->reset();
  return s;
}

Status FsImpl::OpenReader(const std::string& path, std::unique_ptr<FileReader>* reader) {
  std::lock_guard<std::mutex> l(mu_);
  if (unmounted_) return Status::IOError("filesystem is unmounted");
  uint64_t id;
  Status s = Resolve(path, &id);
  if (!s.ok()) return s;
  if (dirs_.count(id)) return Status::InvalidArgument(path + " is a directory");
  auto ino = inodes_.at(id);
  if (ino->type != FileType::kFile) return Status::InvalidArgument(path + " is not a regular file");
  ino->open_count++;
  if (ino->created_as.empty()) ino->created_as = path;  // files from before this mount
  reader->reset(new FsFileReader(this, ino, &readahead_));
  return Status::OK();
}

void FsImpl::QueueInodeLocked(Inode* ino) {
  if (ino->deleted || options_.read_only) return;
  if (ino->first_dirty == SIZE_MAX && !ino->attr_dirty) return;
  MetadataOp op;
  op.type = MetadataOp::Type::kSetExtents;
  op.inode.id = ino->id;
  size_t from = std::min(ino->first_dirty, ino->extents.size());
  op.from_index = static_cast<uint32_t>(from);
  op.inode.extents.assign(ino->extents.begin() + static_cast<long>(from), ino->extents.end());
  op.inode.tail = ino->pending.substr(0, ino->tail_len);
  op.inode.size = ino->extent_bytes() + ino->tail_len;
  op.inode.mtime_ns = ino->mtime_ns;
  journal_->Add(op);
  ino->first_dirty = SIZE_MAX;
  ino->attr_dirty = false;
}

Status FsImpl::QueueAllBytes(Inode* ino, bool keep_whole_blocks) {
  // Whole blocks go to the zone; the rest rides in the journal batch, so a
  // flush or sync never pads a block that later appends would have to skip.
  if (keep_whole_blocks && KeepsBlocksInTail(ino)) {
    CountKeptBytes(ino, ino->pending.size());
    std::lock_guard<std::mutex> l(stats_mu_);
    stats_.flushes_kept_in_tail++;
  } else {
    Status s = WriteOut(ino, /*include_partial=*/false);
    if (!s.ok()) return s;
  }
  if (ino->first_dirty == SIZE_MAX && ino->pending.size() > ino->tail_len && !ino->deleted &&
      !options_.read_only) {
    // Only the tail grew since the journal last heard of the file (every
    // other change is queued when it is made): a log flushed after each
    // record journals each record's bytes once, not its whole tail again.
    MetadataOp op;
    op.type = MetadataOp::Type::kAppendTail;
    op.inode.id = ino->id;
    op.inode.tail = ino->pending.substr(ino->tail_len);
    op.inode.size = ino->size;
    op.inode.mtime_ns = ino->mtime_ns;
    journal_->Add(op);
    ino->tail_len = ino->pending.size();
    ino->attr_dirty = false;
    return Status::OK();
  }
  if (ino->tail_len != ino->pending.size()) {
    ino->tail_len = ino->pending.size();
    ino->attr_dirty = true;
  }
  QueueInodeLocked(ino);
  return Status::OK();
}

bool FsImpl::KeepsBlocksInTail(const Inode* ino) const {
  if (ino->zone_device < 0) return false;
  if (ino->pending.size() > kMaxTailBytes) return false;
  const uint64_t all_tails_limit = members_[sb_.meta_device]->device->geometry().zone_capacity / 8;
  return kept_in_tails_.load() - ino->kept_in_tail + ino->pending.size() <= all_tails_limit;
}

void FsImpl::CountKeptBytes(Inode* ino, uint64_t bytes) {
  if (ino->kept_in_tail == bytes) return;
  kept_in_tails_ += bytes;
  kept_in_tails_ -= ino->kept_in_tail;
  ino->kept_in_tail = bytes;
}

Status FsImpl::SyncInode(Inode* ino) {
  {
    std::lock_guard<std::mutex> l(ino->mu);
    Status s = QueueAllBytes(ino);
    if (!s.ok()) return s;
  }
  return CommitAndReclaim();
}

Status FsImpl::FinishWriting(Inode* ino) {
  Status s = WriteOut(ino, /*include_partial=*/true);
  CountKeptBytes(ino, 0);  // written, or the file is done with anyway
  if (s.ok()) s = FinishOwnZone(ino);
  ReleaseWriterZone(ino);
  QueueInodeLocked(ino);
  return s;
}

Status FsImpl::FinishOwnZone(Inode* ino) {
  if (ino->zone_device < 0) return Status::OK();
  std::lock_guard<std::mutex> l(mu_);
  return RetireOwnedZoneLocked(static_cast<uint32_t>(ino->zone_device), ino->zone);
}

Status FsImpl::RetireOwnedZoneLocked(uint32_t device, uint32_t zone) {
  Member* m = members_[device].get();
  const ZoneSlot& slot = m->zones[zone];
  if (slot.used == 0 || slot.used >= slot.capacity || !RoleOwnsZonesLocked(m, slot.role) || slot.shared_overflow) {
    return Status::OK();
  }
  return RetireZoneLocked(device, zone);  // the unwritten rest is garbage until the file dies
}

void FsImpl::ReleaseWriterZone(Inode* ino) {
  if (ino->zone_device < 0) return;
  std::lock_guard<std::mutex> l(mu_);
  ZoneSlot& slot = members_[ino->zone_device]->zones[ino->zone];
  slot.writer = false;
  slot.holder = nullptr;
  ino->zone_device = -1;
}

Status FsImpl::WriteOut(Inode* ino, bool include_partial, std::string_view* direct) {
  // The bytes to write: the caller's when it passes them (the buffer is then
  // empty), else the inode's buffer.
  auto source = [&]() { return direct != nullptr ? *direct : std::string_view(ino->pending); };
  std::string block_buf;
  while (!source().empty()) {
    uint32_t dev = 0, zone = 0;
    if (ino->zone_device >= 0) {
      dev = static_cast<uint32_t>(ino->zone_device);
      zone = ino->zone;
    }
    if (ino->zone_device >= 0 && ino->extent_bytes() >= ino->ask_again_at) {
      ReleaseWriterZone(ino);  // the policy's choice may differ now
      continue;
    }
    uint64_t bs = ino->zone_device >= 0 ? members_[dev]->block_size : 4096;
    size_t whole = source().size() / bs * bs;
    if (whole == 0 && !include_partial) return Status::OK();
    if (ino->zone_device < 0) {
      Status s = AcquireZone(ino, source().size(), &dev, &zone);
      if (!s.ok()) return s;
      ino->zone_device = static_cast<int32_t>(dev);
      ino->zone = zone;
      {
        std::lock_guard<std::mutex> l(mu_);
        members_[dev]->zones[zone].holder = ino;
      }
      continue;  // block size may differ on the chosen device
    }
    Member* m = members_[dev].get();
    uint64_t room;
    uint64_t zone_start = m->device->geometry().zone_start(zone);
    uint64_t used;
    {
      std::lock_guard<std::mutex> l(mu_);
      used = m->zones[zone].used;
      room = RoomLocked(m, m->zones[zone]);
    }
    size_t want = include_partial ? (source().size() + bs - 1) / bs * bs : whole;
    size_t chunk = static_cast<size_t>(std::min<uint64_t>(want, room));
    if (chunk == 0) {
      ReleaseWriterZone(ino);
      continue;
    }
    size_t data_bytes = std::min(chunk, source().size());
    const char* src = source().data();
    if (data_bytes < chunk) {  // pad the last block
      block_buf.assign(src, data_bytes);
      block_buf.resize(chunk, '\0');
      src = block_buf.data();
    }
    uint64_t offset = zone_start + used;
    Status s = WriteBlocks(dev, zone, offset, src, chunk);
    if (!s.ok()) {
      // The zone's state is unknown: nothing more goes into it (its
      // unwritten part counts as garbage, so GC empties and resets it).
      {
        std::lock_guard<std::mutex> l(mu_);
        m->zones[zone].used = m->zones[zone].capacity;
      }
      ReleaseWriterZone(ino);
      return s;
    }
    {
      std::lock_guard<std::mutex> l(mu_);
      ZoneSlot& slot = m->zones[zone];
      slot.role = ino->role;
      slot.live += data_bytes;  // exact bytes, as AddLiveLocked counts them
      write_clock_ += data_bytes;
      if (direct != nullptr) ino->size += data_bytes;  // the buffer's bytes are in it already
      Extent e{dev, zone, offset, data_bytes};
      Extent* last = ino->extents.empty() ? nullptr : &ino->extents.back();
      if (last != nullptr && ExtentContinues(*last, e)) {
        last->length += data_bytes;
        ino->first_dirty = std::min(ino->first_dirty, ino->extents.size() - 1);
      } else {
        ino->extents.push_back(e);
        ino->first_dirty = std::min(ino->first_dirty, ino->extents.size() - 1);
      }
    }
    {
      std::lock_guard<std::mutex> l(stats_mu_);
      stats_.bytes_written[static_cast<int>(m->info.tier)] += data_bytes;
    }
    if (direct != nullptr) {
      direct->remove_prefix(data_bytes);
    } else {
      ino->pending.erase(0, data_bytes);
      CountKeptBytes(ino, 0);
    }
    ino->tail_len = 0;  // the synced tail is now part of an extent
    if (room - chunk < bs) {  // full: its checksums go into its trailer
      s = SealZone(dev, zone);
      ReleaseWriterZone(ino);
      if (!s.ok()) return s;
    }
  }
  return Status::OK();
}

ReadLocation FsImpl::LocateInode(Inode* ino, uint64_t offset, size_t n) {
  ReadLocation loc;
  loc.file_id = ino->id;
  std::lock_guard<std::mutex> il(ino->mu);
  loc.data_version = ino->data_version;
  uint64_t pos = 0;
  for (const Extent& e : ino->extents) {
    uint64_t end = pos + e.length;
    if (!loc.found && end > offset) {
      loc.found = true;
      loc.device = e.device;
      loc.zone = e.zone;
    }
    if (end > offset && pos < offset + n && members_[e.device]->info.tier == Tier::kSlow) {
      loc.slow = true;
      break;
    }
    pos = end;
    if (pos >= offset + n) break;
  }
  return loc;
}

bool FsImpl::SeekOutweighsTransfer(Inode* ino, size_t bytes) {
  ReadLocation loc = LocateInode(ino, 0, 1);
  if (!loc.found) return false;
  return hintfs::SeekOutweighsTransfer(*members_[loc.device]->device, bytes);
}

Status FsImpl::ReadInode(Inode* ino, uint64_t offset, size_t n, char* scratch, size_t* got) {
  struct Piece {
    uint32_t device;
    uint32_t zone;
    uint64_t device_offset;
    size_t length;
    char* dst;
    bool from_memory;  // served by blocks just written (ReadForStore)
  };
  std::vector<Piece> pieces;
  *got = 0;
  {
    std::lock_guard<std::mutex> il(ino->mu);
    if (offset >= ino->size) return Status::OK();
    n = static_cast<size_t>(std::min<uint64_t>(n, ino->size - offset));
    uint64_t extent_bytes = ino->extent_bytes();
    uint64_t pos = 0;
    for (const Extent& e : ino->extents) {
      uint64_t end = pos + e.length;
      if (end > offset && pos < offset + n) {
        uint64_t from = std::max(offset, pos);
        uint64_t to = std::min<uint64_t>(offset + n, end);
        pieces.push_back({e.device, e.zone, e.offset + (from - pos), static_cast<size_t>(to - from),
                          scratch + (from - offset), false});
      }
      pos = end;
      if (pos >= offset + n) break;
    }
    if (offset + n > extent_bytes) {  // part of the unwritten tail
      uint64_t from = std::max(offset, extent_bytes);
      std::memcpy(scratch + (from - offset), ino->pending.data() + (from - extent_bytes),
                  static_cast<size_t>(offset + n - from));
    }
    std::lock_guard<std::mutex> l(mu_);
    for (const Piece& p : pieces) members_[p.device]->zones[p.zone].readers++;
  }
  Status result;
  if (pieces.size() == 1) {
    Piece& p = pieces[0];
    result = ReadForStore(p.device, p.zone, p.device_offset, p.length, p.dst, &p.from_memory);
  } else if (!pieces.empty()) {
    // Several places: read them at once (fs/read_fanout.h).
    std::vector<Status> got(pieces.size());
    std::vector<std::function<void()>> reads;
    reads.reserve(pieces.size());
    for (size_t i = 0; i < pieces.size(); i++) {
      reads.push_back([this, &pieces, &got, i] {
        Piece& p = pieces[i];
        got[i] = ReadForStore(p.device, p.zone, p.device_offset, p.length, p.dst, &p.from_memory);
      });
    }
    read_fanout_.Run(reads);
    for (const Status& s : got) {
      if (result.ok()) result = s;
    }
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    for (const Piece& p : pieces) members_[p.device]->zones[p.zone].readers--;
  }
  // By tier the bytes are on (what observers are told: a block served from
  // memory is still on the slow tier), and of those the bytes devices read.
  uint64_t tier_bytes[2] = {0, 0};
  uint64_t device_bytes[2] = {0, 0};
  for (const Piece& p : pieces) {
    const int tier = static_cast<int>(members_[p.device]->info.tier);
    tier_bytes[tier] += p.length;
    if (!p.from_memory) device_bytes[tier] += p.length;
  }
  {
    std::lock_guard<std::mutex> l(stats_mu_);
    stats_.bytes_read[0] += device_bytes[0];
    stats_.bytes_read[1] += device_bytes[1];
    if (device_bytes[0] + device_bytes[1] > 0 && n <= FsStats::kSmallReadBytes) {
      stats_.small_reads[device_bytes[1] > 0 ? 1 : 0]++;
    }
  }
  if (result.ok() && n > 0 && ino->last_read_end.exchange(offset + n, std::memory_order_relaxed) != offset) {
    ino->reads.fetch_add(1, std::memory_order_relaxed);
  }
  if (result.ok() && options_.observer && n > 0) {
    options_.observer->OnRead(ino->created_as, offset, n, tier_bytes[static_cast<int>(Tier::kSlow)]);
  }
  if (result.ok()) *got = n;
  return result;
}

Status FsImpl::SetTag(const std::string& path, const std::string& tag) {
  if (tag.size() > kMaxFileTag) {
    return Status::InvalidArgument(path + ": a file tag holds at most " + std::to_string(kMaxFileTag) + " bytes");
  }
  std::shared_ptr<Inode> ino;
  Status s = HoldInode(path, /*files_only=*/true, &ino);
  if (!s.ok()) return s;
  {
    std::lock_guard<std::mutex> il(ino->mu);
    ino->tag = tag;
    MetadataOp op;
    op.type = MetadataOp::Type::kSetTag;
    op.inode.id = ino->id;
    op.inode.tag = tag;
    journal_->Add(op);
  }
  CloseHandle(ino);
  return Status::OK();
}

Status FsImpl::SetMtime(const std::string& path, int64_t mtime_ns) {
  std::shared_ptr<Inode> ino;
  Status s = HoldInode(path, /*files_only=*/false, &ino);
  if (!s.ok()) return s;
  {
    std::lock_guard<std::mutex> il(ino->mu);
    ino->mtime_ns = mtime_ns;
    ino->attr_dirty = true;
    QueueInodeLocked(ino.get());
  }
  CloseHandle(ino);
  return CommitUnflushed();
}

}  // namespace hintfs
