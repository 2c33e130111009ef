// hintfs top: a live view of a mount's statistics, read from its metrics
// endpoint (adapters/common/metrics_server.h) once an interval.
#include <httplib.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "adapters/cli/commands.h"

namespace hintfs {
namespace cli {

namespace {

using nlohmann::json;

std::string Mib(double bytes) { return fmt::format("{:.1f} MiB", bytes / 1048576.0); }

// now[group][key] as a number; 0 where the object has none (an endpoint of
// another version), never a failure.
double Counter(const json& now, const char* group, const char* key) {
  const json g = now.value(group, json::object());
  return g.is_object() && g.contains(key) && g[key].is_number() ? g[key].get<double>() : 0.0;
}

// Per second between two counters, "-" on the first frame.
std::string Rate(const json& now, const json* before, const char* group, const char* key, double seconds) {
  if (before == nullptr || seconds <= 0) return "-";
  return Mib((Counter(now, group, key) - Counter(*before, group, key)) / seconds) + "/s";
}

// One screen of figures.
std::string Frame(const std::string& address, const json& now, const json* before, double seconds) {
  std::string out = fmt::format("hintfs top  {}  policy {}  {} files\n\n", address, now.value("policy", "?"),
                                now.value("files", 0ull));
  out += fmt::format("{:<5} {:>14} {:>14} {:>12} {:>12} {:>12}\n", "tier", "read", "written", "live", "free",
                     "garbage");
  for (const char* tier : {"fast", "slow"}) {
    uint64_t live = 0, free = 0, garbage = 0;
    for (const json& d : now.value("devices", json::array())) {
      if (d.value("tier", "") != tier) continue;
      live += d.value("live_bytes", 0ull);
      free += d.value("free_bytes", 0ull);
      garbage += d.value("garbage_bytes", 0ull);
    }
    out += fmt::format("{:<5} {:>14} {:>14} {:>12} {:>12} {:>12}\n", tier,
                       Rate(now, before, "bytes_read", tier, seconds), Rate(now, before, "bytes_written", tier, seconds),
                       Mib(live), Mib(free), Mib(garbage));
  }
  out += fmt::format("\n{:<6} {:>6} {:>12} {:>12} {:>7}\n", "level", "files", "fast", "slow", "fast %");
  const json levels = now.value("levels", json::object());  // items() needs it to outlive the loop
  for (const auto& [level, row] : levels.items()) {
    double fast = row.value("fast_bytes", 0.0), slow = row.value("slow_bytes", 0.0);
    out += fmt::format("{:<6} {:>6} {:>12} {:>12} {:>6.0f}%\n", level, row.value("files", 0ull), Mib(fast), Mib(slow),
                       fast + slow > 0 ? 100 * fast / (fast + slow) : 0.0);
  }
  out += fmt::format("\nmigration  to fast {}  to slow {}  (total {} / {})\n",
                     Rate(now, before, "migrated_bytes", "to_fast", seconds),
                     Rate(now, before, "migrated_bytes", "to_slow", seconds),
                     Mib(Counter(now, "migrated_bytes", "to_fast")), Mib(Counter(now, "migrated_bytes", "to_slow")));
  if (now.contains("cache") && now["cache"].is_object()) {
    const json& c = now["cache"];
    out += fmt::format("cache      {} hits of {} lookups ({:.1f}%), {} blocks admitted\n", c.value("hits", 0ull),
                       c.value("lookups", 0ull), 100 * c.value("hit_ratio", 0.0), c.value("admitted", 0ull));
  } else {
    out += "cache      off\n";
  }
  out += fmt::format("journal    {} commits, {} zone resets, GC moved {}\n", now.value("journal_commits", 0ull),
                     now.value("zone_resets", 0ull), Mib(now.value("gc_bytes_moved", 0.0)));
  return out;
}

}  // namespace

int Top(const std::string& address, double interval_seconds, uint32_t count) {
  httplib::Client client("http://" + address);
  client.set_connection_timeout(2);
  client.set_read_timeout(10);
  const bool terminal = isatty(STDOUT_FILENO) != 0;
  json before;
  auto before_time = std::chrono::steady_clock::now();
  for (uint32_t frame = 0; count == 0 || frame < count; frame++) {
    if (frame > 0) std::this_thread::sleep_for(std::chrono::duration<double>(interval_seconds));
    httplib::Result res = client.Get("/stats.json");
    if (!res || res->status != 200) {
      std::string why = res ? fmt::format("HTTP status {}", res->status) : httplib::to_string(res.error());
      return Fail("top", Status::IOError(fmt::format(
                             "no metrics at http://{}/stats.json ({}): mount with ?metrics={} in the URI", address,
                             why, address)));
    }
    json now = json::parse(res->body, nullptr, false);
    if (now.is_discarded() || !now.is_object()) {
      // Not damage of anything: another program answers there.
      return Fail("top", Status::NotFound("http://" + address + "/stats.json is not a hintfs statistics object"));
    }
    auto now_time = std::chrono::steady_clock::now();
    double seconds = std::chrono::duration<double>(now_time - before_time).count();
    std::string text;
    try {
      text = Frame(address, now, frame == 0 ? nullptr : &before, seconds);
    } catch (const json::exception& e) {  // a field of another type than ours
      return Fail("top", Status::NotFound("http://" + address + "/stats.json is not hintfs statistics: " + e.what()));
    }
    std::fputs(terminal ? ("\033[H\033[2J" + text).c_str() : (text + "\n").c_str(), stdout);
    std::fflush(stdout);
    before = std::move(now);
    before_time = now_time;
  }
  return 0;
}

}  // namespace cli
}  // namespace hintfs
