// One mounted Filesystem per device URI, shared by every user in the process
// (RocksDB FileSystem objects, LevelDB Envs, the event listener). The mount
// lives while anybody holds it and is unmounted when the last holder lets go.
//
// A spec is the URI of any member device, with optional query options:
//   file:/var/lib/db/ssd.img?policy=fast-first&profile_scale=10
// "policy" picks the placement policy (recorded, so it stays chosen);
// "read_only=on" writes nothing to any member (writes fail with NotSupported;
// migration, the cache and block tiering do not run);
// "trace=HOSTPATH" records every hint and I/O event to a trace file
// (hints/trace.h); "stats=HOSTPATH" writes the mount's statistics there as
// JSON when it unmounts (mount_stats.h); "metrics=HOST:PORT" serves them
// over HTTP while mounted (metrics_server.h: /metrics, /stats.json; port 0
// picks one, said on stderr); "host_log=DIR" keeps the host log
// (fs/host_log.h) in DIR instead of /dev/shm, "host_log=off" writes
// unflushed journal batches to the device instead; "verify_reads=off" skips
// checking block checksums on reads (GC, migration and fsck still check);
// "memberN=URI" opens member N there instead of where mkfs recorded it (the
// URI without options); "reserve_zones=N" keeps N empty zones per device
// for writes that free space (default 1, fs/filesystem.h); "readahead=SIZE"
// caps the window a sequential reader's reads are read ahead in (default
// 2MiB, "off" or 0: none; fs/readahead.h); every other key is a device option applied to every member (profile_scale, sync,
// fault injection...). Environment variables add what a program's URI cannot:
//   HINTFS_DEVICE_PARAMS  device options for every member, e.g. "profile_scale=10"
//   HINTFS_MEM_FAST, HINTFS_MEM_SLOW
//                         geometry used when "mem:NAME" names no device yet:
//                         a fresh filesystem is made on mem:NAME (fast) and
//                         mem:NAME.slow (defaults: 64 zones of 64MiB, 64 zones
//                         of 256MiB; memory is used only as data is written)
#ifndef HINTFS_ADAPTERS_COMMON_MOUNT_REGISTRY_H_
#define HINTFS_ADAPTERS_COMMON_MOUNT_REGISTRY_H_

#include <functional>
#include <memory>
#include <string>

#include "fs/filesystem.h"
#include "hints/hint_bus.h"

namespace hintfs {

// Mounts spec (or shares its mount). bus, if given, receives the mount's hint
// bus: hints published there reach the mount's placement policy. Errors are
// Filesystem::Mount's and MountServices::Start's; InvalidArgument for a bad
// query key or value, or a spec this process has mounted with other options.
Status AcquireMount(const std::string& spec, std::shared_ptr<Filesystem>* fs,
                    std::shared_ptr<HintBus>* bus = nullptr);

// Calls fn for every filesystem mounted now (for hints that name only a path).
void ForEachMount(
    const std::function<void(const std::string& device, Filesystem* fs, HintBus* bus)>& fn);

}  // namespace hintfs

#endif  // HINTFS_ADAPTERS_COMMON_MOUNT_REGISTRY_H_
