#include "adapters/common/mount_registry.h"

#include <cstdlib>
#include <map>
#include <mutex>

#include "fs/uri.h"
#include "fs/zoned_device.h"
#include "hints/level_inference.h"
#include "hints/manifest_watcher.h"
#include "hints/trace.h"
#include "placement/hhzs_policy.h"
#include "placement/migrator.h"
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

// Query keys that tune migration for this mount (they override the options
// recorded with the hhzs policy).
struct MigrationOverrides {
  bool set_enabled = false, enabled = true;
  bool set_rate = false;
  uint64_t rate = 0;
};

Status TakeMigrationOverrides(DeviceUri* uri, MigrationOverrides* o) {
  if (uri->Has("migration")) {
    std::string v = uri->GetString("migration", "");
    if (v != "on" && v != "off") return Status::InvalidArgument("migration is on or off, not '" + v + "'");
    o->set_enabled = true;
    o->enabled = v == "on";
    uri->params.erase("migration");
  }
  if (uri->Has("migration_rate")) {
    Status s = ParseSize(uri->GetString("migration_rate", ""), &o->rate);
    if (!s.ok()) return Status::InvalidArgument("migration_rate: " + s.message());
    o->set_rate = true;
    uri->params.erase("migration_rate");
  }
  return Status::OK();
}

// Starts HHZS migration if the mount's policy has it.
std::shared_ptr<Migrator> StartMigrator(Filesystem* fs, const std::shared_ptr<HintBus>& bus,
                                        const std::shared_ptr<AllocationPolicy>& policy,
                                        const MigrationOverrides& o) {
  auto* hhzs = dynamic_cast<HhzsPolicy*>(policy.get());
  if (hhzs == nullptr) return nullptr;
  const HhzsConfig& c = hhzs->config();
  if (!(o.set_enabled ? o.enabled : c.migration)) return nullptr;
  MigratorOptions mo;
  mo.rate_bytes_per_second = o.set_rate ? o.rate : c.migration_rate;
  mo.slow_read_iops = c.slow_read_iops;
  if (mo.slow_read_iops == 0) {  // from the slow devices' timing profiles
    std::vector<DeviceUsage> usage;
    if (fs->Usage(&usage).ok()) {
      for (const DeviceUsage& u : usage) {
        if (u.tier == Tier::kSlow) mo.slow_read_iops += u.random_read_iops;
      }
    }
  }
  auto migrator = std::make_shared<Migrator>(fs, bus, hhzs, mo);
  migrator->Start();
  return migrator;
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
    Status s = NewAllocationPolicy(name, bus, policy);
    if (s.ok()) *made = *policy;
    return s;
  };
  MigrationOverrides migration;
  s = TakeMigrationOverrides(&uri, &migration);
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
  // MANIFEST edits become hints for every mount: stores that send none
  // (LevelDB, anything on a FUSE mount) still tell placement their levels,
  // and a new table's level is guessed from the compactions running.
  opts.observer = std::make_shared<ManifestWatcher>(bus, std::make_shared<LevelInference>(bus, opts.observer));
  opts.device_params = EnvOr("HINTFS_DEVICE_PARAMS", "");
  for (const auto& [key, value] : uri.params) {
    opts.device_params += (opts.device_params.empty() ? "" : "&") + key + "=" + value;
  }
  if (uri.scheme == "mem") {
    s = CreateMemFilesystemIfMissing(base);
    if (!s.ok()) return s;
  }
  std::unique_ptr<Filesystem> mounted;
  s = Filesystem::Mount(base, opts, &mounted);
  if (!s.ok()) return s;
  std::shared_ptr<AllocationPolicy> policy = opts.policy ? opts.policy : *made;
  std::shared_ptr<Migrator> migrator = StartMigrator(mounted.get(), bus, policy, migration);
  // The migrator stops before the filesystem goes.
  std::shared_ptr<Filesystem> shared(mounted.release(), [migrator, policy](Filesystem* f) mutable {
    if (migrator) migrator->Stop();
    migrator.reset();
    delete f;
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
