#include "adapters/common/mount_registry.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

#include "fs/uri.h"
#include "fs/device/zoned_device.h"
#include "hints/block_index_keeper.h"
#include "hints/level_inference.h"
#include "hints/manifest_watcher.h"
#include "hints/trace.h"
#include "adapters/common/metrics_server.h"
#include "adapters/common/mount_services.h"
#include "adapters/common/mount_stats.h"
#include "placement/policy_registry.h"

namespace hintfs {

namespace {

struct MountEntry {
  std::weak_ptr<Filesystem> fs;
  std::shared_ptr<HintBus> bus;
  std::string options;  // the spec's query, as first mounted
};

std::mutex g_mu;
// Keyed by the device ("scheme:path"): a device is mounted once per process.
std::map<std::string, MountEntry>& Mounts() {
  static auto* mounts = new std::map<std::string, MountEntry>();
  return *mounts;
}

std::string EnvOr(const char* name, const char* def) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : def;
}

// A mem: spec that names no device gets a fresh filesystem.
Status CreateMemFilesystemIfMissing(const std::string& spec) {
  std::unique_ptr<ZonedDevice> probe;
  if (OpenZonedDevice(spec, /*create=*/false, &probe).ok()) return Status::OK();
  MkfsOptions opts;
  opts.devices = {
      {Tier::kFast, spec + "?" + EnvOr("HINTFS_MEM_FAST", "zone_size=64MiB&zones=64")},
      {Tier::kSlow, spec + ".slow?" + EnvOr("HINTFS_MEM_SLOW", "zone_size=256MiB&zones=64")}};
  return Filesystem::Mkfs(opts);
}

// Takes the URI keys the filesystem core understands (read_only, host_log,
// verify_reads, memberN, reserve_zones, readahead) and stats= into opts;
// InvalidArgument for a bad value.
Status TakeFilesystemOptions(DeviceUri* uri, MountOptions* opts, std::string* stats_path) {
  if (uri->Has("read_only")) {  // nothing is written to any member
    std::string v = uri->GetString("read_only", "");
    if (v != "on" && v != "off") return Status::InvalidArgument("read_only= takes on or off");
    opts->read_only = v == "on";
    uri->params.erase("read_only");
  }
  if (uri->Has("host_log")) {  // where process-kill commits go (fs/host_log.h)
    std::string dir = uri->GetString("host_log", "");
    if (dir.empty()) return Status::InvalidArgument("host_log= needs a directory or 'off'");
    opts->host_log_dir = dir == "off" ? "" : dir;
    uri->params.erase("host_log");
  }
  if (uri->Has("verify_reads")) {  // check block checksums on reads (fs/block_sums.h)
    std::string v = uri->GetString("verify_reads", "");
    if (v != "on" && v != "off") return Status::InvalidArgument("verify_reads= takes on or off");
    opts->verify_reads = v == "on";
    uri->params.erase("verify_reads");
  }
  // memberN=URI: member N is not where mkfs recorded it (MountOptions::member_uris).
  for (auto it = uri->params.begin(); it != uri->params.end();) {
    const std::string& key = it->first;
    if (key.size() > 6 && key.size() <= 12 && key.compare(0, 6, "member") == 0 &&
        key.find_first_not_of("0123456789", 6) == std::string::npos) {
      opts->member_uris[static_cast<uint32_t>(std::stoul(key.substr(6)))] = it->second;
      it = uri->params.erase(it);
    } else {
      ++it;
    }
  }
  if (uri->Has("reserve_zones")) {  // zones per device kept for space-freeing writes
    uint64_t n = 0;
    Status s = uri->GetUint("reserve_zones", 1, &n);
    if (!s.ok() || n > 1024) return Status::InvalidArgument("reserve_zones= takes a zone count up to 1024");
    opts->reserve_zones = static_cast<uint32_t>(n);
    uri->params.erase("reserve_zones");
  }
  if (uri->Has("readahead")) {  // the largest readahead window (fs/readahead.h)
    uint64_t bytes = 0;
    Status s = uri->GetString("readahead", "") == "off" ? Status::OK() : uri->GetSize("readahead", 0, &bytes);
    if (!s.ok() || bytes > (64u << 20)) return Status::InvalidArgument("readahead= takes a size up to 64MiB, or off");
    opts->readahead_bytes = static_cast<size_t>(bytes);
    uri->params.erase("readahead");
  }
  if (uri->Has("stats")) {  // the mount's statistics go there at unmount
    *stats_path = uri->GetString("stats", "");
    uri->params.erase("stats");
    if (stats_path->empty()) return Status::InvalidArgument("stats= needs a host file path");
  }
  return Status::OK();
}

}  // namespace

