// What runs alongside a mounted filesystem, as its placement policy and its
// spec ask: HHZS migration (placement/migrator.h), the SSD block cache
// (cache/block_cache.h) with the file-level caching wrapper
// (cache/caching_filesystem.h), and the recording of table levels in file
// tags and of the block indexes of sealed tables (hints/block_index_keeper.h).
// The mount registry starts them for every mount and stops them
// before the filesystem goes. Migration runs under any policy that tiers
// (placement/tiering.h: hhzs, bN, all-fast, all-slow) when its options or
// the spec turn it on; the cache under any policy.
//
// Spec query keys (they override the policy's recorded options for this
// mount):
//   migration=on|off        migration_rate=SIZE (per second)
//   cache=off|all|cbf|expsmooth
//   cache_budget=SIZE       fast bytes for the cache beyond the policy's WAL
//                           budget (hhzs: 256 MiB shared with the WAL)
//   cache_keep=on|off       keep the cache's blocks across clean unmounts
//                           (on by default; off: it starts empty each mount)
//   blocks=SIZE             fast bytes for block tiering (placement/
//                           block_tiering.h): hot blocks of tables moved up
//                           at the migration rate; off (0) by default
//   block_retention=on|off  block tiering also moves up a new table's hot
//                           blocks when it is sealed (on by default)
#ifndef HINTFS_ADAPTERS_COMMON_MOUNT_SERVICES_H_
#define HINTFS_ADAPTERS_COMMON_MOUNT_SERVICES_H_

#include <memory>
#include <optional>
#include <string>

#include "cache/caching_filesystem.h"
#include "fs/filesystem.h"
#include "fs/uri.h"
#include "hints/block_index_keeper.h"
#include "hints/hint_bus.h"
#include "placement/block_tiering.h"
#include "placement/migrator.h"

namespace hintfs {

struct ServiceOverrides {
  std::optional<bool> migration;
  std::optional<uint64_t> migration_rate;
  std::optional<std::string> cache;
  std::optional<uint64_t> cache_budget;
  std::optional<std::string> cache_room;  // budget, free or auto (TieringServices::cache_room)
  std::optional<uint64_t> blocks;  // fast bytes for block tiering (0: off)
  std::optional<bool> block_retention;
  std::optional<bool> cache_keep;
};

// Takes the service keys out of uri's query (the rest are device options).
Status TakeServiceOverrides(DeviceUri* uri, ServiceOverrides* overrides);

// Records the level a table was written at, from the hints (the MANIFEST's
// for stores that send none), in the file's hints unless a listener already
// did, so `hintfs ls -l` shows levels for any store; a background thread
// does it, since hints may arrive inside filesystem calls.
class LevelRecorder;
class LifetimePolicy;

class MountServices {
 public:
  // Starts what policy and overrides ask for on the mounted base.
  static Status Start(std::shared_ptr<Filesystem> base, std::shared_ptr<HintBus> bus,
                      std::shared_ptr<AllocationPolicy> policy, const ServiceOverrides& overrides,
                      std::unique_ptr<MountServices>* services);
  ~MountServices();  // Stop()

  // The filesystem users get: the caching wrapper when the cache runs, else base.
  std::shared_ptr<Filesystem> filesystem() const;
  CachingFilesystem* caching() const { return caching_.get(); }
  Migrator* migrator() const { return migrator_.get(); }
  // Keeps the block indexes of the base's tables with keeper (the mount's
  // I/O observer) until Stop. Errors are BlockIndexKeeper::Attach's.
  Status KeepBlockIndexes(std::shared_ptr<BlockIndexKeeper> keeper);
  BlockIndexKeeper* block_indexes() const { return block_indexes_.get(); }
  BlockTiering* block_tiering() const { return block_tiering_.get(); }

  // Stops migration, saves statistics, closes the cache. Idempotent.
  void Stop();

 private:
  std::shared_ptr<Filesystem> base_;
  std::shared_ptr<AllocationPolicy> policy_;  // the migrator plans against it
  bool stopped_ = false;  // Stop ran
  std::shared_ptr<Migrator> migrator_;
  std::shared_ptr<CachingFilesystem> caching_;
  std::shared_ptr<LevelRecorder> recorder_;
  std::shared_ptr<BlockIndexKeeper> block_indexes_;
  std::shared_ptr<BlockTiering> block_tiering_;  // the keeper's listeners hold it too
  LifetimePolicy* lifetime_ = nullptr;  // the policy's, when it has lifetime classes (saves its model)
  BlockTieringOptions block_options_;  // budget 0: off
};

}  // namespace hintfs

#endif  // HINTFS_ADAPTERS_COMMON_MOUNT_SERVICES_H_
