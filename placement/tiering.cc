#include "placement/tiering.h"

#include <cstdlib>

#include "fs/uri.h"

namespace hintfs {

TieringSource* TieringOf(AllocationPolicy* policy) {
  // A capability query: policies that tier derive from both interfaces.
  return dynamic_cast<TieringSource*>(policy);
}

namespace {

Status Bad(const std::string& policy, const std::string& what) {
  return Status::InvalidArgument(policy + ": " + what);
}

}  // namespace

Status ParseTieringServices(const std::string& policy, const std::map<std::string, std::string>& options,
                            TieringServices* services) {
  auto size = [&](const char* key, uint64_t* value) {
    auto it = options.find(key);
    if (it == options.end()) return Status::OK();
    Status s = ParseSize(it->second, value);
    return s.ok() ? s : Bad(policy, std::string(key) + ": " + s.message());
  };
  Status s = size("migration_rate", &services->migration_rate);
  if (s.ok()) s = size("cache_budget", &services->cache_budget_bytes);
  if (!s.ok()) return s;
  if (auto it = options.find("migration"); it != options.end()) {
    if (it->second != "on" && it->second != "off") return Bad(policy, "migration is on or off, not '" + it->second + "'");
    services->migration = it->second == "on";
  }
  if (auto it = options.find("cache"); it != options.end()) {
    const std::string& c = it->second;
    if (c != "off" && c != "all" && c != "cbf" && c != "expsmooth") {
      return Bad(policy, "cache is off, all, cbf or expsmooth, not '" + c + "'");
    }
    services->cache = c;
  }
  if (auto it = options.find("slow_read_iops"); it != options.end()) {
    char* end = nullptr;
    services->slow_read_iops = std::strtod(it->second.c_str(), &end);
    if (end == it->second.c_str() || *end != '\0' || !(services->slow_read_iops >= 0)) {
      return Bad(policy, "slow_read_iops must be a non-negative number");
    }
  }
  return Status::OK();
}

}  // namespace hintfs
