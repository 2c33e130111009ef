#include "placement/policy_registry.h"

#include <climits>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include "fs/uri.h"
#include "placement/auto_policy.h"
#include "placement/hhzs_policy.h"
#include "placement/lifetime_policy.h"
#include "placement/static_policies.h"
#include "placement/temperature.h"
#include "placement/tiering.h"

namespace hintfs {

namespace {

// The static level-threshold policies by name: levels below the number go
// to the fast tier (-1: none, INT_MAX: all).
const std::map<std::string, int>& LevelThresholds() {
  static const auto* thresholds = new std::map<std::string, int>{
      {"b1", 1}, {"b2", 2}, {"b3", 3}, {"b4", 4}, {"all-fast", INT_MAX}, {"all-slow", -1},
  };
  return *thresholds;
}

}  // namespace

std::vector<std::string> AllocationPolicyNames() {
  std::vector<std::string> names{"auto", "fast-first", "hhzs", "temperature"};
  for (const auto& [name, threshold] : LevelThresholds()) names.push_back(name);
  return names;
}

namespace {

// The options of every policy that tiers (ParseTieringServices).
const std::set<std::string> kTieringOptions{"cache", "cache_budget", "cache_room", "migration", "migration_rate",
                                            "slow_read_iops"};

// "k=v,k=v" after the policy's name and a colon; options live in the name so
// that the recorded name restores them at the next mount.
Status ParseOptions(const std::string& options, const std::set<std::string>& known,
                    std::map<std::string, std::string>* out) {
  size_t pos = 0;
  while (pos < options.size()) {
    size_t comma = options.find(',', pos);
    std::string item = options.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? options.size() : comma + 1;
    size_t eq = item.find('=');
    if (eq == std::string::npos || known.count(item.substr(0, eq)) == 0) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      return Status::InvalidArgument("policy option '" + item + "' (known: " + list + ")");
    }
    (*out)[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return Status::OK();
}

Status SizeOption(const std::map<std::string, std::string>& opts, const std::string& key, uint64_t* value) {
  auto it = opts.find(key);
  if (it == opts.end()) return Status::OK();
  Status s = ParseSize(it->second, value);
  if (!s.ok()) return Status::InvalidArgument("policy option " + key + ": " + s.message());
  return Status::OK();
}

// opts[key], if given, as a number from min to max, into *value; what is
// wrong with it otherwise ("must be ..., not 'x'"), named after policy.
Status NumberOption(const std::string& policy, const std::map<std::string, std::string>& opts, const std::string& key,
                    double min, double max, const std::string& must_be, double* value) {
  auto it = opts.find(key);
  if (it == opts.end()) return Status::OK();
  char* end = nullptr;
  double v = std::strtod(it->second.c_str(), &end);
  if (end == it->second.c_str() || *end != '\0' || !(v >= min) || v > max) {
    return Status::InvalidArgument(policy + ": " + key + " must be " + must_be + ", not '" + it->second + "'");
  }
  *value = v;
  return Status::OK();
}

// The service options every tiering policy takes (TieringServices):
// migration (on, off or auto), migration_rate and cache_budget (sizes), cache (off,
// auto, all, cbf, expsmooth), cache_room (budget, free, auto), slow_read_iops
// (a number >= 0).
Status ParseTieringServices(const std::string& policy, const std::map<std::string, std::string>& opts,
                            TieringServices* services) {
  Status s = SizeOption(opts, "migration_rate", &services->migration_rate);
  if (s.ok()) s = SizeOption(opts, "cache_budget", &services->cache_budget_bytes);
  if (!s.ok()) return s;
  auto bad = [&](const std::string& what) { return Status::InvalidArgument(policy + ": " + what); };
  if (auto it = opts.find("migration"); it != opts.end()) {
    if (it->second != "on" && it->second != "off" && it->second != "auto") {
      return bad("migration is on, off or auto, not '" + it->second + "'");
    }
    services->migration = it->second != "off";
    services->migration_auto = it->second == "auto";
  }
  for (auto [key, out] : {std::pair{"cache", &services->cache}, std::pair{"cache_room", &services->cache_room}}) {
    auto it = opts.find(key);
    if (it == opts.end()) continue;
    if (Status c = CheckCacheOption(key, it->second); !c.ok()) return bad(c.message());
    *out = it->second;
  }
  return NumberOption(policy, opts, "slow_read_iops", 0, HUGE_VAL, "a non-negative number",
                      &services->slow_read_iops);
}

// opts[key], if given, as whole milliseconds, into *ns.
Status MillisecondsOption(const std::map<std::string, std::string>& opts, const std::string& key, uint64_t* ns) {
  auto it = opts.find(key);
  if (it == opts.end()) return Status::OK();
  uint64_t ms = 0;
  if (!ParseUint64(it->second, &ms) || ms > 1000ull * 1000 * 1000) {
    return Status::InvalidArgument("hhzs: " + key + " must be a whole number of milliseconds, not '" + it->second + "'");
  }
  *ns = ms * 1000000ull;
  return Status::OK();
}

// opts[key], if given, as one of two words: *flag is whether it is yes.
Status TwoWayOption(const std::map<std::string, std::string>& opts, const std::string& key, const std::string& yes,
                    const std::string& no, bool* flag) {
  auto it = opts.find(key);
  if (it == opts.end()) return Status::OK();
  if (it->second != yes && it->second != no) {
    return Status::InvalidArgument("hhzs: " + key + " is " + yes + " or " + no + ", not '" + it->second + "'");
  }
  *flag = it->second == yes;
  return Status::OK();
}

// opts["wal_peak"], if given: auto, on or off.
Status WalPeakOption(const std::map<std::string, std::string>& opts, HhzsConfig::WalPeak* peak) {
  auto it = opts.find("wal_peak");
  if (it == opts.end()) return Status::OK();
  static const std::map<std::string, HhzsConfig::WalPeak> kValues{
      {"auto", HhzsConfig::WalPeak::kAuto}, {"on", HhzsConfig::WalPeak::kHold}, {"off", HhzsConfig::WalPeak::kNone}};
  auto value = kValues.find(it->second);
  if (value == kValues.end()) {
    return Status::InvalidArgument("hhzs: wal_peak is auto, on or off, not '" + it->second + "'");
  }
  *peak = value->second;
  return Status::OK();
}

Status NewHhzs(const std::string& name, const std::string& options, std::shared_ptr<HintBus> bus,
               std::shared_ptr<AllocationPolicy>* policy) {
  std::map<std::string, std::string> opts;
  std::set<std::string> known = kTieringOptions;
  known.insert({"table_bytes", "wal_budget", "hold_ms", "replace_inputs", "up_wait_ms", "fill", "steady_room_ms",
               "swap_margin", "wal_window_ms", "level_hold_ms", "wal_peak"});
  Status s = ParseOptions(options, known, &opts);
  HhzsConfig config;
  if (s.ok()) s = ParseTieringServices("hhzs", opts, &config.services);
  if (s.ok()) s = SizeOption(opts, "table_bytes", &config.table_bytes);
  if (s.ok()) s = SizeOption(opts, "wal_budget", &config.services.wal_budget_bytes);
  if (s.ok() && opts.count("table_bytes") && config.table_bytes == 0) {
    s = Status::InvalidArgument("hhzs: table_bytes must be positive");
  }
  if (s.ok()) s = MillisecondsOption(opts, "hold_ms", &config.hold_ns);
  if (s.ok()) s = MillisecondsOption(opts, "up_wait_ms", &config.up_moves_wait_ns);
  if (s.ok()) s = TwoWayOption(opts, "replace_inputs", "on", "off", &config.replace_inputs);
  if (s.ok()) s = TwoWayOption(opts, "fill", "tiering", "upper", &config.fill_tiering_level);
  if (s.ok()) s = MillisecondsOption(opts, "steady_room_ms", &config.steady_room_ns);
  if (s.ok()) s = NumberOption("hhzs", opts, "swap_margin", 1, 1e6, "a number from 1 to 1e6", &config.swap_margin);
  if (s.ok()) s = MillisecondsOption(opts, "wal_window_ms", &config.wal_window_ns);
  if (s.ok()) s = MillisecondsOption(opts, "level_hold_ms", &config.level_hold_ns);
  if (s.ok()) s = WalPeakOption(opts, &config.wal_peak);
  if (!s.ok()) return s;
  *policy = std::make_shared<HhzsPolicy>(name, std::move(bus), config);
  return Status::OK();
}

Status NewLevelThreshold(const std::string& name, const std::string& base, const std::string& options,
                         std::shared_ptr<HintBus> bus, std::shared_ptr<AllocationPolicy>* policy) {
  std::map<std::string, std::string> opts;
  std::set<std::string> known = kTieringOptions;
  known.insert("table_bytes");
  Status s = ParseOptions(options, known, &opts);
  LevelThresholdConfig config;
  if (s.ok()) s = ParseTieringServices(base, opts, &config.services);
  if (s.ok()) s = SizeOption(opts, "table_bytes", &config.table_bytes);
  if (s.ok() && opts.count("table_bytes") && config.table_bytes == 0) {
    s = Status::InvalidArgument(base + ": table_bytes must be positive");
  }
  if (!s.ok()) return s;
  *policy = std::make_shared<LevelThresholdPolicy>(name, LevelThresholds().at(base), std::move(bus), config);
  return Status::OK();
}

Status NewAuto(const std::string& name, const std::string& options, std::shared_ptr<HintBus> bus,
               std::shared_ptr<AllocationPolicy>* policy) {
  std::map<std::string, std::string> opts;
  Status s = ParseOptions(options, {"wal_budget", "table_bytes", "period_ms", "fast_write_mib_s", "max_level"}, &opts);
  AutoConfig config;
  if (s.ok()) s = SizeOption(opts, "wal_budget", &config.wal_budget_bytes);
  if (s.ok()) s = SizeOption(opts, "table_bytes", &config.table_bytes);
  if (!s.ok()) return s;
  try {
    if (opts.count("period_ms")) config.period_ns = std::stoull(opts["period_ms"]) * 1000000;
    if (opts.count("fast_write_mib_s")) config.fast_write_mib_per_s = std::stod(opts["fast_write_mib_s"]);
    if (opts.count("max_level")) config.initial_max_level = std::stoi(opts["max_level"]);
  } catch (const std::exception&) {
    return Status::InvalidArgument("auto: malformed option in '" + options + "'");
  }
  if (config.period_ns == 0 || !(config.fast_write_mib_per_s > 0)) {
    return Status::InvalidArgument("auto: period_ms and fast_write_mib_s must be positive");
  }
  *policy = std::make_shared<AutoPolicy>(name, std::move(bus), config);
  return Status::OK();
}

// Takes lifetime=MODE (off, hint, learned; every policy accepts it) out of
// name's options: *rest is name without it.
Status TakeLifetimeOption(const std::string& name, std::string* rest, std::string* mode) {
  const size_t colon = name.find(':');
  *rest = name.substr(0, colon);
  *mode = "off";
  if (colon == std::string::npos) return Status::OK();
  std::string kept;
  for (size_t pos = colon + 1; pos <= name.size();) {
    size_t comma = name.find(',', pos);
    if (comma == std::string::npos) comma = name.size();
    const std::string item = name.substr(pos, comma - pos);
    pos = comma + 1;
    if (item.rfind("lifetime=", 0) == 0) {
      *mode = item.substr(9);
      if (*mode != "off" && *mode != "hint" && *mode != "learned") {
        return Status::InvalidArgument("policy option lifetime is off, hint or learned, not '" + *mode + "'");
      }
    } else {
      kept += (kept.empty() ? "" : ",") + item;
    }
  }
  if (!kept.empty()) *rest += ":" + kept;
  return Status::OK();
}

Status NewBasePolicy(const std::string& name, std::shared_ptr<HintBus> bus,
                     std::shared_ptr<AllocationPolicy>* policy) {
  if (name == "hhzs" || name.rfind("hhzs:", 0) == 0) {
    return NewHhzs(name, name.size() > 5 ? name.substr(5) : "", std::move(bus), policy);
  }
  if (name == "auto" || name.rfind("auto:", 0) == 0) {
    return NewAuto(name, name.size() > 5 ? name.substr(5) : "", std::move(bus), policy);
  }
  if (name == "fast-first") {
    *policy = std::make_shared<LsmFastFirstPolicy>();
    return Status::OK();
  }
  if (name == "temperature") {
    *policy = std::make_shared<TemperaturePolicy>(std::move(bus));
    return Status::OK();
  }
  const std::string base = name.substr(0, name.find(':'));
  if (LevelThresholds().count(base) != 0) {
    return NewLevelThreshold(name, base, name.size() > base.size() ? name.substr(base.size() + 1) : "",
                             std::move(bus), policy);
  }
  std::string known;
  for (const auto& n : AllocationPolicyNames()) known += (known.empty() ? "" : ", ") + n;
  return Status::NotFound("no placement policy '" + name + "' (known: " + known + ")");
}

}  // namespace

Status NewAllocationPolicy(const std::string& name, std::shared_ptr<HintBus> bus,
                           std::shared_ptr<AllocationPolicy>* policy) {
  std::string base, lifetime;
  Status s = TakeLifetimeOption(name, &base, &lifetime);
  if (s.ok()) s = NewBasePolicy(base, bus, policy);
  if (!s.ok() || lifetime == "off") return s;
  *policy = std::make_shared<LifetimePolicy>(name, *policy, std::move(bus),
                                             lifetime == "learned" ? LifetimeMode::kLearned : LifetimeMode::kHint);
  return Status::OK();
}

Status NewAllocationPolicy(const std::string& name, std::shared_ptr<AllocationPolicy>* policy) {
  return NewAllocationPolicy(name, std::make_shared<HintBus>(), policy);
}

}  // namespace hintfs
