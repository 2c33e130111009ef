#include "adapters/common/mount_stats.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "cache/caching_filesystem.h"
#include "fs/walk.h"
#include "hints/file_tag.h"

namespace hintfs {

namespace {

// Bytes on each tier per LSM level (from the levels recorded in the files'
// hints; "other" for files with none: WALs, MANIFESTs, files of other
// programs), and the files of each.
nlohmann::json BytesPerLevel(Filesystem* fs) {
  struct Row {
    uint64_t files = 0, bytes[2] = {0, 0};
  };
  std::map<std::string, Row> rows;
  const Superblock& sb = fs->superblock();
  Walk(fs, "/", /*recursive=*/true, [&](const std::string& path, const DirEntry& entry) {
    FileStat st;
    if (entry.type != FileType::kFile || !fs->Stat(path, &st).ok()) return;
    int level = FileTagOf(st.tag).level;
    Row& row = rows[level >= 0 ? "L" + std::to_string(level) : "other"];
    row.files++;
    for (const Extent& e : st.extents) {
      if (e.device < sb.members.size()) row.bytes[sb.members[e.device].tier == Tier::kFast ? 0 : 1] += e.length;
    }
  });
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, row] : rows) {
    out[name] = {{"files", row.files}, {"fast_bytes", row.bytes[0]}, {"slow_bytes", row.bytes[1]}};
  }
  return out;
}

}  // namespace

nlohmann::json MountStatsJson(Filesystem* fs, const nlohmann::json& extra) {
  using json = nlohmann::json;
  FsStats st = fs->Stats();
  json j;
  j["policy"] = fs->policy_name();
  j["policy_state"] = json::parse(fs->PolicyStateJson(), nullptr, false);
  j["files"] = st.files;
  j["directories"] = st.directories;
  j["bytes_written"] = {{"fast", st.bytes_written[0]}, {"slow", st.bytes_written[1]}};
  j["bytes_read"] = {{"fast", st.bytes_read[0]}, {"slow", st.bytes_read[1]}};
  j["small_reads"] = {{"fast", st.small_reads[0]}, {"slow", st.small_reads[1]}};
  j["migrated_bytes"] = {{"to_fast", st.migrated_bytes[0]}, {"to_slow", st.migrated_bytes[1]}};
  j["copies"] = {{"from_memory", st.copies_from_memory}, {"from_device", st.copies_from_device}};
  j["reads_from_written"] = {{"reads", st.reads_from_written}, {"bytes", st.bytes_from_written}};
  j["readahead"] = {{"reads_served", st.readahead_reads_served},
                    {"fetches", st.readahead_fetches},
                    {"bytes", st.readahead_bytes}};
  j["overwritten_bytes"] = st.overwritten_bytes;
  j["zone_resets"] = st.zone_resets;
  j["gc_runs"] = st.gc_runs;
  j["gc_bytes_moved"] = st.gc_bytes_moved;
  j["gc_zones_freed"] = st.gc_zones_freed;
  j["journal_commits"] = st.journal_commits;
  j["journal_unflushed_commits"] = st.journal_unflushed_commits;
  j["journal_bytes"] = st.journal_bytes;
  j["journal_rolls"] = st.journal_rolls;
  j["recovered_bytes"] = st.recovered_bytes;
  j["dropped_bytes"] = st.dropped_bytes;
  std::vector<DeviceUsage> usage;
  if (fs->Usage(&usage).ok()) {
    for (const DeviceUsage& u : usage) {
      j["devices"].push_back({{"uri", u.uri}, {"tier", TierName(u.tier)}, {"live_bytes", u.live_bytes},
                              {"free_bytes", u.free_bytes}, {"garbage_bytes", u.garbage_bytes},
                              {"empty_zones", u.empty_zones}, {"data_zones", u.data_zones},
                              {"busy_ns", u.busy_ns}});
    }
  }
  j["levels"] = BytesPerLevel(fs);
  if (auto* caching = CachingLayerOf(fs)) {
    j["cache"] = json::parse(caching->cache()->StatsJson(), nullptr, false);
  }
  j["mount"] = extra;
  return j;
}

