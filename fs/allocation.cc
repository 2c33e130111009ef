#include "fs/allocation.h"

namespace hintfs {

bool IsCacheFile(const std::string& path) {
  size_t n = sizeof(kCacheDirectory) - 1;
  return path.size() > n + 1 && path.compare(0, n, kCacheDirectory) == 0 && path[n] == '/';
}

void FastFirstPolicy::ChooseDevices(const AllocationRequest&, const std::vector<DeviceSpace>& devices,
                                    std::vector<uint32_t>* order) {
  order->clear();
  for (Tier tier : {Tier::kFast, Tier::kSlow}) {
    for (const DeviceSpace& d : devices) {
      if (d.tier == tier) order->push_back(d.index);
    }
  }
}

}  // namespace hintfs