Status AcquireMount(const std::string& spec, std::shared_ptr<Filesystem>* fs,
                    std::shared_ptr<HintBus>* bus_out) {
  std::lock_guard<std::mutex> l(g_mu);
  DeviceUri uri;
  Status s = DeviceUri::Parse(spec, &uri);
  if (!s.ok()) return s;
  std::string base = uri.scheme + ":" + uri.path;
  std::string query = spec.size() > base.size() ? spec.substr(base.size() + 1) : "";
  auto it = Mounts().find(base);
  if (it != Mounts().end()) {
    *fs = it->second.fs.lock();
    if (*fs) {
      if (!query.empty() && query != it->second.options) {
        return Status::InvalidArgument(base + " is already mounted in this process with options '" +
                                       it->second.options + "', not '" + query + "'");
      }
      if (bus_out != nullptr) *bus_out = it->second.bus;
      return Status::OK();
    }
  }
  auto bus = std::make_shared<HintBus>();
  MountOptions opts;
  auto made = std::make_shared<std::shared_ptr<AllocationPolicy>>();  // the recorded policy, once made
  opts.policy_factory = [bus, made](const std::string& name, std::shared_ptr<AllocationPolicy>* policy) {
    Status made_ok = NewAllocationPolicy(name, bus, policy);
    if (made_ok.ok()) *made = *policy;
    return made_ok;
  };
  ServiceOverrides services_wanted;
  s = TakeServiceOverrides(&uri, &services_wanted);
  if (!s.ok()) return s;
  if (uri.Has("policy")) {
    s = NewAllocationPolicy(uri.GetString("policy", ""), bus, &opts.policy);
    if (!s.ok()) return s;
    uri.params.erase("policy");
  }
  if (uri.Has("trace")) {  // record hints and I/O to a host file
    std::unique_ptr<TraceWriter> writer;
    s = TraceWriter::Create(uri.GetString("trace", ""), &writer);
    if (!s.ok()) return s;
    opts.observer = std::make_shared<TraceRecorder>(std::move(writer), bus);
    uri.params.erase("trace");
  }
  std::string stats_path;  // the mount's statistics go there at unmount
  s = TakeFilesystemOptions(&uri, &opts, &stats_path);
  if (!s.ok()) return s;
  std::string metrics_address = uri.GetString("metrics", "");  // served over HTTP while mounted
  if (uri.Has("metrics") && metrics_address.empty()) return Status::InvalidArgument("metrics= needs HOST:PORT");
  uri.params.erase("metrics");
  if (opts.read_only) {
    // Every service writes: migration and block tiering move data, the
    // cache fills fast zones.
    services_wanted.migration = false;
    services_wanted.cache = "off";
    services_wanted.blocks = 0;
  }
  // MANIFEST edits become hints for every mount: stores that send none
  // (LevelDB, anything on a FUSE mount) still tell placement their levels,
  // and a new table's level is guessed from the compactions running.
  opts.observer = std::make_shared<ManifestWatcher>(bus, std::make_shared<LevelInference>(bus, opts.observer));
  // Sealed tables get a block index (first, so it sees every byte written).
  auto keeper = std::make_shared<BlockIndexKeeper>(opts.observer);
  opts.observer = keeper;
  opts.device_params = EnvOr("HINTFS_DEVICE_PARAMS", "");
  std::string device_keys;
  for (const auto& [key, value] : uri.params) {
    device_keys += (device_keys.empty() ? "" : "&") + key + "=" + value;
  }
  s = CheckDeviceUri(device_keys.empty() ? base : base + "?" + device_keys);
  if (!s.ok() && s.message().find("unknown device URI key") != std::string::npos) {
    // The device's list of keys leaves out the mount's own.
    return Status::InvalidArgument(s.message() + "; mount keys: policy, trace, stats, read_only, host_log, "
                                   "verify_reads, memberN, reserve_zones, readahead, metrics, migration, migration_rate, "
                                   "cache, cache_budget, cache_room, cache_keep, blocks, block_retention");
  }
  if (!s.ok()) return s;
  if (!device_keys.empty()) opts.device_params += (opts.device_params.empty() ? "" : "&") + device_keys;
  if (uri.scheme == "mem") {
    s = CreateMemFilesystemIfMissing(base);
    if (!s.ok()) return s;
  }
  std::unique_ptr<Filesystem> mounted;
  s = Filesystem::Mount(base, opts, &mounted);
  if (!s.ok()) return s;
  for (const RecoveredFile& f : mounted->Stats().recovered_files) {
    std::fprintf(stderr, "hintfs: %s: %s\n", base.c_str(), DescribeRecoveredFile(f).c_str());
  }
  std::shared_ptr<AllocationPolicy> policy = opts.policy ? opts.policy : *made;
  std::shared_ptr<Filesystem> mounted_fs(mounted.release());
  std::unique_ptr<MountServices> started;
  s = MountServices::Start(mounted_fs, bus, policy, services_wanted, &started);
  if (s.ok()) s = started->KeepBlockIndexes(keeper);
  if (!s.ok()) return s;
  // Users get the caching wrapper when the cache runs; the services stop
  // (migration finishes, statistics are saved) before the filesystem goes.
  std::shared_ptr<MountServices> services(started.release());
  std::shared_ptr<Filesystem> target = services->filesystem();
  mounted_fs.reset();
  std::shared_ptr<MetricsServer> metrics;
  if (!metrics_address.empty()) {
    std::unique_ptr<MetricsServer> server;
    Filesystem* raw = target.get();  // the server stops before target goes
    s = MetricsServer::Start(metrics_address, [raw] { return MountStatsJson(raw, nlohmann::json::object()); },
                             &server);
    if (!s.ok()) return s;
    std::fprintf(stderr, "hintfs: %s: metrics at http://%s:%d/metrics\n", base.c_str(), server->host().c_str(),
                 server->port());
    metrics = std::move(server);
  }
  std::shared_ptr<Filesystem> shared(target.get(), [services, target, stats_path, metrics](Filesystem*) mutable {
    metrics.reset();
    services->Stop();
    if (!stats_path.empty()) WriteStatsFile(target.get(), stats_path);
    services.reset();
    target.reset();  // the last reference: unmounts
  });
  Mounts()[base] = MountEntry{shared, bus, query};
  *fs = shared;
  if (bus_out != nullptr) *bus_out = bus;
  return Status::OK();
}

void ForEachMount(
    const std::function<void(const std::string& device, Filesystem* fs, HintBus* bus)>& fn) {
  struct Live {
    std::string device;
    std::shared_ptr<Filesystem> fs;
    std::shared_ptr<HintBus> bus;
  };
  std::vector<Live> live;
  {
    std::lock_guard<std::mutex> l(g_mu);
    for (auto& [device, entry] : Mounts()) {
      if (auto fs = entry.fs.lock()) live.push_back({device, fs, entry.bus});
    }
  }
  for (auto& m : live) fn(m.device, m.fs.get(), m.bus.get());
}

}  // namespace hintfs
