// What the mount's read-only .hintfs directory serves: the filesystem's live
// statistics as JSON (stats.json) and in the Prometheus text format (metrics).
#ifndef HINTFS_ADAPTERS_FUSE_MOUNT_STATS_H_
#define HINTFS_ADAPTERS_FUSE_MOUNT_STATS_H_

#include <string>

#include <nlohmann/json.hpp>

#include "fs/filesystem.h"

namespace hintfs {

// Filesystem, devices, policy, migration and cache; extra is added under
// "mount" (the FUSE layer's own figures).
nlohmann::json MountStatsJson(Filesystem* fs, const nlohmann::json& extra);

// The same figures as Prometheus metrics.
std::string MountMetrics(const nlohmann::json& stats);

}  // namespace hintfs

#endif  // HINTFS_ADAPTERS_FUSE_MOUNT_STATS_H_
