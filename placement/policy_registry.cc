#include "placement/policy_registry.h"

#include <climits>
#include <functional>
#include <map>

#include "fs/uri.h"
#include "placement/hhzs_policy.h"
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
  std::vector<std::string> names{"hhzs"};
  for (const auto& [name, factory] : Registry()) names.push_back(name);
  return names;
}

namespace {

// "hhzs:table_bytes=4MiB,wal_budget=16MiB" -> config; options live in the name
// so that the recorded name restores them at the next mount.
Status NewHhzs(const std::string& name, const std::string& options, std::shared_ptr<HintBus> bus,
               std::shared_ptr<AllocationPolicy>* policy) {
  HhzsConfig config;
  size_t pos = 0;
  while (pos < options.size()) {
    size_t comma = options.find(',', pos);
    std::string item = options.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? options.size() : comma + 1;
    size_t eq = item.find('=');
    std::string key = item.substr(0, eq);
    uint64_t value = 0;
    Status s = eq == std::string::npos ? Status::InvalidArgument("no value")
                                       : ParseSize(item.substr(eq + 1), &value);
    if (!s.ok()) return Status::InvalidArgument("hhzs option '" + item + "': " + s.message());
    if (key == "table_bytes" && value > 0) config.table_bytes = value;
    else if (key == "wal_budget") config.wal_budget_bytes = value;
    else return Status::InvalidArgument("unknown hhzs option '" + item + "' (table_bytes, wal_budget)");
  }
  *policy = std::make_shared<HhzsPolicy>(name, std::move(bus), config);
  return Status::OK();
}

}  // namespace

Status NewAllocationPolicy(const std::string& name, std::shared_ptr<HintBus> bus,
                           std::shared_ptr<AllocationPolicy>* policy) {
  if (name == "hhzs" || name.rfind("hhzs:", 0) == 0) {
    return NewHhzs(name, name.size() > 5 ? name.substr(5) : "", std::move(bus), policy);
  }
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
