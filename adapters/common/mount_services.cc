#include "adapters/common/mount_services.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "hints/file_tag.h"
#include "placement/lifetime_policy.h"
#include "placement/tiering.h"

namespace hintfs {

class LevelRecorder {
 public:
  LevelRecorder(Filesystem* fs, std::shared_ptr<HintBus> bus) : fs_(fs), bus_(std::move(bus)) {
    subscription_ = bus_->Subscribe([this](const Hint& h) { OnHint(h); });
    thread_ = std::thread([this] { Run(); });
  }
  ~LevelRecorder() { Stop(); }

  void Stop() {
    {
      std::lock_guard<std::mutex> l(mu_);
      if (stopped_) return;
      stopped_ = true;
    }
    bus_->Unsubscribe(subscription_);
    cv_.notify_all();
    thread_.join();
  }

 private:
  void OnHint(const Hint& h) {
    bool table = h.kind == Hint::Kind::kTableFileCreation || h.kind == Hint::Kind::kCompactionOutput;
    if (!table || h.level < 0 || h.reason == "inferred") return;
    std::lock_guard<std::mutex> l(mu_);
    if (queue_.size() < 100000) queue_.push_back(h);
    cv_.notify_one();
  }

  void Run() {
    std::unique_lock<std::mutex> l(mu_);
    for (;;) {
      cv_.wait(l, [this] { return stopped_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopped, all recorded
      Hint h = std::move(queue_.front());
      queue_.pop_front();
      l.unlock();
      FileStat st;
      // The level a table was written at, as the listener records it: a
      // later move to another level (a trivial move) does not change it.
      FileTag tag;
      if (fs_->Stat(h.path, &st).ok() && DecodeFileTag(st.tag, &tag).ok() && tag.level < 0) {
        tag.level = h.level;
        if (tag.reason.empty()) tag.reason = h.reason;
        fs_->SetTag(h.path, EncodeFileTag(tag));
      }
      l.lock();
    }
  }

  Filesystem* fs_;
  std::shared_ptr<HintBus> bus_;
  uint64_t subscription_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Hint> queue_;
  bool stopped_ = false;
  std::thread thread_;
};

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
  auto on_off = [&](const char* key, std::optional<bool>* out) {
    if (!uri->Has(key)) return Status::OK();
    std::string v = uri->GetString(key, "");
    if (v != "on" && v != "off") return Status::InvalidArgument(std::string(key) + " is on or off, not '" + v + "'");
    *out = v == "on";
    uri->params.erase(key);
    return Status::OK();
  };
  Status s = on_off("migration", &o->migration);
  if (s.ok()) s = on_off("block_retention", &o->block_retention);
  if (s.ok()) s = on_off("cache_keep", &o->cache_keep);
  if (!s.ok()) return s;
  for (auto [key, out] : {std::pair{"cache", &o->cache}, std::pair{"cache_room", &o->cache_room}}) {
    if (!uri->Has(key)) continue;
    std::string v = uri->GetString(key, "");
    if (Status c = CheckCacheOption(key, v); !c.ok()) return c;
    *out = v;
    uri->params.erase(key);
  }
  s = size("migration_rate", &o->migration_rate);
  if (s.ok()) s = size("cache_budget", &o->cache_budget);
  if (s.ok()) s = size("blocks", &o->blocks);
  return s;
}

namespace {

// The policy's WAL budget on the fast tier of devices usage
// (ResolveWalBudget): the cache lives in what the WAL leaves of it.
uint64_t FastWalBudget(const std::vector<DeviceUsage>& usage, uint64_t configured) {
  if (configured != kWalBudgetFromDevice) return configured;
  uint64_t zone_capacity = 0, fast_bytes = 0;
  for (const DeviceUsage& u : usage) {
    if (u.tier != Tier::kFast) continue;
    zone_capacity = u.zone_capacity;
    fast_bytes += u.zone_capacity * u.data_zones;
  }
  return ResolveWalBudget(configured, zone_capacity, fast_bytes);
}

}  // namespace

Status MountServices::Start(std::shared_ptr<Filesystem> base, std::shared_ptr<HintBus> bus,
                            std::shared_ptr<AllocationPolicy> policy, const ServiceOverrides& o,
                            std::unique_ptr<MountServices>* out) {
  std::unique_ptr<MountServices> services(new MountServices());
  services->base_ = base;
  services->policy_ = policy;
  TieringSource* tiering = TieringOf(policy.get());
  TieringServices c = tiering != nullptr ? tiering->Services() : TieringServices();
  // The members as the services size themselves on them (none if unknown).
  std::vector<DeviceUsage> usage;
  if (!base->Usage(&usage).ok()) usage.clear();

  const double fast_read_us = TierReadLatency(usage, Tier::kFast);
  const double slow_read_us = TierReadLatency(usage, Tier::kSlow);
  const bool migration = o.migration.has_value()
                             ? *o.migration
                             : ResolveMigration(c.migration, c.migration_auto, o.blocks.value_or(0) > 0,
                                                fast_read_us, slow_read_us);
  // The cache: as the policy's options say (hhzs: where it pays), or the spec.
  // Block tiering's room: taken from the tables where a moved read saves much.
  const bool take_room_from_tables = BlocksTakeRoomFromTables(fast_read_us, slow_read_us);
  std::string admission =
      ResolveCacheAdmission(o.cache.value_or(c.cache), o.blocks.value_or(0) > 0 && take_room_from_tables);
  std::shared_ptr<BlockCache> cache;
  if (admission != "off") {
    BlockCacheOptions co;
    co.admission = admission;
    co.budget_bytes = FastWalBudget(usage, c.wal_budget_bytes) + o.cache_budget.value_or(c.cache_budget_bytes);
    co.borrow_free_zones = CacheBorrowsFreeZones(o.cache_room.value_or(c.cache_room), o.cache.value_or(c.cache));
    // Kept across clean unmounts: a store's restart finds its hot blocks.
    auto keys = std::make_shared<FileBlockKeys>(base.get());
    if (o.cache_keep.value_or(true)) co.keys = keys;
    std::unique_ptr<BlockCache> opened;
    Status s = BlockCache::Open(base.get(), co, &opened);
    if (!s.ok()) return s;
    cache.reset(opened.release());
    services->caching_ = std::make_shared<CachingFilesystem>(base, cache, keys);
  }
  // Migration: for policies that tier (it plans against their state), as
  // their options say (auto: ResolveMigration) unless the mount says.
  if (tiering != nullptr && migration) {
    MigratorOptions mo;
    mo.rate_bytes_per_second = o.migration_rate.value_or(c.migration_rate);
    mo.slow_read_iops = c.slow_read_iops;
    if (mo.slow_read_iops == 0) {  // from the slow devices' timing profiles
      for (const DeviceUsage& u : usage) {
        if (u.tier == Tier::kSlow) mo.slow_read_iops += u.random_read_iops;
      }
    }
    // Tables moved up take the zones a borrowing cache serves reads from.
    if (cache && cache->options().borrow_free_zones) {
      mo.borrowed_room = [cache] {
        BlockCacheStats st = cache->stats();
        return BorrowedRoomSample{st.hits, st.zones};
      };
    }
    services->migrator_ = std::make_shared<Migrator>(base.get(), bus, tiering, mo);
    services->migrator_->Start();
  }

  // A learned lifetime model is kept with the filesystem.
  if (LifetimePolicy* lifetime = LifetimePolicyOf(policy.get()); lifetime != nullptr) {
    lifetime->AttachStore(base.get());
    services->lifetime_ = lifetime;
  }
  services->recorder_ = std::make_shared<LevelRecorder>(base.get(), bus);
  services->block_options_.budget_bytes = o.blocks.value_or(0);
  services->block_options_.retention = o.block_retention.value_or(true);
  services->block_options_.rate_bytes_per_second = o.migration_rate.value_or(c.migration_rate);
  services->block_options_.take_room_from_tables = take_room_from_tables;
  *out = std::move(services);
  return Status::OK();
}

MountServices::~MountServices() { Stop(); }

std::shared_ptr<Filesystem> MountServices::filesystem() const {
  if (caching_) return caching_;
  return base_;
}

Status MountServices::KeepBlockIndexes(std::shared_ptr<BlockIndexKeeper> keeper) {
  if (block_options_.budget_bytes > 0) {
    // Moved blocks come out of the tables' share of the fast tier, never
    // out of the zones held for the WAL and the cache.
    block_options_.tiering = TieringOf(policy_.get());
    block_tiering_ = std::make_shared<BlockTiering>(base_.get(), block_options_);
    std::shared_ptr<BlockTiering> t = block_tiering_;
    keeper->SetBlockReadListener(
        [t](const std::string& path, const BlockIndex& index, size_t block, uint64_t bytes, uint64_t slow_bytes) {
          t->OnBlockRead(path, index, block, bytes, slow_bytes);
        },
        [t] { return t->WantsReads(); });
    keeper->SetIndexedListener([t](const std::string& path, std::shared_ptr<const BlockIndex> index) {
      t->OnTableIndexed(path, std::move(index));
    });
  }
  if (caching_) caching_->UseBlockIndexes(keeper);
  Status s = keeper->Attach(base_.get());
  if (!s.ok()) return s;
  block_indexes_ = std::move(keeper);
  if (block_tiering_) block_tiering_->Start();
  return Status::OK();
}

void MountServices::Stop() {
  // The mount's release and the destructor both stop: the statistics are
  // saved once, not journaled twice.
  if (stopped_) return;
  stopped_ = true;
  if (recorder_) recorder_->Stop();
  if (block_tiering_) {
    block_tiering_->Stop();
    base_->SetAttribute("block_tiering", block_tiering_->stats().ToJson());
  }
  if (block_indexes_) block_indexes_->Detach();
  if (migrator_) migrator_->Stop();
  if (lifetime_ != nullptr) lifetime_->DetachStore();
  if (caching_) caching_->cache()->Close();
  // The policy's view at the end of the run, for `hintfs info` (a mount of
  // its own would show only what it rebuilt from the files); a read-only
  // mount keeps none, a state past the attribute limit is left out.
  if (policy_) base_->SetAttribute("policy_state", base_->PolicyStateJson());
}

}  // namespace hintfs
