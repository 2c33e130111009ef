#include "fs/journal.h"

#include <algorithm>

#include <fmt/format.h>

#include "fs/coding.h"
#include "fs/crc32c.h"

namespace hintfs {

namespace {

constexpr uint32_t kBatchMagic = 0x31424a48;  // "HJB1"
// Version 2 added the flags field; version 1 batches read as flushed.
// Version 3 batches may hold the compact extent ops (codes 19 and 20,
// metadata.cc), which older builds do not know.
constexpr uint16_t kBatchVersion = 3;
constexpr uint16_t kFlagUnflushed = 1;  // written with Durability::kProcessKill
constexpr size_t kBatchHeader = 40;
constexpr size_t kSnapshotChunk = 1 << 20;

uint64_t RoundUp(uint64_t n, uint64_t block) { return (n + block - 1) / block * block; }

struct BatchHeader {
  uint16_t flags = 0;
  uint64_t seq = 0;
  uint64_t epoch = 0;
  uint32_t payload_len = 0;
  uint32_t payload_crc = 0;
};

// The header has its own checksum so that a damaged length is never mistaken
// for a batch that a crash cut short.
bool ParseHeader(std::string_view h, BatchHeader* out) {
  if (h.size() < kBatchHeader) return false;
  if (DecodeFixed32(h.data()) != kBatchMagic) return false;
  if (DecodeFixed32(h.data() + 32) != crc32c::Value(h.data(), 32)) return false;
  uint16_t version = static_cast<uint16_t>(static_cast<uint8_t>(h[4]) | (static_cast<uint8_t>(h[5]) << 8));
  if (version < 1 || version > kBatchVersion) return false;
  out->flags = static_cast<uint16_t>(static_cast<uint8_t>(h[6]) | (static_cast<uint8_t>(h[7]) << 8));
  if (version == 1) out->flags = 0;
  out->seq = DecodeFixed64(h.data() + 8);
  out->epoch = DecodeFixed64(h.data() + 16);
  out->payload_len = DecodeFixed32(h.data() + 24);
  out->payload_crc = DecodeFixed32(h.data() + 28);
  return true;
}

}  // namespace

Journal::Journal(ZonedDevice* device, uint32_t first_zone, uint32_t zone_count,
                 std::function<Status()> flush_data)
    : device_(device), first_zone_(first_zone), zone_count_(zone_count),
      flush_data_(std::move(flush_data)) {}

uint64_t Journal::ZoneEnd(uint32_t zone) const {
  return device_->geometry().zone_start(zone) + device_->geometry().zone_capacity;
}

void Journal::EncodeOps(const std::vector<MetadataOp>& ops, std::string* payload) {
  PutFixed32(payload, static_cast<uint32_t>(ops.size()));
  for (const MetadataOp& op : ops) EncodeOp(op, payload);
}

Status Journal::DecodeOps(std::string_view payload, std::vector<MetadataOp>* ops) {
  uint32_t count = 0;
  Decoder d(payload, "journal ops");
  if (!d.GetFixed32(&count)) return Status::Corruption("no op count");
  payload.remove_prefix(4);
  for (uint32_t i = 0; i < count; i++) {
    MetadataOp op;
    Status s = DecodeOp(&payload, &op);
    if (!s.ok()) return s;
    ops->push_back(std::move(op));
  }
  return Status::OK();
}

std::string Journal::EncodeBatch(const std::vector<MetadataOp>& ops, uint64_t seq,
                                 bool flushed) const {
  std::string payload;
  EncodeOps(ops, &payload);
  std::string b;
  PutFixed32(&b, kBatchMagic);
  PutFixed16(&b, kBatchVersion);
  PutFixed16(&b, flushed ? 0 : kFlagUnflushed);
  PutFixed64(&b, seq);
  PutFixed64(&b, stats_.epoch);
  PutFixed32(&b, static_cast<uint32_t>(payload.size()));
  PutFixed32(&b, crc32c::Value(payload.data(), payload.size()));
  PutFixed32(&b, crc32c::Value(b.data(), b.size()));
  PutFixed32(&b, 0);
  b += payload;
  b.resize(RoundUp(b.size(), device_->geometry().block_size), '\0');
  return b;
}

Status Journal::WriteBatch(const std::vector<MetadataOp>& ops, bool flushed, uint32_t zone,
                           uint64_t* wp) {
  std::string batch = EncodeBatch(ops, next_seq_, flushed);
  if (*wp + batch.size() > ZoneEnd(zone)) {
    return Status::NoSpace(fmt::format("journal batch of {} bytes does not fit metadata zone {}",
                                       batch.size(), zone));
  }
  Status s = device_->Write(*wp, batch.data(), batch.size());
  if (!s.ok()) return s;
  *wp += batch.size();
  next_seq_++;
  stats_.bytes_committed += batch.size();
  stats_.grown_bytes += batch.size();
  return Status::OK();
}

Status Journal::Format(const MetadataImage& image) {
  std::lock_guard<std::mutex> l(commit_mu_);
  image_ = image;
  stats_.epoch = 0;
  active_zone_ = first_zone_ + zone_count_ - 1;  // Roll moves to the first zone
  active_wp_ = device_->geometry().zone_start(active_zone_);
  return RollLocked();
}

void Journal::ForEachSnapshotChunkLocked(const std::function<void(const std::vector<MetadataOp>&)>& fn) const {
  std::vector<MetadataOp> ops;
  MetadataOp begin;
  begin.type = MetadataOp::Type::kSnapshotBegin;
  begin.epoch = stats_.epoch;
  ops.push_back(begin);
  image_.SnapshotOps(&ops);
  MetadataOp end = begin;
  end.type = MetadataOp::Type::kSnapshotEnd;
  ops.push_back(end);
  std::vector<MetadataOp> chunk;
  std::string probe;
  for (size_t i = 0; i < ops.size(); i++) {
    chunk.push_back(std::move(ops[i]));
    EncodeOp(chunk.back(), &probe);
    if (probe.size() >= kSnapshotChunk || i + 1 == ops.size()) {
      fn(chunk);
      chunk.clear();
      probe.clear();
    }
  }
}

Status Journal::RollLocked() {
  // The snapshot states as durable everything the image holds, the effects
  // of unflushed batches included: their data must be durable first.
  Status s = flush_data_();
  if (!s.ok()) return s;
  const DeviceGeometry& g = device_->geometry();
  // The next empty metadata zone after the active one.
  uint32_t target = UINT32_MAX;
  for (uint32_t i = 1; i <= zone_count_; i++) {
    uint32_t z = first_zone_ + (active_zone_ - first_zone_ + i) % zone_count_;
    if (z == active_zone_) continue;
    ZoneInfo info;
    s = device_->ReportZone(z, &info);
    if (!s.ok()) return s;
    if (info.write_pointer != info.start) {
      s = device_->ResetZone(z);  // stale: an older generation
      if (!s.ok()) return s;
    }
    target = z;
    break;
  }
  if (target == UINT32_MAX) return Status::Corruption("no metadata zone to roll the journal into");

  uint64_t old_epoch = stats_.epoch;
  uint64_t old_seq = next_seq_;
  stats_.epoch++;
  uint64_t wp = g.zone_start(target);
  ForEachSnapshotChunkLocked([&](const std::vector<MetadataOp>& chunk) {
    if (s.ok()) s = WriteBatch(chunk, /*flushed=*/true, target, &wp);
  });
  if (s.ok()) s = device_->Flush();
  if (!s.ok()) {
    // The active zone is as it was: batches may still follow it, in
    // sequence. The target holds an incomplete snapshot, which recovery
    // passes over and the next roll resets.
    stats_.epoch = old_epoch;
    next_seq_ = old_seq;
    if (s.IsNoSpace()) {
      s = Status::NoSpace("metadata snapshot does not fit one metadata zone; mkfs with larger zones");
    }
    return s;
  }
  uint32_t old_zone = active_zone_;
  active_zone_ = target;
  active_wp_ = wp;
  stats_.snapshot_bytes = wp - g.zone_start(target);
  stats_.grown_bytes = 0;
  unflushed_batches_ = 0;
  backlog_.Clear();  // the snapshot holds the image, and with it the backlog
  StartHostLogLocked();  // its records followed the old zone
  stats_.rolls++;
  // The new snapshot is durable: the old generation is garbage.
  ZoneInfo info;
  s = device_->ReportZone(old_zone, &info);
  if (s.ok() && old_zone != target && info.write_pointer != info.start) s = device_->ResetZone(old_zone);
  return s;
}

uint64_t Journal::Add(std::vector<MetadataOp> ops) {
  std::lock_guard<std::mutex> l(pending_mu_);
  for (MetadataOp& op : ops) pending_.push_back(std::move(op));
  return pending_gen_;
}

uint64_t Journal::pending_generation() {
  std::lock_guard<std::mutex> l(pending_mu_);
  return pending_gen_;
}

uint64_t Journal::committed_generation() { return committed_gen_.load(); }

Status Journal::Commit(Durability durability) {
  std::lock_guard<std::mutex> l(commit_mu_);
  return CommitLocked(durability);
}

void Journal::UseHostLog(std::unique_ptr<HostLog> log, const HostLogOwner& owner) {
  std::lock_guard<std::mutex> l(commit_mu_);
  host_log_ = std::move(log);
  host_owner_ = owner;
  host_log_started_ = false;
}

void Journal::RemoveHostLog() {
  std::lock_guard<std::mutex> l(commit_mu_);
  if (host_log_ && backlog_.empty()) host_log_->Remove();
  host_log_.reset();
}

void Journal::StartHostLogLocked() {
  if (!host_log_) return;
  host_owner_.epoch = stats_.epoch;
  host_owner_.seq = next_seq_ - 1;
  host_log_->Start(host_owner_);
  host_log_started_ = true;
}

Status Journal::CommitLocked(Durability durability) {
  if (!failed_.ok()) return failed_;
  const bool flush = durability == Durability::kPowerCut;
  std::vector<MetadataOp> ops;
  uint64_t generation;
  {
    std::lock_guard<std::mutex> l(pending_mu_);
    generation = pending_gen_++;
    ops.swap(pending_);
  }
  // Apply to the image before anything is written: an inconsistent change
  // (a bug) must never be written where replay would trip over it. The
  // image is then partly changed, so the journal stops accepting commits.
  for (const MetadataOp& op : ops) {
    Status s = image_.Apply(op);
    if (!s.ok()) {
      failed_ = Status::Corruption("refusing to journal an inconsistent change: " + s.message());
      return failed_;
    }
  }
  if (!flush && host_log_started_) {
    if (ops.empty()) return Status::OK();
    std::string record;
    EncodeOps(ops, &record);
    if (host_log_->Append(record)) {
      backlog_.Add(ops, image_);
      stats_.host_log_records++;
      stats_.grown_bytes += record.size();
      return Status::OK();
    }
    // Full: everything it holds goes to the device, and it starts over.
  }
  backlog_.Add(ops, image_);
  Status s = WriteBacklogLocked(flush);
  if (!s.ok()) {
    failed_ = s;
    return s;
  }
  if (flush) committed_gen_ = generation;
  return Status::OK();
}

Status Journal::WriteBacklogLocked(bool flush) {
  std::vector<MetadataOp> ops = backlog_.Take(image_);
  if (ops.empty() && (!flush || unflushed_batches_ == 0)) return Status::OK();
  Status s;
  if (flush) s = flush_data_();
  if (!s.ok()) return s;
  // A flushed batch, empty or not, says that the batches before it are durable.
  uint64_t size = EncodeBatch(ops, 0, flush).size();
  if (active_wp_ + size > ZoneEnd(active_zone_)) {
    s = RollLocked();  // the snapshot holds these ops: the image has them
  } else {
    s = WriteBatch(ops, flush, active_zone_, &active_wp_);
    if (s.ok() && flush) s = device_->Flush();
    if (s.ok() && flush) {
      unflushed_batches_ = 0;
    } else if (s.ok()) {
      unflushed_batches_++;
      stats_.unflushed_batches_committed++;
    }
    if (s.ok()) stats_.batches_committed++;
  }
  if (s.ok()) StartHostLogLocked();  // what it held is in the device journal now
  return s;
}

Status Journal::ReplayZone(uint32_t zone, uint64_t zone_wp, MetadataImage* image, uint64_t* end,
                           uint64_t* last_seq, uint64_t* epoch, bool* complete,
                           uint64_t* batches, ReplayReport* report) {
  const uint32_t block = device_->geometry().block_size;
  uint64_t pos = device_->geometry().zone_start(zone);
  *complete = false;
  *batches = 0;
  std::string buf;
  // Every batch is one device write, so a crash can only cut the last one
  // short: its declared end lies past the write pointer. Anything else that
  // does not check out below the write pointer is damage.
  std::string damage;  // why replay stopped early
  while (pos < zone_wp) {
    buf.resize(block);
    Status s = device_->Read(pos, block, &buf[0]);
    if (!s.ok()) return s;
    BatchHeader h;
    if (!ParseHeader(buf, &h)) {
      damage = "bad batch header";
      break;
    }
    uint64_t total = RoundUp(kBatchHeader + h.payload_len, block);
    if (pos + total > zone_wp) break;  // torn by a crash
    buf.resize(total);
    if (total > block) {
      s = device_->Read(pos + block, total - block, &buf[block]);
      if (!s.ok()) return s;
    }
    if (crc32c::Value(buf.data() + kBatchHeader, h.payload_len) != h.payload_crc) {
      damage = "batch checksum mismatch";
      break;
    }
    if (*batches != 0 && (h.seq != *last_seq + 1 || h.epoch != *epoch)) {
      damage = "batch out of sequence";
      break;
    }
    std::vector<MetadataOp> ops;
    s = DecodeOps(std::string_view(buf.data() + kBatchHeader, h.payload_len), &ops);
    if (!s.ok()) {
      damage = s.message();
      break;
    }
    if (*batches == 0) {
      if (ops.empty() || ops[0].type != MetadataOp::Type::kSnapshotBegin || ops[0].epoch != h.epoch) {
        return Status::Corruption(fmt::format("metadata zone {} does not start with a snapshot", zone));
      }
      *epoch = ops[0].epoch;
    }
    if ((h.flags & kFlagUnflushed) == 0) {
      *report = ReplayReport();  // a flushed batch makes everything before it durable
    } else {
      report->unflushed_batches++;
      NoteUnflushed(ops, *image, report);
    }
    // Salvage keeps the image as it was before a batch that does not apply.
    MetadataImage before;
    if (salvage_) before = *image;
    for (const MetadataOp& op : ops) {
      s = image->Apply(op);
      if (!s.ok()) break;
      if (op.type == MetadataOp::Type::kSnapshotEnd) *complete = true;
    }
    if (!s.ok()) {
      if (!salvage_) return s;
      *image = before;
      damage = s.message();
      break;
    }
    *last_seq = h.seq;
    ++*batches;
    pos += total;
  }
  *end = pos;
  if (!damage.empty()) {
    Status s = Status::Corruption(fmt::format("journal damaged in metadata zone {} at byte {} ({}) after batch {}",
                                              zone, pos, damage, *last_seq));
    // Salvage takes what replays up to the damage, once a snapshot is whole.
    if (!salvage_ || !*complete) return s;
    report->damage = s.message();
  }
  if (*batches == 0) return Status::Corruption(fmt::format("metadata zone {} has no valid snapshot", zone));
  return Status::OK();
}

void Journal::NoteUnflushed(const std::vector<MetadataOp>& ops, const MetadataImage& image,
                            ReplayReport* report) {
  for (const MetadataOp& op : ops) {
    if (op.type != MetadataOp::Type::kSetExtents && op.type != MetadataOp::Type::kReplaceExtents &&
        op.type != MetadataOp::Type::kCreateInode) {
      continue;
    }
    if (report->durable.count(op.inode.id)) continue;
    auto it = image.inodes().find(op.inode.id);
    report->durable[op.inode.id] = it == image.inodes().end() ? InodeRecord() : it->second;
  }
}

Status Journal::ReplayHostLogLocked(MetadataImage* image, ReplayReport* report) {
  host_owner_.epoch = stats_.epoch;
  host_owner_.seq = next_seq_ - 1;
  for (const std::string& record : host_log_->Records(host_owner_)) {
    std::vector<MetadataOp> ops;
    Status s = DecodeOps(record, &ops);
    // A record's checksum held: an op that does not decode or apply is a bug
    // or damage, not a torn write.
    if (!s.ok()) return Status::Corruption("host log: " + s.message());
    NoteUnflushed(ops, *image, report);
    for (const MetadataOp& op : ops) {
      s = image->Apply(op);
      if (!s.ok()) return Status::Corruption("host log: " + s.message());
    }
    backlog_.Add(ops, *image);
    report->host_log_records++;
  }
  return Status::OK();
}

Status Journal::Recover(bool read_only, MetadataImage* image, ReplayReport* report) {
  std::lock_guard<std::mutex> l(commit_mu_);
  struct Candidate {
    uint32_t zone;
    uint64_t wp;
    uint64_t epoch;
  };
  std::vector<Candidate> candidates;
  std::vector<ZoneInfo> zones;
  Status s = device_->ReportZones(first_zone_, zone_count_, &zones);
  if (!s.ok()) return s;
  const uint32_t block = device_->geometry().block_size;
  for (const ZoneInfo& z : zones) {
    if (z.write_pointer == z.start) continue;
    std::string h(block, '\0');
    s = device_->Read(z.start, block, &h[0]);
    if (!s.ok()) return s;
    BatchHeader bh;
    if (ParseHeader(h, &bh)) candidates.push_back({z.index, z.write_pointer, bh.epoch});
  }
  std::sort(candidates.begin(), candidates.end(),
            [](const Candidate& a, const Candidate& b) { return a.epoch > b.epoch; });
  Status last_error = Status::Corruption("no metadata journal found (not a hintfs filesystem, or its journal zones were wiped)");
  for (const Candidate& c : candidates) {
    MetadataImage replayed;
    ReplayReport replay_report;
    uint64_t end = 0, last_seq = 0, epoch = 0, batches = 0;
    bool complete = false;
    s = ReplayZone(c.zone, c.wp, &replayed, &end, &last_seq, &epoch, &complete, &batches,
                   &replay_report);
    if (!s.ok()) {
      // A damaged newest generation is an error, not a reason to go back in time,
      // unless its snapshot never completed (a crash during a roll).
      if (complete || !s.IsCorruption()) return s;
      last_error = s;
      continue;
    }
    if (!complete) {
      last_error = Status::Corruption(fmt::format("metadata zone {}: incomplete snapshot", c.zone));
      continue;
    }
    active_zone_ = c.zone;
    active_wp_ = end;
    next_seq_ = last_seq + 1;
    stats_.epoch = epoch;
    stats_.replayed_batches = batches;
    stats_.torn_tail = end != c.wp;
    unflushed_batches_ = replay_report.unflushed_batches;
    stats_.torn_tail = stats_.torn_tail || !replay_report.damage.empty();  // appended to only after a roll
    if (host_log_ && replay_report.damage.empty()) {
      s = ReplayHostLogLocked(&replayed, &replay_report);
      if (!s.ok()) return s;
    }
    image_ = replayed;
    *image = image_;
    MeasureSnapshotLocked();
    if (report != nullptr) *report = replay_report;
    if (read_only) return Status::OK();
    // The host log starts over once what it held is in a device batch.
    if (backlog_.empty()) StartHostLogLocked();
    if (stats_.torn_tail) return RollLocked();  // never append after a torn batch
    for (const ZoneInfo& z : zones) {
      if (z.index != active_zone_ && z.write_pointer != z.start) {
        s = device_->ResetZone(z.index);
        if (!s.ok()) return s;
      }
    }
    return Status::OK();
  }
  return last_error;
}

uint64_t Journal::SnapshotBound() {
  std::lock_guard<std::mutex> l(commit_mu_);
  return stats_.snapshot_bytes + stats_.grown_bytes;
}

void Journal::MeasureSnapshotLocked() {
  uint64_t bytes = 0;
  ForEachSnapshotChunkLocked([&](const std::vector<MetadataOp>& chunk) {
    bytes += EncodeBatch(chunk, 0, /*flushed=*/true).size();
  });
  stats_.snapshot_bytes = bytes;
  stats_.grown_bytes = 0;
}

void Journal::Remeasure() {
  std::lock_guard<std::mutex> l(commit_mu_);
  if (stats_.grown_bytes != 0) MeasureSnapshotLocked();
}

MetadataImage Journal::image() {
  std::lock_guard<std::mutex> l(commit_mu_);
  return image_;
}

JournalStats Journal::stats() {
  std::lock_guard<std::mutex> l(commit_mu_);
  JournalStats st = stats_;
  st.active_zone = active_zone_;
  st.active_bytes = active_wp_ - device_->geometry().zone_start(active_zone_);
  st.next_seq = next_seq_.load();
  st.zone_capacity = device_->geometry().zone_capacity;
  return st;
}

}  // namespace hintfs
