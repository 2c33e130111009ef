// BlockCache across mounts: the mapping a clean close saves (kCacheIndexFile,
// docs/formats.md) and the open that takes it back.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "cache/block_cache.h"
#include "fs/coding.h"
#include "fs/crc32c.h"
#include "fs/walk.h"

namespace hintfs {

namespace {

constexpr char kKeptMagic[] = "hfscache";  // 8 bytes
constexpr uint32_t kKeptVersion = 1;
// A saved key is a path and a few numbers; anything longer is damage.
constexpr size_t kMaxKeptKey = 8192;

}  // namespace

Status BlockCache::Restore(const std::vector<DirEntry>& old) {
  const std::string index_name = std::string(kCacheIndexFile).substr(std::string(kCacheDirectory).size() + 1);
  const bool has_index = std::any_of(old.begin(), old.end(), [&](const DirEntry& e) { return e.name == index_name; });
  if (options_.keys != nullptr && has_index) {
    std::string bytes;
    Status s = ReadWholeFile(fs_, kCacheIndexFile, &bytes);
    if (s.ok()) s = ParseKept(bytes);
    if (!s.ok()) {
      // A cache is a copy: a bad mapping costs its blocks, never the mount.
      fmt::print(stderr, "hintfs: the SSD cache starts empty: {}\n", s.ToString());
      map_.clear();
      zones_.clear();
      stats_.blocks = stats_.bytes = stats_.kept_blocks = 0;
    }
  }
  // The index first: once its deletion is in the journal, no later mount
  // can take a mapping this one's evictions and admissions have outdated.
  std::vector<std::string> doomed;
  if (has_index) doomed.push_back(kCacheIndexFile);
  for (const DirEntry& e : old) {
    const std::string path = std::string(kCacheDirectory) + "/" + e.name;
    bool kept = std::any_of(zones_.begin(), zones_.end(), [&](const Zone& z) { return z.path == path; });
    if (e.name != index_name && !kept) doomed.push_back(path);
  }
  for (const std::string& path : doomed) {
    Status s = fs_->Unlink(path);
    if (!s.ok()) return s;
  }
  // Their zones are reset once the deletions are durable: before the first
  // new cache file, which would otherwise start in the tail of one of them.
  return doomed.empty() ? Status::OK() : fs_->SyncMetadata();
}

Status BlockCache::ParseKept(std::string_view bytes) {
  if (bytes.size() < 8 + 4 + 8 + 4 + 4 + 4) return Status::Corruption("cache index too short");
  const uint32_t stored = DecodeFixed32(bytes.data() + bytes.size() - 4);
  bytes.remove_suffix(4);
  if (crc32c::Value(bytes.data(), bytes.size()) != stored) return Status::Corruption("cache index checksum");
  Decoder d(bytes, "cache index");
  std::string_view magic;
  uint32_t version = 0, groups = 0, zones = 0;
  uint64_t zone_bytes = 0;
  d.GetBytes(8, &magic);
  d.GetFixed32(&version);
  d.GetFixed64(&zone_bytes);
  if (!d.ok()) return d.status();
  if (magic != std::string_view(kKeptMagic, 8)) return Status::Corruption("not a cache index");
  if (version != kKeptVersion) return Status::Corruption(fmt::format("cache index version {}", version));
  if (zone_bytes != zone_bytes_) return Status::Corruption("cache index of another zone size");
  d.GetFixed32(&groups);
  if (!d.ok() || groups > d.remaining() / 4) return Status::Corruption("cache index group count");
  std::vector<std::string> group_names(groups);
  for (std::string& g : group_names) d.GetLengthPrefixed(&g, kMaxKeptKey);
  d.GetFixed32(&zones);
  // Read whole first: the key mapping checks what the keys name in one call.
  struct Saved {
    Zone zone;
    bool intact = false;
    std::vector<Location> blocks;
  };
  std::vector<Saved> saved;
  std::vector<KeptKey> kept;
  for (uint32_t i = 0; i < zones && d.ok(); i++) {
    Saved z;
    uint32_t blocks = 0;
    d.GetFixed64(&z.zone.seq);
    d.GetFixed64(&z.zone.size);
    d.GetFixed32(&blocks);
    if (!d.ok() || z.zone.seq == 0 || z.zone.size > zone_bytes_ || blocks > z.zone.size) {
      return Status::Corruption("cache index zone");
    }
    z.zone.path = fmt::format("{}/{:016}", kCacheDirectory, z.zone.seq);
    FileStat st;
    // A zone whose file is not as saved keeps none of its blocks.
    z.intact = fs_->Stat(z.zone.path, &st).ok() && st.size == z.zone.size;
    for (uint32_t b = 0; b < blocks && d.ok(); b++) {
      uint32_t group = 0;
      KeptKey key;
      Location loc;
      loc.zone_seq = z.zone.seq;
      d.GetFixed32(&group);
      d.GetLengthPrefixed(&key.item, kMaxKeptKey);
      d.GetFixed64(&loc.offset);
      d.GetFixed32(&loc.length);
      d.GetFixed32(&loc.crc);
      if (!d.ok()) break;
      if (group >= groups || loc.offset > z.zone.size || loc.length > z.zone.size - loc.offset) {
        return Status::Corruption("cache index block");
      }
      key.group = group_names[group];
      z.blocks.push_back(loc);
      kept.push_back(std::move(key));
    }
    saved.push_back(std::move(z));
  }
  if (!d.ok()) return d.status();
  if (d.remaining() != 0) return Status::Corruption("cache index has trailing bytes");
  const std::vector<std::string> live = options_.keys->FromKept(kept);
  size_t next = 0;
  for (Saved& z : saved) {
    next_seq_ = std::max(next_seq_, z.zone.seq + 1);
    for (const Location& loc : z.blocks) {
      const std::string& key = live[next++];
      if (!z.intact || key.empty() || map_.count(key)) continue;
      map_[key] = loc;
      z.zone.keys.push_back(key);
      stats_.blocks++;
      stats_.bytes += loc.length;
      stats_.kept_blocks++;
    }
    z.zone.kept = true;
    if (!z.zone.keys.empty()) zones_.push_back(std::move(z.zone));
  }
  return Status::OK();
}

bool BlockCache::SaveKept(std::set<uint64_t>* kept) {
  std::vector<SavedZone> saved;
  std::vector<std::string> keys;
  {
    std::lock_guard<std::mutex> l(mu_);
    // The zone being filled is padded to its end, as OpenZone does, so that
    // every zone file stays exactly one zone and the next mount opens new
    // zones of its own.
    if (!zones_.empty() && zones_.back().writer) {
      Zone& z = zones_.back();
      if (z.size < zone_bytes_ && z.writer->Append(std::string(zone_bytes_ - z.size, '\0')).ok()) z.size = zone_bytes_;
      const bool closed = z.writer->Close().ok();
      z.writer.reset();
      if (!closed || z.size < zone_bytes_) z.keys.clear();  // not kept: dropped by Close
    }
    for (const Zone& z : zones_) {
      SavedZone s;
      s.seq = z.seq;
      s.size = z.size;
      s.path = z.path;
      for (const std::string& key : z.keys) {
        auto it = map_.find(key);
        if (it == map_.end() || it->second.zone_seq != z.seq) continue;
        s.blocks.push_back(it->second);
        keys.push_back(key);
      }
      saved.push_back(std::move(s));
    }
  }
  std::vector<KeptKey> kept_keys = options_.keys->ToKept(keys);
  Status s;
  for (size_t dropped = 0;; dropped++) {
    kept->clear();
    const std::string bytes = EncodeKept(saved, kept_keys, kept);
    if (bytes.empty()) return false;
    s = WriteKept(bytes);
    if (s.ok()) return true;
    // Every cache zone is full and the cache held the empty ones: the index
    // takes the oldest zone's place, once.
    if (!s.IsNoSpace() || dropped > 0 || saved.empty()) break;
    fs_->Unlink(saved.front().path);
    fs_->SyncMetadata();  // its zone is reset once the deletion is durable
    kept_keys.erase(kept_keys.begin(), kept_keys.begin() + saved.front().blocks.size());
    saved.erase(saved.begin());
  }
  kept->clear();
  fmt::print(stderr, "hintfs: the SSD cache is not kept for the next mount: {}\n", s.ToString());
  return false;
}

std::string BlockCache::EncodeKept(const std::vector<SavedZone>& saved, const std::vector<KeptKey>& kept_keys,
                                   std::set<uint64_t>* kept) const {
  std::map<std::string, uint32_t> group_ids;  // group -> its place in the table
  std::string groups, body;
  uint32_t zones = 0;
  size_t next = 0;
  for (const SavedZone& z : saved) {
    std::string blocks;
    uint32_t count = 0;
    for (const Location& loc : z.blocks) {
      const KeptKey& key = kept_keys[next++];
      if (key.group.empty() || key.group.size() > kMaxKeptKey || key.item.size() > kMaxKeptKey) continue;
      auto [g, added] = group_ids.emplace(key.group, static_cast<uint32_t>(group_ids.size()));
      if (added) PutLengthPrefixed(&groups, key.group);
      PutFixed32(&blocks, g->second);
      PutLengthPrefixed(&blocks, key.item);
      PutFixed64(&blocks, loc.offset);
      PutFixed32(&blocks, loc.length);
      PutFixed32(&blocks, loc.crc);
      count++;
    }
    if (count == 0) continue;
    PutFixed64(&body, z.seq);
    PutFixed64(&body, z.size);
    PutFixed32(&body, count);
    body += blocks;
    kept->insert(z.seq);
    zones++;
  }
  if (zones == 0) return "";
  std::string out(kKeptMagic, 8);
  PutFixed32(&out, kKeptVersion);
  PutFixed64(&out, zone_bytes_);
  PutFixed32(&out, static_cast<uint32_t>(group_ids.size()));
  out += groups;
  PutFixed32(&out, zones);
  out += body;
  PutFixed32(&out, crc32c::Value(out.data(), out.size()));
  return out;
}

Status BlockCache::WriteKept(const std::string& bytes) {
  std::unique_ptr<FileWriter> writer;
  Status s = fs_->OpenWriter(kCacheIndexFile, WriteMode::kTruncate, &writer);
  if (s.ok()) s = writer->Append(bytes);
  if (s.ok()) s = writer->Sync();
  if (writer) {
    Status c = writer->Close();
    if (s.ok()) s = c;
  }
  if (!s.ok()) fs_->Unlink(kCacheIndexFile);
  return s;
}

}  // namespace hintfs
