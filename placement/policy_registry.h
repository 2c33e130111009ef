// Placement policies by name. mkfs records a policy name; mount asks this
// registry to make it (MountOptions::policy_factory). Later policies (hhzs,
// b1..b4, auto, all-fast, all-slow) register here.
#ifndef HINTFS_PLACEMENT_POLICY_REGISTRY_H_
#define HINTFS_PLACEMENT_POLICY_REGISTRY_H_

#include <memory>
#include <string>
#include <vector>

#include "fs/allocation.h"
#include "fs/status.h"

namespace hintfs {

// The names NewAllocationPolicy accepts, in a stable order.
std::vector<std::string> AllocationPolicyNames();

// Makes the policy called name; NotFound lists the known names.
Status NewAllocationPolicy(const std::string& name, std::shared_ptr<AllocationPolicy>* policy);

}  // namespace hintfs

#endif  // HINTFS_PLACEMENT_POLICY_REGISTRY_H_
