#include "fs/allocation.h"

namespace hintfs {

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
