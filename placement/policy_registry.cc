#include "placement/policy_registry.h"

#include <functional>
#include <map>

namespace hintfs {

namespace {

using Factory = std::function<std::shared_ptr<AllocationPolicy>()>;

const std::map<std::string, Factory>& Registry() {
  static const auto* registry = new std::map<std::string, Factory>{
      {"fast-first", [] { return std::make_shared<FastFirstPolicy>(); }},
  };
  return *registry;
}

}  // namespace

std::vector<std::string> AllocationPolicyNames() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : Registry()) names.push_back(name);
  return names;
}

Status NewAllocationPolicy(const std::string& name, std::shared_ptr<AllocationPolicy>* policy) {
  auto it = Registry().find(name);
  if (it == Registry().end()) {
    std::string known;
    for (const auto& n : AllocationPolicyNames()) known += (known.empty() ? "" : ", ") + n;
    return Status::NotFound("no placement policy '" + name + "' (known: " + known + ")");
  }
  *policy = it->second();
  return Status::OK();
}

}  // namespace hintfs
