#include "adapters/common/mount_registry.h"

#include <cstdlib>
#include <map>
#include <mutex>

#include "fs/emulated_device.h"
#include "fs/zoned_device.h"
#include "placement/policy_registry.h"

namespace hintfs {

namespace {

std::mutex g_mu;
std::map<std::string, std::weak_ptr<Filesystem>>& Mounts() {
  static auto* mounts = new std::map<std::string, std::weak_ptr<Filesystem>>();
  return *mounts;
}

std::string EnvOr(const char* name, const char* def) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : def;
}

// A mem: spec that names no device gets a fresh filesystem.
Status CreateMemFilesystemIfMissing(const std::string& spec) {
  std::string name = spec.substr(4);
  std::unique_ptr<ZonedDevice> probe;
  if (OpenZonedDevice(spec, /*create=*/false, &probe).ok()) return Status::OK();
  MkfsOptions opts;
  opts.devices = {
      {Tier::kFast, spec + "?" + EnvOr("HINTFS_MEM_FAST", "zone_size=64MiB&zones=64")},
      {Tier::kSlow, spec + ".slow?" + EnvOr("HINTFS_MEM_SLOW", "zone_size=256MiB&zones=64")}};
  return Filesystem::Mkfs(opts);
}

}  // namespace

Status AcquireMount(const std::string& spec, std::shared_ptr<Filesystem>* fs) {
  std::lock_guard<std::mutex> l(g_mu);
  auto it = Mounts().find(spec);
  if (it != Mounts().end()) {
    *fs = it->second.lock();
    if (*fs) return Status::OK();
  }
  if (spec.find('?') != std::string::npos) {
    return Status::InvalidArgument("hintfs mount spec '" + spec +
                                   "' has options; set HINTFS_DEVICE_PARAMS instead");
  }
  if (spec.rfind("mem:", 0) == 0) {
    Status s = CreateMemFilesystemIfMissing(spec);
    if (!s.ok()) return s;
  }
  MountOptions opts;
  opts.policy_factory = NewAllocationPolicy;
  opts.device_params = EnvOr("HINTFS_DEVICE_PARAMS", "");
  std::unique_ptr<Filesystem> mounted;
  Status s = Filesystem::Mount(spec, opts, &mounted);
  if (!s.ok()) return s;
  std::shared_ptr<Filesystem> shared(mounted.release());
  Mounts()[spec] = shared;
  *fs = shared;
  return Status::OK();
}

void ForEachMount(const std::function<void(const std::string& spec, Filesystem* fs)>& fn) {
  std::vector<std::pair<std::string, std::shared_ptr<Filesystem>>> live;
  {
    std::lock_guard<std::mutex> l(g_mu);
    for (auto& [spec, weak] : Mounts()) {
      if (auto fs = weak.lock()) live.emplace_back(spec, fs);
    }
  }
  for (auto& [spec, fs] : live) fn(spec, fs.get());
}

}  // namespace hintfs
