// hintfs trace dump and hintfs replay.
#include <cstdio>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "adapters/cli/commands.h"
#include "adapters/cli/progress.h"
#include "adapters/common/mount_registry.h"
#include "fs/uri.h"
#include "hints/file_tag.h"
#include "hints/trace.h"
#include "hints/trace_apply.h"
#include "placement/replay.h"

namespace hintfs {
namespace cli {

using nlohmann::json;

namespace {

json FilesJson(const std::vector<HintFile>& files) {
  json arr = json::array();
  for (const HintFile& f : files) arr.push_back({{"path", f.path}, {"level", f.level}});
  return arr;
}

json EventJson(const TraceEvent& e) {
  json j{{"t_ns", e.time_ns}, {"type", TraceEventTypeName(e.type)}};
  switch (e.type) {
    case TraceEvent::Type::kHint: {
      const Hint& h = e.hint;
      j["kind"] = HintKindName(h.kind);
      if (h.job >= 0) j["job"] = h.job;
      if (!h.path.empty()) j["path"] = h.path;
      if (h.level >= 0) j["level"] = h.level;
      if (!h.reason.empty()) j["reason"] = h.reason;
      if (h.bytes) j["bytes"] = h.bytes;
      if (h.count) j["count"] = h.count;
      if (h.temperature != Temperature::kUnknown) j["temperature"] = TemperatureName(h.temperature);
      if (!h.inputs.empty()) j["inputs"] = FilesJson(h.inputs);
      if (!h.outputs.empty()) j["outputs"] = FilesJson(h.outputs);
      break;
    }
    case TraceEvent::Type::kCreate: j["path"] = e.path; j["role"] = FileClassName(static_cast<ZoneRole>(e.role)); break;
    case TraceEvent::Type::kLifetime: j["path"] = e.path; j["lifetime"] = e.lifetime; break;
    case TraceEvent::Type::kAppend: j["path"] = e.path; j["bytes"] = e.bytes; break;
    case TraceEvent::Type::kDelete: j["path"] = e.path; break;
    case TraceEvent::Type::kRead: j["path"] = e.path; j["offset"] = e.offset; j["bytes"] = e.bytes; break;
  }
  return j;
}

}  // namespace

int TraceDump(const std::string& path, bool as_json) {
  std::unique_ptr<TraceReader> reader;
  Status s = TraceReader::Open(path, &reader);
  if (!s.ok()) return Fail("trace dump", s);
  for (;;) {
    TraceEvent e;
    bool eof = false;
    s = reader->Next(&e, &eof);
    if (!s.ok()) return Fail("trace dump " + path, s);
    if (eof) break;
    json j = EventJson(e);
    if (as_json) {
      std::cout << j.dump() << "\n";
    } else {
      std::string line = fmt::format("{:>14.6f} {:<9}", e.time_ns / 1e9, TraceEventTypeName(e.type));
      for (auto& [k, v] : j.items()) {
        if (k != "t_ns" && k != "type") line += " " + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
      }
      std::cout << line << "\n";
    }
  }
  return 0;
}

int TraceApply(const std::string& path, const std::string& uri, const std::string& oracle_unit,
               const std::vector<int>& oracle_levels, bool as_json) {
  TraceApplyOptions options;
  options.oracle_levels.insert(oracle_levels.begin(), oracle_levels.end());
  if (!oracle_levels.empty() && oracle_unit.empty()) {
    std::fprintf(stderr, "hintfs: trace apply: --oracle-levels needs --oracle-lifetimes\n");
    return 2;
  }
  if (!oracle_unit.empty()) {
    Status s = ParseSize(oracle_unit, &options.oracle_lifetime_unit);
    if (s.ok() && options.oracle_lifetime_unit == 0) s = Status::InvalidArgument("must be above 0");
    if (!s.ok()) {
      std::fprintf(stderr, "hintfs: trace apply: --oracle-lifetimes: %s\n", s.message().c_str());
      return 2;
    }
  }
  std::unique_ptr<TraceReader> reader;
  Status s = TraceReader::Open(path, &reader);
  if (!s.ok()) return Fail("trace apply", s);
  std::shared_ptr<Filesystem> fs;
  std::shared_ptr<HintBus> bus;
  s = AcquireMount(uri, &fs, &bus);
  if (!s.ok()) return Fail("trace apply: mount " + uri, s);
  TraceApplyResult r;
  ProgressBar bar("apply", true);
  s = ApplyTrace(reader.get(), fs.get(), bus.get(), options, &r, [&](uint64_t d, uint64_t t) { bar.Update(d, t); });
  bar.Finish();
  const FsStats st = fs->Stats();
  bus.reset();
  fs.reset();  // unmounts: the stats file, if asked for, is written now
  if (!s.ok()) return Fail("trace apply " + path, s);
  uint64_t written = 0;
  for (uint64_t b : st.bytes_written) written += b;
  if (as_json) {
    json j{{"events", r.events}, {"files_created", r.files_created}, {"files_deleted", r.files_deleted},
           {"bytes_appended", r.bytes_appended}, {"hints_published", r.hints_published},
           {"passed_over", r.passed_over}, {"bytes_written", written}, {"gc_bytes_moved", st.gc_bytes_moved},
           {"gc_zones_freed", st.gc_zones_freed}, {"zone_resets", st.zone_resets}};
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::printf("%llu events: %llu files created, %llu deleted, %s appended, %llu hints (%llu events of files "
              "made before the trace passed over)\n",
              static_cast<unsigned long long>(r.events), static_cast<unsigned long long>(r.files_created),
              static_cast<unsigned long long>(r.files_deleted), HumanSize(r.bytes_appended).c_str(),
              static_cast<unsigned long long>(r.hints_published), static_cast<unsigned long long>(r.passed_over));
  std::printf("written %s, GC relocated %s (%.3f per byte written), %llu zones freed by GC, %llu resets\n",
              HumanSize(written).c_str(), HumanSize(st.gc_bytes_moved).c_str(),
              written ? static_cast<double>(st.gc_bytes_moved) / static_cast<double>(written) : 0.0,
              static_cast<unsigned long long>(st.gc_zones_freed), static_cast<unsigned long long>(st.zone_resets));
  return 0;
}

int Replay(const std::string& path, const ReplayArgs& args) {
  ReplayOptions o;
  o.policy = args.policy;
  o.fast_profile = args.fast_profile;
  o.slow_profile = args.slow_profile;
  o.ssd_zones = args.ssd_zones;
  o.hdd_zones = args.hdd_zones;
  Status s = ParseSize(args.zone_size, &o.zone_capacity);
  if (!s.ok()) {
    std::fprintf(stderr, "hintfs: replay: --zone-size: %s\n", s.message().c_str());
    return 2;
  }
  std::unique_ptr<TraceReader> reader;
  s = TraceReader::Open(path, &reader);
  if (!s.ok()) return Fail("replay", s);
  ReplayResult r;
  ProgressBar bar("replay", true);
  s = ReplayTrace(reader.get(), o, &r, [&](uint64_t d, uint64_t t) { bar.Update(d, t); });
  bar.Finish();
  if (!s.ok()) return Fail("replay " + path, s);
  if (args.json) {
    std::cout << json::parse(r.ToJson()).dump(2) << "\n";
    return 0;
  }
  std::printf("policy %s, %u SSD zones and %u HDD zones of %s, %llu events\n", o.policy.c_str(), o.ssd_zones,
              o.hdd_zones, FormatSize(o.zone_capacity).c_str(), static_cast<unsigned long long>(r.events));
  std::printf("%-6s %12s %12s %8s\n", "level", "fast", "slow", "fast %");
  for (const auto& [level, b] : r.per_level) {
    uint64_t total = b.fast + b.slow;
    std::printf("%-6s %12s %12s %7.1f%%\n", level.c_str(), HumanSize(b.fast).c_str(), HumanSize(b.slow).c_str(),
                total ? 100.0 * b.fast / total : 0.0);
  }
  std::printf("SSD utilization %.1f%% (max %.1f%%), modelled device time %.2f s (fast %.2f s, slow %.2f s)\n",
              100 * r.ssd_utilization, 100 * r.ssd_utilization_max, r.modeled_seconds, r.fast_seconds,
              r.slow_seconds);
  return 0;
}

}  // namespace cli
}  // namespace hintfs
