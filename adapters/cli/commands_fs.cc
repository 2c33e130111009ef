// hintfs mkfs, info, df, ls, dump, fsck, gc, cat, profiles.
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "adapters/cli/commands.h"
#include "adapters/cli/progress.h"
#include "fs/device/timing_profile.h"
#include "fs/uri.h"
#include "hints/block_index_keeper.h"
#include "hints/file_tag.h"
#include "hints/manifest.h"
#include "placement/block_tiering.h"
#include "placement/migrator.h"
#include "placement/policy_registry.h"

namespace hintfs {
namespace cli {

using nlohmann::json;

int Fail(const std::string& what, const Status& s) {
  std::fprintf(stderr, "hintfs: %s: %s\n", what.c_str(), s.ToString().c_str());
  return ExitStatusFor(s);
}

namespace {
std::map<uint32_t, std::string>& MemberUris() {
  static auto* uris = new std::map<uint32_t, std::string>();
  return *uris;
}
}  // namespace

void SetMemberUris(const std::map<uint32_t, std::string>& member_uris) { MemberUris() = member_uris; }

namespace {

MountOptions CliMountOptions(bool read_only, bool repair) {
  MountOptions opts;
  opts.repair = repair;
  opts.member_uris = MemberUris();
  opts.read_only = read_only;
  opts.policy_factory = [](const std::string& name, std::shared_ptr<AllocationPolicy>* policy) {
    return NewAllocationPolicy(name, policy);
  };
  return opts;
}

}  // namespace

Status MountForCli(const std::string& uri, bool read_only, std::unique_ptr<Filesystem>* fs, bool repair) {
  return Filesystem::Mount(uri, CliMountOptions(read_only, repair), fs);
}

Status MountForLooking(const std::string& uri, std::unique_ptr<Filesystem>* fs) {
  Status s = MountForCli(uri, /*read_only=*/true, fs);
  DeviceUri parsed;
  if (!s.IsBusy() || !DeviceUri::Parse(uri, &parsed).ok() || (parsed.scheme != "file" && parsed.scheme != "blk")) return s;
  // In use by another process: its images as it has written them, without
  // the host log (the holder's commits since its last sync live there, and
  // name blocks the snapshot may not have).
  MountOptions opts = CliMountOptions(/*read_only=*/true, /*repair=*/false);
  opts.device_params = "snapshot=1";
  opts.host_log_dir.clear();
  for (int attempt = 0; attempt < 3; attempt++) {
    s = Filesystem::Mount(uri, opts, fs);
    if (s.ok()) {
      std::fprintf(stderr, "hintfs: %s is in use by another process: shown as of its last sync\n", uri.c_str());
      return s;
    }
    if (!s.IsCorruption()) break;  // else the holder rewrote a journal zone under the read: again
  }
  return s;
}

int Mkfs(const MkfsArgs& args) {
  MkfsOptions opts;
  for (const auto& u : args.fast) opts.devices.push_back({Tier::kFast, u, args.fast_data_zones});
  for (const auto& u : args.slow) opts.devices.push_back({Tier::kSlow, u, 0});
  opts.meta_zones = args.meta_zones;
  opts.force = args.force;
  opts.policy = args.policy;
  std::shared_ptr<AllocationPolicy> policy;
  Status s = NewAllocationPolicy(args.policy, &policy);
  if (!s.ok()) return Fail("mkfs", s);
  ProgressBar bar("mkfs: resetting zones", false);
  opts.progress = [&](uint64_t done, uint64_t total) { bar.Update(done, total); };
  s = Filesystem::Mkfs(opts);
  bar.Finish();
  if (!s.ok()) return Fail("mkfs", s);
  std::unique_ptr<Filesystem> fs;
  s = MountForCli(args.fast[0], true, &fs);
  if (!s.ok()) return Fail("mkfs", s);
  std::printf("created hintfs %s on %zu devices (policy %s)\n",
              UuidToString(fs->superblock().fs_uuid).c_str(), fs->superblock().members.size(),
              fs->policy_name().c_str());
  return 0;
}

namespace {

json UsageJson(const DeviceUsage& u) {
  uint64_t used = u.live_bytes + u.garbage_bytes;
  return json{{"device", u.index},
              {"uri", u.uri},
              {"tier", TierName(u.tier)},
              {"zones", u.zones},
              {"zone_size", u.zone_size},
              {"zone_capacity", u.zone_capacity},
              {"data_zones", u.data_zones},
              {"empty_zones", u.empty_zones},
              {"raw_bytes", u.raw_bytes},
              {"reserved_bytes", u.reserved_bytes},
              {"unusable_bytes", u.unusable_bytes},
              {"live_bytes", u.live_bytes},
              {"garbage_bytes", u.garbage_bytes},
              {"reclaimable_bytes", u.garbage_bytes},
              {"free_bytes", u.free_bytes},
              {"used_bytes", used},
              {"file_bytes", u.file_bytes},
              {"space_amplification",
               u.file_bytes == 0 ? 0.0 : static_cast<double>(used) / static_cast<double>(u.file_bytes)}};
}

const char* TypeName(FileType t) {
  return t == FileType::kDirectory ? "dir" : t == FileType::kSymlink ? "link" : t == FileType::kSpecial ? "node" : "file";
}

std::string TierOfExtents(const Filesystem& fs, const std::vector<Extent>& extents) {
  bool fast = false, slow = false;
  for (const Extent& e : extents) {
    (fs.superblock().members[e.device].tier == Tier::kFast ? fast : slow) = true;
  }
  if (fast && slow) return "mixed";
  if (fast) return "fast";
  if (slow) return "slow";
  return "-";
}

// A record a service saved as a filesystem attribute at its last stop, or
// fallback if there is none.
json SavedRecord(const std::map<std::string, std::string>& attributes, const std::string& name, json fallback) {
  auto saved = attributes.find(name);
  if (saved == attributes.end()) return fallback;
  json j = json::parse(saved->second, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return {{"error", "the saved " + name + " record is unreadable"}};
  return j;
}

json ExtentsJson(const std::vector<Extent>& extents) {
  json arr = json::array();
  for (const Extent& e : extents) {
    arr.push_back({{"device", e.device}, {"zone", e.zone}, {"offset", e.offset}, {"length", e.length}});
  }
  return arr;
}

}  // namespace

int Info(const std::string& uri, bool as_json) {
  std::unique_ptr<Filesystem> fs;
  Status s = MountForLooking(uri, &fs);
  if (!s.ok()) return Fail("info", s);
  const Superblock& sb = fs->superblock();
  FsStats st = fs->Stats();
  json j;
  j["uuid"] = UuidToString(sb.fs_uuid);
  j["created_ns"] = sb.created_ns;
  j["policy"] = fs->policy_name();
  auto attributes = fs->Attributes();
  // Saved by the last mount's services when it stopped; else what this
  // mount rebuilt from the files.
  j["policy_state"] = SavedRecord(attributes, "policy_state", json::parse(fs->PolicyStateJson()));
  j["journal"] = {{"device", sb.meta_device},
                  {"first_zone", sb.meta_first_zone},
                  {"zones", sb.meta_zone_count},
                  {"epoch", st.journal_epoch},
                  {"active_zone", st.journal_active_zone},
                  {"snapshot_bound", st.journal_snapshot_bound},
                  {"zone_capacity", st.journal_zone_capacity},
                  {"range_moves_refused", st.range_moves_refused}};
  // What a read-write mount will keep, and cut back, of files the last run
  // left unsynced without unmounting.
  json recovered = json::array();
  for (const RecoveredFile& f : st.recovered_files) {
    recovered.push_back({{"path", f.path}, {"recovered_bytes", f.recovered_bytes},
                         {"dropped_bytes", f.dropped_bytes}});
  }
  j["unsynced_files"] = recovered;
  j["files"] = st.files;
  j["directories"] = st.directories;
  json members = json::array();
  for (size_t i = 0; i < sb.members.size(); i++) {
    const MemberInfo& m = sb.members[i];
    members.push_back({{"index", i},
                       {"uuid", UuidToString(m.uuid)},
                       {"tier", TierName(m.tier)},
                       {"uri", m.uri},
                       {"zones", m.zone_count},
                       {"zone_size", m.zone_size},
                       {"zone_capacity", m.zone_capacity}});
  }
  j["members"] = members;
  // Saved by the migrator of the last mount that ran one (placement/migrator.h).
  j["migration"] = SavedRecord(attributes, "migration", json::parse(MigratorStats().ToJson()));
  // Saved by the SSD block cache when it closed (cache/block_cache.h).
  j["cache"] = SavedRecord(attributes, "cache",
                           json{{"admission", "off"}, {"lookups", 0}, {"hits", 0}, {"misses", 0}, {"hit_ratio", 0.0},
                                {"admitted", 0}, {"evicted", 0}, {"bytes", 0}});
  // Saved by the block index keeper when the last mount stopped (hints/block_index_keeper.h).
  j["block_index"] = SavedRecord(attributes, "block_index", json::parse(BlockIndexKeeper(nullptr).StatsJson()));
  // Saved by block tiering when the last mount that ran it stopped (placement/block_tiering.h).
  j["block_tiering"] = SavedRecord(attributes, "block_tiering", json::parse(BlockTieringStats().ToJson()));
  if (as_json) {
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::printf("hintfs %s  policy %s  %llu files, %llu directories\n", j["uuid"].get<std::string>().c_str(),
              fs->policy_name().c_str(), static_cast<unsigned long long>(st.files),
              static_cast<unsigned long long>(st.directories));
  std::printf("journal: device %u zones %u..%u, snapshot epoch %llu, next snapshot at most %s of %s\n",
              sb.meta_device, sb.meta_first_zone, sb.meta_first_zone + sb.meta_zone_count - 1,
              static_cast<unsigned long long>(st.journal_epoch), FormatSize(st.journal_snapshot_bound).c_str(),
              FormatSize(st.journal_zone_capacity).c_str());
  for (size_t i = 0; i < sb.members.size(); i++) {
    const MemberInfo& m = sb.members[i];
    std::printf("member %zu: %-4s %s  %u zones of %s (capacity %s)  uuid %s\n", i, TierName(m.tier),
                m.uri.c_str(), m.zone_count, FormatSize(m.zone_size).c_str(),
                FormatSize(m.zone_capacity).c_str(), UuidToString(m.uuid).c_str());
  }
  const json& cache = j["cache"];
  if (cache.contains("lookups") && cache.value("lookups", 0ull) > 0) {
    std::printf("cache (last run, %s): %llu hits of %llu lookups (%.1f%%), %llu blocks admitted, %llu evicted\n",
                cache.value("admission", std::string("?")).c_str(), cache.value("hits", 0ull),
                cache.value("lookups", 0ull), 100.0 * cache.value("hit_ratio", 0.0), cache.value("admitted", 0ull),
                cache.value("evicted", 0ull));
  }
  const json& bi = j["block_index"];
  if (bi.value("indexed", 0ull) + bi.value("rebuilt", 0ull) > 0) {
    std::printf("block indexes (last run): %llu tables indexed as written (%llu read back), %llu rebuilt, %s of "
                "indexes for %s of tables\n",
                bi.value("indexed", 0ull), bi.value("read_back", 0ull), bi.value("rebuilt", 0ull),
                HumanSize(bi.value("index_bytes", 0ull)).c_str(), HumanSize(bi.value("table_bytes", 0ull)).c_str());
  }
  const json& bt = j["block_tiering"];
  if (bt.value("promoted_blocks", 0ull) + bt.value("retained_blocks", 0ull) > 0) {
    std::printf("block tiering (last run): %llu blocks promoted on reads, %llu retained at seal, %llu demoted; "
                "%s held on the fast tier\n",
                bt.value("promoted_blocks", 0ull), bt.value("retained_blocks", 0ull), bt.value("demoted_blocks", 0ull),
                HumanSize(bt.value("resident_bytes", 0ull)).c_str());
  }
  const json& mig = j["migration"];
  if (mig.contains("moves")) {
    std::printf("migration (last run): %s to fast, %s to slow; moves: %llu capacity, %llu popularity, %llu swap, "
                "%llu fill\n",
                HumanSize(mig.value("to_fast_bytes", 0ull)).c_str(), HumanSize(mig.value("to_slow_bytes", 0ull)).c_str(),
                mig["moves"].value("capacity", 0ull), mig["moves"].value("popularity", 0ull),
                mig["moves"].value("swap", 0ull), mig["moves"].value("fill", 0ull));
  }
  return 0;
}

int Df(const std::string& uri, bool as_json) {
  std::unique_ptr<Filesystem> fs;
  Status s = MountForLooking(uri, &fs);
  if (!s.ok()) return Fail("df", s);
  std::vector<DeviceUsage> usage;
  s = fs->Usage(&usage);
  if (!s.ok()) return Fail("df", s);
  if (as_json) {
    json arr = json::array();
    for (const auto& u : usage) arr.push_back(UsageJson(u));
    std::cout << json{{"devices", arr}}.dump(2) << "\n";
    return 0;
  }
  std::printf("%-4s %-10s %10s %10s %10s %10s %10s %10s %7s  %s\n", "tier", "zones", "size", "live",
              "garbage", "free", "reserved", "files", "amp", "device");
  for (const auto& u : usage) {
    json j = UsageJson(u);
    std::printf("%-4s %-10s %10s %10s %10s %10s %10s %10s %7.2f  %s\n", TierName(u.tier),
                fmt::format("{}/{}", u.empty_zones, u.data_zones).c_str(),
                HumanSize(u.raw_bytes).c_str(), HumanSize(u.live_bytes).c_str(),
                HumanSize(u.garbage_bytes).c_str(), HumanSize(u.free_bytes).c_str(),
                HumanSize(u.reserved_bytes + u.unusable_bytes).c_str(),
                HumanSize(u.file_bytes).c_str(), j["space_amplification"].get<double>(), u.uri.c_str());
  }
  return 0;
}

int Ls(const std::string& uri, const std::string& path, bool long_format, bool recursive,
       bool as_json) {
  std::unique_ptr<Filesystem> fs;
  Status s = MountForLooking(uri, &fs);
  if (!s.ok()) return Fail("ls", s);
  json arr = json::array();
  FileStat root;
  s = fs->Stat(path, &root);
  if (!s.ok()) return Fail("ls " + path, s);
  // A table's level now, as its store's MANIFEST records it (a trivial move
  // takes a table down without rewriting it; its tag keeps the level it was
  // written at); per directory, read once.
  std::map<std::string, std::map<uint64_t, int>> store_levels;
  auto store_level = [&](const std::string& p) {
    uint64_t number = 0;
    if (!TableFileNumber(p, &number)) return -1;
    const std::string dir = p.substr(0, p.rfind('/'));
    auto it = store_levels.find(dir);
    if (it == store_levels.end()) {
      it = store_levels.emplace(dir, std::map<uint64_t, int>()).first;
      if (!LiveTableLevels(fs.get(), dir.empty() ? "/" : dir, &it->second).ok()) it->second.clear();
    }
    auto level = it->second.find(number);
    return level == it->second.end() ? -1 : level->second;
  };
  auto show = [&](const std::string& p, const DirEntry& e) {
    FileStat st;
    if (!fs->Stat(p, &st).ok()) return;
    const FileTag tag = FileTagOf(st.tag);
    const int now_level = e.type == FileType::kFile ? store_level(p) : -1;
    if (as_json) {
      arr.push_back({{"path", p},
                     {"type", TypeName(e.type)},
                     {"size", st.size},
                     {"nlink", st.nlink},
                     {"mtime_ns", st.mtime_ns},
                     {"role", FileClassName(st.role)},
                     {"tier", TierOfExtents(*fs, st.extents)},
                     {"level", tag.level},
                     {"store_level", now_level},
                     {"job", tag.job},
                     {"reason", tag.reason},
                     {"extents", ExtentsJson(st.extents)}});
      return;
    }
    if (!long_format) {
      std::printf("%s%s\n", p.c_str(), e.type == FileType::kDirectory ? "/" : "");
      return;
    }
    std::string extents;
    for (const Extent& x : st.extents) {
      extents += fmt::format(" {}:{}+{}", x.device, x.zone, x.length);
      if (extents.size() > 160) {
        extents += " ...";
        break;
      }
    }
    std::string target;
    if (e.type == FileType::kSymlink && fs->ReadLink(p, &target).ok()) extents = " -> " + target;
    const int shown_level = now_level >= 0 ? now_level : tag.level;
    std::string level = shown_level >= 0 ? "L" + std::to_string(shown_level) : "-";
    std::string file_class = e.type == FileType::kFile ? FileClassName(st.role) : "-";
    std::printf("%-4s %12llu %2u %-5s %-3s %-5s %s%s\n", TypeName(e.type),
                static_cast<unsigned long long>(st.size), st.nlink,
                file_class.c_str(), level.c_str(),
                TierOfExtents(*fs, st.extents).c_str(), p.c_str(),
                e.type == FileType::kDirectory ? "/" : extents.c_str());
  };
  if (root.type == FileType::kDirectory) {
    s = Walk(fs.get(), path, recursive, show);
    if (!s.ok()) return Fail("ls", s);
  } else {
    show(path, DirEntry{path, root.inode, root.type});
  }
  if (as_json) std::cout << arr.dump(2) << "\n";
  return 0;
}

int Dump(const std::string& uri, bool as_json) {
  std::unique_ptr<Filesystem> fs;
  Status s = MountForLooking(uri, &fs);
  if (!s.ok()) return Fail("dump", s);
  std::vector<ZoneReport> zones;
  s = fs->Zones(&zones);
  if (!s.ok()) return Fail("dump", s);
  json zarr = json::array();
  for (const ZoneReport& z : zones) {
    zarr.push_back({{"device", z.device},
                    {"zone", z.zone},
                    {"role", FileClassName(z.role)},
                    {"condition", ZoneConditionName(z.condition)},
                    {"start", z.start},
                    {"write_pointer", z.write_pointer},
                    {"capacity", z.capacity},
                    {"live_bytes", z.live_bytes}});
  }
  json farr = json::array();
  s = Walk(fs.get(), "/", true, [&](const std::string& p, const DirEntry& e) {
    FileStat st;
    if (!fs->Stat(p, &st).ok()) return;
    farr.push_back({{"path", p},
                    {"inode", st.inode},
                    {"type", TypeName(e.type)},
                    {"size", st.size},
                    {"nlink", st.nlink},
                    {"mtime_ns", st.mtime_ns},
                    {"role", FileClassName(st.role)},
                    {"extents", ExtentsJson(st.extents)}});
  });
  if (!s.ok()) return Fail("dump", s);
  if (as_json) {
    std::cout << json{{"uuid", UuidToString(fs->superblock().fs_uuid)}, {"zones", zarr}, {"files", farr}}.dump(2)
              << "\n";
    return 0;
  }
  for (const auto& z : zarr) {
    std::printf("dev %u zone %4u %-10s %-13s wp +%-10llu live %llu\n", z["device"].get<uint32_t>(),
                z["zone"].get<uint32_t>(), z["role"].get<std::string>().c_str(),
                z["condition"].get<std::string>().c_str(),
                static_cast<unsigned long long>(z["write_pointer"].get<uint64_t>() - z["start"].get<uint64_t>()),
                static_cast<unsigned long long>(z["live_bytes"].get<uint64_t>()));
  }
  for (const auto& f : farr) {
    std::printf("%s inode %llu size %llu extents %zu\n", f["path"].get<std::string>().c_str(),
                static_cast<unsigned long long>(f["inode"].get<uint64_t>()),
                static_cast<unsigned long long>(f["size"].get<uint64_t>()), f["extents"].size());
  }
  return 0;
}

int Fsck(const std::string& uri, bool deep, bool as_json) {
  std::unique_ptr<Filesystem> fs;
  Status s = MountForCli(uri, true, &fs);
  if (!s.ok()) {
    if (as_json) std::cout << json{{"ok", false}, {"errors", {s.ToString()}}}.dump(2) << "\n";
    return Fail("fsck", s);
  }
  FsckReport report;
  ProgressBar bar("fsck: reading data", true);
  s = fs->Check(deep, &report, [&](uint64_t d, uint64_t t) { bar.Update(d, t); });
  bar.Finish();
  if (!s.ok()) return Fail("fsck", s);
  CheckBlockIndexes(fs.get(), &report);
  if (as_json) {
    std::cout << json{{"ok", report.ok()},
                      {"errors", report.errors},
                      {"warnings", report.warnings},
                      {"files", report.files},
                      {"directories", report.directories},
                      {"extents", report.extents},
                      {"bytes_checked", report.bytes_checked}}
                     .dump(2)
              << "\n";
  } else {
    for (const auto& w : report.warnings) std::printf("warning: %s\n", w.c_str());
    for (const auto& e : report.errors) std::printf("error: %s\n", e.c_str());
    std::printf("%s: %llu files, %llu directories, %llu extents%s\n",
                report.ok() ? "clean" : "PROBLEMS FOUND", static_cast<unsigned long long>(report.files),
                static_cast<unsigned long long>(report.directories),
                static_cast<unsigned long long>(report.extents),
                deep ? fmt::format(", {} of data read back", HumanSize(report.bytes_checked)).c_str() : "");
  }
  return report.ok() ? kExitOk : kExitDamage;
}

int Gc(const std::string& uri, uint32_t zones) {
  std::unique_ptr<Filesystem> fs;
  Status s = MountForCli(uri, false, &fs);
  if (!s.ok()) return Fail("gc", s);
  uint32_t freed = 0;
  s = fs->CollectGarbage(zones, &freed);
  if (!s.ok()) return Fail("gc", s);
  FsStats st = fs->Stats();
  s = fs->Unmount();
  if (!s.ok()) return Fail("gc", s);
  std::printf("freed %u zones, moved %s\n", freed, HumanSize(st.gc_bytes_moved).c_str());
  return 0;
}

int Cat(const std::string& uri, const std::string& path) {
  std::unique_ptr<Filesystem> fs;
  Status s = MountForCli(uri, true, &fs);
  if (!s.ok()) return Fail("cat", s);
  std::unique_ptr<FileReader> r;
  s = fs->OpenReader(path, &r);
  if (!s.ok()) return Fail("cat " + path, s);
  std::string buf(1 << 20, '\0');
  for (uint64_t off = 0;;) {
    size_t got = 0;
    s = r->Read(off, buf.size(), &buf[0], &got);
    if (!s.ok()) return Fail("cat " + path, s);
    if (got == 0) break;
    std::fwrite(buf.data(), 1, got, stdout);
    off += got;
  }
  return 0;
}

int Profiles() {
  std::printf("%-12s %10s %10s %12s %6s  %s\n", "profile", "read MiB/s", "write MiB/s", "4K QD1 IOPS",
              "units", "model");
  for (const TimingProfile& p : BuiltinTimingProfiles()) {
    double iops = 1e6 / (p.read_access_us + 4096.0 / (p.read_mib_per_s * 1048576.0) * 1e6);
    std::printf("%-12s %10.1f %10.1f %12.0f %6d  %s\n", p.name.c_str(), p.read_mib_per_s,
                p.write_mib_per_s, iops, p.parallel_units, p.description.c_str());
  }
  return 0;
}

}  // namespace cli
}  // namespace hintfs
