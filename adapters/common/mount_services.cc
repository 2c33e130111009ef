#include "adapters/common/mount_services.h"

#include "placement/hhzs_policy.h"

namespace hintfs {

Status TakeServiceOverrides(DeviceUri* uri, ServiceOverrides* o) {
  auto size = [&](const char* key, std::optional<uint64_t>* out) {
    if (!uri->Has(key)) return Status::OK();
    uint64_t v = 0;
    Status s = ParseSize(uri->GetString(key, ""), &v);
    if (!s.ok()) return Status::InvalidArgument(std::string(key) + ": " + s.message());
    *out = v;
    uri->params.erase(key);
    return Status::OK();
  };
  if (uri->Has("migration")) {
    std::string v = uri->GetString("migration", "");
    if (v != "on" && v != "off") return Status::InvalidArgument("migration is on or off, not '" + v + "'");
    o->migration = v == "on";
    uri->params.erase("migration");
  }
  if (uri->Has("cache")) {
    std::string v = uri->GetString("cache", "");
    if (v != "off" && v != "all" && v != "cbf" && v != "expsmooth") {
      return Status::InvalidArgument("cache is off, all, cbf or expsmooth, not '" + v + "'");
    }
    o->cache = v;
    uri->params.erase("cache");
  }
  Status s = size("migration_rate", &o->migration_rate);
  if (s.ok()) s = size("cache_budget", &o->cache_budget);
  return s;
}

Status MountServices::Start(std::shared_ptr<Filesystem> base, std::shared_ptr<HintBus> bus,
                            std::shared_ptr<AllocationPolicy> policy, const ServiceOverrides& o,
                            std::unique_ptr<MountServices>* out) {
  std::unique_ptr<MountServices> services(new MountServices());
  services->base_ = base;
  services->policy_ = policy;
  auto* hhzs = dynamic_cast<HhzsPolicy*>(policy.get());
  HhzsConfig c = hhzs != nullptr ? hhzs->config() : HhzsConfig();

  // Migration: hhzs only (it plans against the tiering state).
  if (hhzs != nullptr && o.migration.value_or(c.migration)) {
    MigratorOptions mo;
    mo.rate_bytes_per_second = o.migration_rate.value_or(c.migration_rate);
    mo.slow_read_iops = c.slow_read_iops;
    if (mo.slow_read_iops == 0) {  // from the slow devices' timing profiles
      std::vector<DeviceUsage> usage;
      if (base->Usage(&usage).ok()) {
        for (const DeviceUsage& u : usage) {
          if (u.tier == Tier::kSlow) mo.slow_read_iops += u.random_read_iops;
        }
      }
    }
    services->migrator_ = std::make_shared<Migrator>(base.get(), bus, hhzs, mo);
    services->migrator_->Start();
  }

  // The cache: on by default under hhzs, on request under other policies.
  std::string admission = o.cache.value_or(hhzs != nullptr ? c.cache : "off");
  if (admission != "off") {
    BlockCacheOptions co;
    co.admission = admission;
    co.budget_bytes = hhzs != nullptr ? c.wal_budget_bytes + o.cache_budget.value_or(c.cache_budget_bytes)
                                      : o.cache_budget.value_or(0);
    std::unique_ptr<BlockCache> cache;
    Status s = BlockCache::Open(base.get(), co, &cache);
    if (!s.ok()) return s;
    services->caching_ = std::make_shared<CachingFilesystem>(base, std::shared_ptr<BlockCache>(cache.release()));
  }
  *out = std::move(services);
  return Status::OK();
}

MountServices::~MountServices() { Stop(); }

std::shared_ptr<Filesystem> MountServices::filesystem() const {
  if (caching_) return caching_;
  return base_;
}

void MountServices::Stop() {
  if (migrator_) migrator_->Stop();
  if (caching_) caching_->cache()->Close();
}

}  // namespace hintfs
