#include "placement/policy_registry.h"

#include <climits>
#include <functional>
#include <map>

#include "placement/static_policies.h"

namespace hintfs {

namespace {

using Factory = std::function<std::shared_ptr<AllocationPolicy>(std::shared_ptr<HintBus>)>;

const std::map<std::string, Factory>& Registry() {
  static const auto* registry = new std::map<std::string, Factory>{
      {"fast-first", [](std::shared_ptr<HintBus>) { return std::make_shared<FastFirstPolicy>(); }},
      {"b1", [](std::shared_ptr<HintBus> b) { return std::make_shared<LevelThresholdPolicy>("b1", 1, b); }},
      {"b2", [](std::shared_ptr<HintBus> b) { return std::make_shared<LevelThresholdPolicy>("b2", 2, b); }},
      {"b3", [](std::shared_ptr<HintBus> b) { return std::make_shared<LevelThresholdPolicy>("b3", 3, b); }},
      {"b4", [](std::shared_ptr<HintBus> b) { return std::make_shared<LevelThresholdPolicy>("b4", 4, b); }},
      {"all-fast",
       [](std::shared_ptr<HintBus> b) { return std::make_shared<LevelThresholdPolicy>("all-fast", INT_MAX, b); }},
      {"all-slow",
       [](std::shared_ptr<HintBus> b) { return std::make_shared<LevelThresholdPolicy>("all-slow", -1, b); }},
  };
  return *registry;
}

}  // namespace

std::vector<std::string> AllocationPolicyNames() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : Registry()) names.push_back(name);
  return names;
}

Status NewAllocationPolicy(const std::string& name, std::shared_ptr<HintBus> bus,
                           std::shared_ptr<AllocationPolicy>* policy) {
  auto it = Registry().find(name);
  if (it == Registry().end()) {
    std::string known;
    for (const auto& n : AllocationPolicyNames()) known += (known.empty() ? "" : ", ") + n;
    return Status::NotFound("no placement policy '" + name + "' (known: " + known + ")");
  }
  *policy = it->second(std::move(bus));
  return Status::OK();
}

Status NewAllocationPolicy(const std::string& name, std::shared_ptr<AllocationPolicy>* policy) {
  return NewAllocationPolicy(name, std::make_shared<HintBus>(), policy);
}

}  // namespace hintfs
