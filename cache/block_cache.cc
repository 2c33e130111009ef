#include "cache/block_cache.h"

#include <fmt/format.h>

#include "fs/crc32c.h"
#include "hints/file_tag.h"

namespace hintfs {

namespace {

// How often (in offers) the cache checks whether the WAL grew into its share.
constexpr uint64_t kBudgetCheckEvery = 256;

}  // namespace

Status BlockCache::Open(Filesystem* fs, const BlockCacheOptions& options, std::unique_ptr<BlockCache>* cache) {
  uint64_t zone_bytes = 0;
  for (const MemberInfo& m : fs->superblock().members) {
    if (m.tier == Tier::kFast) {
      zone_bytes = m.zone_capacity;
      break;
    }
  }
  if (zone_bytes == 0) return Status::InvalidArgument("the block cache needs a fast device");
  std::unique_ptr<AdmissionPolicy> policy;
  Status s = NewAdmissionPolicy(options.admission, options.budget_bytes, options.block_bytes, &policy);
  if (!s.ok()) return s;
  // An earlier mount's cache files: their mappings died with it.
  std::vector<DirEntry> old;
  if (fs->ReadDir(kCacheDirectory, &old).ok()) {
    for (const DirEntry& e : old) {
      s = fs->Unlink(std::string(kCacheDirectory) + "/" + e.name);
      if (!s.ok()) return s;
    }
  } else {
    s = fs->Mkdir(kCacheDirectory);
    if (!s.ok()) return s;
  }
  s = fs->KeepOnFastTier(kCacheDirectory, kCacheClass);
  if (!s.ok()) return s;
  cache->reset(new BlockCache(fs, options, std::move(policy), zone_bytes));
  return Status::OK();
}

BlockCache::BlockCache(Filesystem* fs, const BlockCacheOptions& options, std::unique_ptr<AdmissionPolicy> policy,
                       uint64_t zone_bytes)
    : fs_(fs), options_(options), policy_(std::move(policy)), zone_bytes_(zone_bytes) {}

BlockCache::~BlockCache() { Close(); }

bool BlockCache::Lookup(const std::string& key, std::string* value) {
  Location loc;
  std::string path;
  {
    std::lock_guard<std::mutex> l(mu_);
    stats_.lookups++;
    auto it = map_.find(key);
    if (closed_ || it == map_.end()) {
      stats_.misses++;
      return false;
    }
    loc = it->second;
    for (const Zone& z : zones_) {
      if (z.seq == loc.zone_seq) path = z.path;
    }
  }
  // Read without the lock; an eviction meanwhile makes this a miss (the
  // file is gone) or still reads the right bytes (it is only ever appended).
  std::unique_ptr<FileReader> reader;
  size_t got = 0;
  value->resize(loc.length);
  bool ok = !path.empty() && fs_->OpenReader(path, &reader).ok() &&
            reader->Read(loc.offset, loc.length, &(*value)[0], &got).ok() && got == loc.length;
  bool intact = ok && crc32c::Value(value->data(), value->size()) == loc.crc;
  std::lock_guard<std::mutex> l(mu_);
  if (!intact) {
    stats_.misses++;
    if (ok) {
      stats_.bad_blocks++;
      map_.erase(key);
    }
    value->clear();
    return false;
  }
  stats_.hits++;
  stats_.bytes_served += loc.length;
  return true;
}

void BlockCache::RecordAccess(const std::string& key, uint64_t size) { policy_->RecordAccess(key, size); }

uint64_t BlockCache::AllowedZonesLocked() {
  std::vector<DeviceUsage> usage;
  uint64_t wal_zones = 0;
  if (fs_->Usage(&usage).ok()) {
    for (const DeviceUsage& u : usage) {
      if (u.tier == Tier::kFast) wal_zones += u.role_zones[static_cast<int>(kWalClass)];
    }
  }
  uint64_t budget_zones = options_.budget_bytes / zone_bytes_;
  return budget_zones > wal_zones ? budget_zones - wal_zones : 0;
}

void BlockCache::EvictOldestLocked() {
  Zone& z = zones_.front();
  for (const std::string& key : z.keys) {
    auto it = map_.find(key);
    if (it != map_.end() && it->second.zone_seq == z.seq) {
      stats_.bytes -= it->second.length;
      stats_.blocks--;
      stats_.evicted_blocks++;
      map_.erase(it);
    }
  }
  if (z.writer) z.writer->Close();
  fs_->Unlink(z.path);  // its zone is reset once nothing references it
  zones_.pop_front();
  stats_.evicted_zones++;
}

void BlockCache::KeepAtMostLocked(uint64_t zones) {
  if (zones_.size() <= zones) return;
  while (zones_.size() > zones) EvictOldestLocked();
  // Evicted zones are reset once their deletion is durable: commit now, so
  // the space is there for the WAL and the next cache zone.
  fs_->SyncMetadata();
}

bool BlockCache::OpenZoneLocked() {
  if (!zones_.empty() && zones_.back().writer) {
    // Fill the zone to its end, so that the next cache file starts on a
    // zone of its own and every file is exactly one zone.
    Zone& last = zones_.back();
    if (last.size < zone_bytes_ && last.writer->Append(std::string(zone_bytes_ - last.size, '\0')).ok()) {
      last.size = zone_bytes_;
    }
    last.writer->Close();
    last.writer.reset();
  }
  uint64_t allowed = AllowedZonesLocked();
  KeepAtMostLocked(allowed == 0 ? 0 : allowed - 1);  // room for the new one
  if (allowed < 1) return false;
  Zone z;
  z.seq = next_seq_++;
  z.path = fmt::format("{}/{:016}", kCacheDirectory, z.seq);
  if (!fs_->OpenWriter(z.path, WriteMode::kTruncate, &z.writer).ok()) return false;
  zones_.push_back(std::move(z));
  return true;
}

bool BlockCache::Offer(const std::string& key, std::string_view value) {
  std::lock_guard<std::mutex> l(mu_);
  stats_.offered++;
  if (closed_ || value.empty() || value.size() > zone_bytes_) {
    stats_.rejected++;
    return false;
  }
  if (map_.count(key)) return true;
  if (!policy_->IsHot(key)) {
    stats_.rejected++;
    return false;
  }
  // The WAL wins: if it has grown into the cache's share, give zones back.
  if (++offers_since_check_ >= kBudgetCheckEvery) {
    offers_since_check_ = 0;
    KeepAtMostLocked(AllowedZonesLocked());
  }
  if (zones_.empty() || !zones_.back().writer || zones_.back().size + value.size() > zone_bytes_) {
    if (!OpenZoneLocked()) {
      stats_.rejected++;
      return false;
    }
  }
  Zone& z = zones_.back();
  if (!z.writer->Append(value).ok()) {  // no room after all: start over later
    z.writer->Close();
    z.writer.reset();
    stats_.rejected++;
    return false;
  }
  Location loc;
  loc.zone_seq = z.seq;
  loc.offset = z.size;
  loc.length = static_cast<uint32_t>(value.size());
  loc.crc = crc32c::Value(value.data(), value.size());
  z.size += value.size();
  z.keys.push_back(key);
  map_[key] = loc;
  stats_.admitted++;
  stats_.blocks++;
  stats_.bytes += value.size();
  return true;
}

void BlockCache::Erase(const std::string& key) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = map_.find(key);
  if (it == map_.end()) return;
  stats_.bytes -= it->second.length;
  stats_.blocks--;
  map_.erase(it);
}

