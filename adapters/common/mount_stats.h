// A mount's statistics as JSON and in the Prometheus text format: what the
// FUSE mount's read-only .hintfs directory serves (stats.json, metrics) and
// what a mount whose spec has stats=HOSTPATH writes when it unmounts.
#ifndef HINTFS_ADAPTERS_COMMON_MOUNT_STATS_H_
#define HINTFS_ADAPTERS_COMMON_MOUNT_STATS_H_

#include <string>

#include <nlohmann/json.hpp>

#include "fs/filesystem.h"

namespace hintfs {

// Filesystem, devices, policy, migration, bytes per LSM level and tier, and
// cache; extra is added under "mount" (the FUSE layer's own figures).
nlohmann::json MountStatsJson(Filesystem* fs, const nlohmann::json& extra);

// The same figures as Prometheus metrics.
std::string MountMetrics(const nlohmann::json& stats);

// Writes MountStatsJson(fs, {}) to the host file path (replacing it); a
// failure is reported on stderr, since it comes at unmount with nobody to ask.
void WriteStatsFile(Filesystem* fs, const std::string& path);

}  // namespace hintfs

#endif  // HINTFS_ADAPTERS_COMMON_MOUNT_STATS_H_