std::string MountMetrics(const nlohmann::json& j) {
  std::string out;
  auto metric = [&](const char* name, const char* help, const std::string& labels, uint64_t v) {
    out += fmt::format("# HELP hintfs_{} {}\n# TYPE hintfs_{} counter\nhintfs_{}{} {}\n", name, help, name, name,
                       labels, v);
  };
  metric("bytes_written_fast", "bytes written to fast devices", "", j["bytes_written"]["fast"].get<uint64_t>());
  metric("bytes_written_slow", "bytes written to slow devices", "", j["bytes_written"]["slow"].get<uint64_t>());
  metric("bytes_read_fast", "bytes read from fast devices", "", j["bytes_read"]["fast"].get<uint64_t>());
  metric("bytes_read_slow", "bytes read from slow devices", "", j["bytes_read"]["slow"].get<uint64_t>());
  metric("migrated_to_fast_bytes", "bytes migrated to the fast tier", "", j["migrated_bytes"]["to_fast"].get<uint64_t>());
  metric("migrated_to_slow_bytes", "bytes migrated to the slow tier", "", j["migrated_bytes"]["to_slow"].get<uint64_t>());
  metric("overwritten_bytes", "bytes written over stored ones (out of place)", "",
         j["overwritten_bytes"].get<uint64_t>());
  metric("zone_resets", "zones reset", "", j["zone_resets"].get<uint64_t>());
  metric("journal_commits", "journal batches committed", "", j["journal_commits"].get<uint64_t>());
  metric("journal_bytes", "bytes written to the journal", "", j["journal_bytes"].get<uint64_t>());
  // Per device: one HELP and TYPE line per metric, then a sample a device.
  const std::pair<const char*, const char*> device_metrics[] = {
      {"live_bytes", "bytes of live data on the device"},
      {"free_bytes", "bytes free for writing on the device"},
      {"garbage_bytes", "bytes of dead data GC can reclaim on the device"}};
  for (const auto& [name, help] : device_metrics) {
    out += fmt::format("# HELP hintfs_device_{} {}\n# TYPE hintfs_device_{} gauge\n", name, help, name);
    for (const auto& d : j["devices"]) {
      out += fmt::format("hintfs_device_{}{{device=\"{}\",tier=\"{}\"}} {}\n", name, d["uri"].get<std::string>(),
                         d["tier"].get<std::string>(), d[name].get<uint64_t>());
    }
  }
  out += "# HELP hintfs_level_bytes bytes of each LSM level on each tier (level other: files without one)\n"
         "# TYPE hintfs_level_bytes gauge\n";
  for (const auto& [level, row] : j["levels"].items()) {
    for (const char* tier : {"fast", "slow"}) {
      out += fmt::format("hintfs_level_bytes{{level=\"{}\",tier=\"{}\"}} {}\n", level, tier,
                         row[std::string(tier) + "_bytes"].get<uint64_t>());
    }
  }
  if (j.contains("cache") && j["cache"].is_object()) {
    metric("cache_hits", "block cache hits", "", j["cache"].value("hits", 0ull));
    metric("cache_misses", "block cache misses", "", j["cache"].value("misses", 0ull));
    metric("cache_admitted", "blocks admitted to the block cache", "", j["cache"].value("admitted", 0ull));
  }
  if (j.contains("mount") && j["mount"].is_object()) {
    const auto& m = j["mount"];
    metric("mount_failed_writes", "writes the filesystem failed (no space, device errors)", "",
           m.value("failed_writes", 0ull));
    metric("mount_held_writes", "writes that arrived before the bytes ahead of them", "",
           m.value("held_writes", 0ull));
    out += fmt::format("# HELP hintfs_mount_held_bytes bytes written back out of order, held until the gap fills\n"
                       "# TYPE hintfs_mount_held_bytes gauge\nhintfs_mount_held_bytes {}\n",
                       m.value("held_bytes", 0ull));
  }
  return out;
}

void WriteStatsFile(Filesystem* fs, const std::string& path) {
  std::string text = MountStatsJson(fs, nlohmann::json::object()).dump(2) + "\n";
  std::FILE* f = std::fopen(path.c_str(), "w");
  bool ok = f != nullptr && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (f != nullptr) ok = std::fclose(f) == 0 && ok;
  if (!ok) std::fprintf(stderr, "hintfs: cannot write statistics to %s: %s\n", path.c_str(), std::strerror(errno));
}

}  // namespace hintfs