BlockCacheStats BlockCache::stats() const {
  std::lock_guard<std::mutex> l(mu_);
  BlockCacheStats s = stats_;
  s.zones = zones_.size();
  return s;
}

std::string BlockCache::StatsJson() const {
  BlockCacheStats s = stats();
  double ratio = s.lookups == 0 ? 0.0 : static_cast<double>(s.hits) / static_cast<double>(s.lookups);
  return fmt::format(
      "{{\"admission\":\"{}\",\"budget_bytes\":{},\"lookups\":{},\"hits\":{},\"misses\":{},\"hit_ratio\":{:.4f},"
      "\"offered\":{},\"admitted\":{},\"rejected\":{},\"evicted\":{},\"evicted_zones\":{},\"bad_blocks\":{},"
      "\"blocks\":{},\"bytes\":{},\"zones\":{},\"bytes_served\":{},\"policy_state\":{}}}",
      options_.admission, options_.budget_bytes, s.lookups, s.hits, s.misses, ratio, s.offered, s.admitted,
      s.rejected, s.evicted_blocks, s.evicted_zones, s.bad_blocks, s.blocks, s.bytes, s.zones, s.bytes_served,
      policy_->StateJson());
}

Status BlockCache::Close() {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (closed_) return Status::OK();
    closed_ = true;
  }
  std::string json = StatsJson();
  std::lock_guard<std::mutex> l(mu_);
  while (!zones_.empty()) {
    Zone& z = zones_.front();
    if (z.writer) z.writer->Close();
    fs_->Unlink(z.path);
    zones_.pop_front();
  }
  map_.clear();
  stats_.blocks = stats_.bytes = 0;
  return fs_->SetAttribute("cache", json);
}

}  // namespace hintfs
