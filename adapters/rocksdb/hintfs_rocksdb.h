// hintfs for RocksDB: a rocksdb::FileSystem over a mounted hintfs, and an
// EventListener that records flush and compaction outputs' levels in the
// files' hints. libhintfs_rocksdb.so registers both with RocksDB's object
// registry when it is loaded, so unmodified programs find them by name:
//
//   FileSystem::CreateFromString(config, "hintfs://file:/var/lib/db/ssd.img", &fs)
//   LD_PRELOAD=libhintfs_rocksdb.so db_bench --fs_uri=hintfs://file:/tmp/x/ssd.img
//   listeners={HintfsEventListener} in an OPTIONS file
//   SecondaryCache::CreateFromString(config, "hintfs://file:/var/lib/db/ssd.img", &sc)
//   db_bench --secondary_cache_uri=hintfs://file:/tmp/x/ssd.img
//
// The part after "hintfs://" is a mount spec (adapters/common/mount_registry.h).
// Paths RocksDB uses are paths inside hintfs.
#ifndef HINTFS_ADAPTERS_ROCKSDB_HINTFS_ROCKSDB_H_
#define HINTFS_ADAPTERS_ROCKSDB_HINTFS_ROCKSDB_H_

#include <memory>
#include <string>

#include <rocksdb/file_system.h>
#include <rocksdb/listener.h>
#include <rocksdb/secondary_cache.h>
#include <rocksdb/utilities/object_registry.h>

namespace hintfs {

constexpr char kRocksDbScheme[] = "hintfs://";
constexpr char kRocksDbListenerName[] = "HintfsEventListener";

// Mounts (or shares the mount of) spec and returns a FileSystem over it;
// AcquireMount's errors as IOStatus (InvalidArgument, IOError, Corruption).
rocksdb::IOStatus NewHintRocksFileSystem(const std::string& spec,
                                         std::shared_ptr<rocksdb::FileSystem>* fs);

// A listener that publishes flush, compaction and table-file hints on the bus
// of the mount holding the DB, and records each table's level, creating job
// and reason in its file hints.
std::shared_ptr<rocksdb::EventListener> NewHintRocksListener();
std::unique_ptr<rocksdb::EventListener> MakeHintRocksListener();

// A secondary cache for RocksDB's block cache over the SSD block cache of
// the mount of spec (cache/block_cache.h): blocks RocksDB evicts from its
// block cache are offered to it (the mount's admission policy decides) and
// blocks it misses are looked up there. These are HHZS's cache hints: while
// one exists, the mount stops caching at the file level so blocks are not
// held twice. The mount must run the cache (hhzs, or ?cache=NAME):
// InvalidArgument otherwise.
rocksdb::Status NewHintSecondaryCache(const std::string& spec, std::shared_ptr<rocksdb::SecondaryCache>* cache);

// Registers the "hintfs://" FileSystem, SecondaryCache and the listener with
// ObjectLibrary::Default(). Runs when the library loads; idempotent. A program
// that links the library but uses none of its symbols may not load it (the
// linker drops unused libraries): such a program calls this first.
void RegisterHintfsWithRocksDb();

// The same factories, added to library; returns how many. What RocksDB's
// object registry calls in a RocksDB built with hintfs inside
// (ROCKSDB_PLUGINS=hintfs, rocksdb-plugin/hintfs/), through the C entry
// point below.
int AddHintfsFactories(rocksdb::ObjectLibrary& library);

}  // namespace hintfs

// hintfs_FUNC of the ROCKSDB_PLUGINS build: RocksDB declares and calls it
// with this signature.
extern "C" int hintfs_register_rocksdb(rocksdb::ObjectLibrary& library, const std::string& arg);

#endif  // HINTFS_ADAPTERS_ROCKSDB_HINTFS_ROCKSDB_H_
