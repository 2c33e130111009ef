#include "cache/block_cache.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iterator>
#include <set>
#include <thread>

#include "fs/crc32c.h"
#include "hints/file_tag.h"

namespace hintfs {

namespace {

// How often (in offers) the cache checks whether the WAL grew into its share.
constexpr uint64_t kBudgetCheckEvery = 256;

}  // namespace

Status BlockCache::Open(Filesystem* fs, const BlockCacheOptions& options, std::unique_ptr<BlockCache>* cache) {
  // A cache file fills exactly what a fast zone holds of files (its
  // capacity less the checksum trailer), so that it starts and ends a zone
  // of its own and dropping it frees that zone whole.
  uint64_t zone_bytes = 0;
  std::vector<DeviceUsage> usage;
  if (fs->Usage(&usage).ok()) {
    for (const DeviceUsage& u : usage) {
      if (u.tier == Tier::kFast) {
        zone_bytes = u.zone_data_bytes != 0 ? u.zone_data_bytes : u.zone_capacity;
        break;
      }
    }
  }
  if (zone_bytes == 0) return Status::InvalidArgument("the block cache needs a fast device");
  std::unique_ptr<AdmissionPolicy> policy;
  Status s = NewAdmissionPolicy(options.admission, options.budget_bytes, options.block_bytes, &policy);
  if (!s.ok()) return s;
  // An earlier mount's cache files: kept if its close saved their mapping.
  std::vector<DirEntry> old;
  if (!fs->ReadDir(kCacheDirectory, &old).ok()) {
    s = fs->Mkdir(kCacheDirectory);
    if (!s.ok()) return s;
  }
  s = fs->KeepOnFastTier(kCacheDirectory, kCacheClass);
  if (!s.ok()) return s;
  std::unique_ptr<BlockCache> opened(new BlockCache(fs, options, std::move(policy), zone_bytes));
  s = opened->Restore(old);
  if (!s.ok()) return s;
  *cache = std::move(opened);
  BlockCache* c = cache->get();
  fs->SetZoneLender(kCacheClass, [c](ZoneRole writer_class) { return c->GiveBackZone(writer_class); });
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
    for (Zone& z : zones_) {
      if (z.seq != loc.zone_seq) continue;
      path = z.path;
      z.hits++;  // counted even if the read fails below: it only ranks evictions
      z.kept = false;  // it earned its place in this mount
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
  uint64_t wal_zones = 0, empty_zones = 0;
  if (fs_->Usage(&usage).ok()) {
    for (const DeviceUsage& u : usage) {
      if (u.tier != Tier::kFast) continue;
      wal_zones += u.role_zones[static_cast<int>(kWalClass)];
      empty_zones += u.empty_zones;
    }
  }
  if (options_.borrow_free_zones) {
    const uint64_t take = empty_zones > kEmptyZonesLeft ? empty_zones - kEmptyZonesLeft : 0;
    full_ = take == 0;
    return zones_.size() + take;
  }
  uint64_t budget_zones = options_.budget_bytes / zone_bytes_;
  return budget_zones > wal_zones ? budget_zones - wal_zones : 0;
}

bool BlockCache::PassesDoorkeeperLocked(const std::string& key) {
  doorkeeper_.SetKeys(std::max<size_t>(stats_.blocks, 1024));
  if (doorkeeper_.SeenOrRemember(std::hash<std::string>()(key))) return true;
  stats_.turned_away++;
  return false;
}

bool BlockCache::HasIdleKeptZoneLocked() const {
  return std::any_of(zones_.begin(), zones_.end(), [](const Zone& z) { return z.kept && z.hits == 0; });
}

bool BlockCache::GiveBackZone(ZoneRole writer_class) {
  if (!options_.borrow_free_zones && writer_class != kWalClass) return false;
  // Never wait long: the caller is a writer, and the cache's thread may
  // hold the lock while a write of its own waits for a zone.
  std::unique_lock<std::mutex> l(mu_, std::defer_lock);
  for (int i = 0; i < 20 && !l.try_lock(); i++) std::this_thread::sleep_for(std::chrono::microseconds(100));
  std::vector<Zone> dropped;
  if (!l.owns_lock() || closed_ || !EvictColdestLocked(&dropped, /*filling_too=*/options_.borrow_free_zones)) {
    return false;
  }
  stats_.given_back_zones++;
  full_ = options_.borrow_free_zones;
  l.unlock();
  DisposeZones(&dropped, /*commit=*/false);  // the filesystem commits for its writer
  return true;
}

bool BlockCache::EvictColdestLocked(std::vector<Zone>* dropped, bool filling_too) {
  // The zone being filled stays unless asked for: it is the newest, and
  // the next admission would open another. An append under way is never
  // cut short (writing_seq_); closing the file later writes its buffered
  // tail into the zone's own room.
  auto evictable = [this](const Zone& z) { return z.seq != writing_seq_ && !z.writer; };
  auto victim = zones_.end();
  for (auto it = zones_.begin(); it != zones_.end(); ++it) {
    if (!evictable(*it)) continue;
    if (victim == zones_.end()) victim = it;  // the oldest, if every zone served reads
    if (it->hits == 0) {
      victim = it;
      break;
    }
  }
  if (victim == zones_.end() && filling_too && !zones_.empty() && zones_.back().writer &&
      zones_.back().seq != writing_seq_) {
    victim = std::prev(zones_.end());
  }
  if (victim == zones_.end()) return false;
  // A second chance for the older zones that served reads since the last
  // eviction: their next one takes them unless they serve again.
  for (auto it = zones_.begin(); it != victim; ++it) it->hits = 0;
  for (const std::string& key : victim->keys) {
    auto it = map_.find(key);
    if (it != map_.end() && it->second.zone_seq == victim->seq) {
      stats_.bytes -= it->second.length;
      stats_.blocks--;
      stats_.evicted_blocks++;
      map_.erase(it);
    }
  }
  dropped->push_back(std::move(*victim));
  zones_.erase(victim);
  stats_.evicted_zones++;
  return true;
}

void BlockCache::KeepAtMostLocked(uint64_t zones, std::vector<Zone>* dropped) {
  while (zones_.size() > zones && EvictColdestLocked(dropped)) {
  }
}

void BlockCache::DisposeZones(std::vector<Zone>* dropped, bool commit) {
  if (dropped->empty()) return;
  for (Zone& z : *dropped) {
    if (z.writer) z.writer->Close();
    fs_->Unlink(z.path);  // its zone is reset once nothing references it
  }
  dropped->clear();
  // Evicted zones are reset once their deletion is durable: commit now, so
  // the space is there for the WAL and the next cache zone.
  if (commit) fs_->SyncMetadata();
}

bool BlockCache::OpenZone(std::unique_lock<std::mutex>* l) {
  // Decided under the lock, written without it: lookups and offers never
  // wait for the padding, the deletions, their commit or the new file. The
  // newest zone is this thread's alone (writing_seq_ keeps evictions off it).
  std::vector<Zone> dropped;
  const uint64_t allowed = AllowedZonesLocked();
  std::unique_ptr<FileWriter> last;
  uint64_t last_seq = 0, last_size = 0;
  if (!zones_.empty() && zones_.back().writer) {
    last = std::move(zones_.back().writer);
    last_seq = zones_.back().seq;
    last_size = zones_.back().size;
  }
  // Room for the new one: other zones go before the one just filled (its
  // padding is still to be written), and it goes too if no other can.
  const uint64_t keep = allowed == 0 ? 0 : allowed - 1;
  writing_seq_ = last_seq;
  KeepAtMostLocked(keep, &dropped);
  writing_seq_ = 0;
  KeepAtMostLocked(keep, &dropped);
  writing_seq_ = last_seq;
  const uint64_t seq = allowed < 1 ? 0 : next_seq_++;
  const std::string path = fmt::format("{}/{:016}", kCacheDirectory, seq);
  l->unlock();
  if (last) {
    // Fill the zone to its end, so that the next cache file starts on a
    // zone of its own and every file is exactly one zone.
    if (last_size < zone_bytes_ && last->Append(std::string(zone_bytes_ - last_size, '\0')).ok()) {
      last_size = zone_bytes_;
    }
    last->Close();
  }
  DisposeZones(&dropped, /*commit=*/true);
  std::unique_ptr<FileWriter> writer;
  const bool opened = seq != 0 && fs_->OpenWriter(path, WriteMode::kTruncate, &writer).ok();
  l->lock();
  writing_seq_ = 0;
  for (Zone& z : zones_) {
    if (z.seq == last_seq) z.size = last_size;
  }
  if (!opened) return false;
  Zone z;
  z.seq = seq;
  z.path = path;
  z.writer = std::move(writer);
  zones_.push_back(std::move(z));
  return true;
}

bool BlockCache::Offer(const std::string& key, std::string_view value) {
  std::lock_guard<std::mutex> l(mu_);
  stats_.offered++;
  if (closed_ || value.empty() || value.size() > zone_bytes_ || queued_bytes_ + value.size() > kMaxQueuedBytes) {
    stats_.rejected++;
    return false;
  }
  if (map_.count(key)) return true;
  if (!policy_->IsHot(key)) {
    stats_.rejected++;
    return false;
  }
  // A full borrowing cache takes only blocks missed twice: each costs an
  // older block. Not while a zone kept from the last mount has served no
  // read in this one: those go first (EvictColdestLocked), and a cache
  // kept whole would otherwise refuse every first miss and stay as the
  // last mount's reads left it.
  if (full_ && !HasIdleKeptZoneLocked() && !PassesDoorkeeperLocked(key)) {
    stats_.rejected++;
    return false;
  }
  queue_.emplace_back(key, std::string(value));
  queued_bytes_ += value.size();
  if (!writer_thread_.joinable()) writer_thread_ = std::thread([this] { AdmitLoop(); });
  queue_cv_.notify_one();
  return true;
}

void BlockCache::WaitForAdmissions() {
  std::unique_lock<std::mutex> l(mu_);
  idle_cv_.wait(l, [this] { return (queue_.empty() && !admitting_) || closed_; });
}

void BlockCache::AdmitLoop() {
  std::unique_lock<std::mutex> l(mu_);
  while (true) {
    queue_cv_.wait(l, [this] { return !queue_.empty() || closed_; });
    if (closed_) break;
    auto [key, value] = std::move(queue_.front());
    queue_.pop_front();
    queued_bytes_ -= value.size();
    admitting_ = true;
    AdmitLocked(&l, key, value);
    admitting_ = false;
    if (queue_.empty()) idle_cv_.notify_all();
  }
  admitting_ = false;
  idle_cv_.notify_all();
}

void BlockCache::AdmitLocked(std::unique_lock<std::mutex>* l, const std::string& key, const std::string& value) {
  if (map_.count(key)) return;
  // The WAL wins: if it has grown into the cache's share, give zones back.
  // (A borrowing cache learns here whether empty zones came free.)
  if (++offers_since_check_ >= kBudgetCheckEvery) {
    offers_since_check_ = 0;
    std::vector<Zone> dropped;
    KeepAtMostLocked(AllowedZonesLocked(), &dropped);
    if (!dropped.empty()) {
      l->unlock();
      DisposeZones(&dropped, /*commit=*/true);
      l->lock();
    }
  }
  if (zones_.empty() || !zones_.back().writer || zones_.back().size + value.size() > zone_bytes_) {
    if (!OpenZone(l)) {
      stats_.rejected++;
      return;
    }
  }
  Zone& z = zones_.back();
  FileWriter* writer = z.writer.get();
  const uint64_t seq = z.seq, offset = z.size;
  writing_seq_ = seq;
  l->unlock();
  Status s = writer->Append(value);
  // A new zone file's first block is written at once, so that the file
  // holds its zone from now on: buffered, the zone would be taken only when
  // the buffer fills or at the close, and a fast tier filled meanwhile by
  // others would leave the cache's last zone nowhere to go (and unkept).
  if (s.ok() && offset == 0) s = writer->Flush();
  l->lock();
  writing_seq_ = 0;
  // Only this thread appends, opens zones or closes the newest's writer,
  // and no eviction takes the zone being written: z is still the newest.
  Zone& newest = zones_.back();
  if (!s.ok() || newest.seq != seq) {  // no room after all: start over later
    if (newest.seq == seq) {
      newest.writer->Close();
      newest.writer.reset();
      if (newest.size == 0) {  // a file that never got a zone holds no slot
        fs_->Unlink(newest.path);
        zones_.pop_back();
      }
    }
    full_ = options_.borrow_free_zones;
    stats_.rejected++;
    return;
  }
  Location loc;
  loc.zone_seq = seq;
  loc.offset = offset;
  loc.length = static_cast<uint32_t>(value.size());
  loc.crc = crc32c::Value(value.data(), value.size());
  newest.size += value.size();
  newest.keys.push_back(key);
  map_[key] = loc;
  stats_.admitted++;
  stats_.blocks++;
  stats_.bytes += value.size();
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
      "\"blocks\":{},\"bytes\":{},\"zones\":{},\"bytes_served\":{},\"borrows_free_zones\":{},"
      "\"given_back_zones\":{},\"turned_away\":{},\"kept_blocks\":{},\"policy_state\":{}}}",
      options_.admission, options_.budget_bytes, s.lookups, s.hits, s.misses, ratio, s.offered, s.admitted,
      s.rejected, s.evicted_blocks, s.evicted_zones, s.bad_blocks, s.blocks, s.bytes, s.zones, s.bytes_served,
      options_.borrow_free_zones, s.given_back_zones, s.turned_away, s.kept_blocks, policy_->StateJson());
}

Status BlockCache::Close() {
  // Once closed, the filesystem is not touched again: it may be gone (a
  // cache closed, then destroyed after its filesystem was unmounted).
  {
    std::lock_guard<std::mutex> l(mu_);
    if (closed_) return Status::OK();
  }
  fs_->SetZoneLender(kCacheClass, nullptr);  // waits for a give-back under way
  {
    std::lock_guard<std::mutex> l(mu_);
    if (closed_) return Status::OK();
    closed_ = true;
    queue_.clear();
    queued_bytes_ = 0;
  }
  queue_cv_.notify_all();
  idle_cv_.notify_all();
  if (writer_thread_.joinable()) writer_thread_.join();
  std::string json = StatsJson();
  std::set<uint64_t> kept;  // the zones the saved mapping names
  if (options_.keys != nullptr && !SaveKept(&kept)) kept.clear();
  std::vector<Zone> dropped;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (Zone& z : zones_) {
      if (!kept.count(z.seq)) dropped.push_back(std::move(z));
    }
    zones_.clear();
    map_.clear();
    stats_.blocks = stats_.bytes = 0;
  }
  DisposeZones(&dropped, /*commit=*/false);
  return fs_->SetAttribute("cache", json);
}

}  // namespace hintfs
