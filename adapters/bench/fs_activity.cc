#include "adapters/bench/fs_activity.h"

#include <filesystem>
#include <fstream>
#include <thread>

namespace hintfs {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string MountStatsFile(const std::string& host_dir) {
  std::error_code ec;
  for (std::filesystem::path dir = std::filesystem::absolute(host_dir, ec); !ec && !dir.empty();
       dir = dir.parent_path()) {
    std::filesystem::path stats = dir / ".hintfs" / "stats.json";
    if (std::filesystem::exists(stats, ec)) return stats.string();
    if (dir == dir.root_path()) break;
  }
  return "";
}

json ReadMountStats(const std::string& file) {
  std::ifstream in(file);
  return json::parse(in, nullptr, /*allow_exceptions=*/false);
}

namespace {

// Whether a policy's state (AllocationPolicy::StateJson) says migration is
// holding moves back; a state without the figure holds none.
bool MovesHeld(const json& state) {
  if (!state.is_object()) return false;
  auto it = state.find("up_moves_held_ms");
  return it != state.end() && it->is_number_unsigned() && it->get<uint64_t>() > 0;
}

}  // namespace

ActivitySource FilesystemActivity(Filesystem* fs, const std::string& host_dir) {
  if (fs != nullptr) {
    return [fs]() -> std::optional<FsActivity> {
      FsStats st = fs->Stats();
      FsActivity a;
      a.bytes = st.bytes_written[0] + st.bytes_written[1] + st.migrated_bytes[0] + st.migrated_bytes[1];
      a.moves_held = MovesHeld(json::parse(fs->PolicyStateJson(), nullptr, false));
      return a;
    };
  }
  const std::string stats = MountStatsFile(host_dir);
  if (stats.empty()) return [] { return std::optional<FsActivity>(); };
  return [stats]() -> std::optional<FsActivity> {
    json j = ReadMountStats(stats);
    if (j.is_discarded()) return std::nullopt;
    FsActivity a;
    for (const char* group : {"bytes_written", "migrated_bytes"}) {
      if (!j.contains(group)) return std::nullopt;
      for (const json& bytes : j[group]) a.bytes += bytes.is_number_unsigned() ? bytes.get<uint64_t>() : 0;
    }
    a.moves_held = j.contains("policy_state") && MovesHeld(j["policy_state"]);
    return a;
  };
}

double WaitForFilesystemQuiet(const ActivitySource& activity, double timeout, QuietOptions options) {
  auto t0 = Clock::now();
  std::optional<FsActivity> last = activity();
  if (!last) return 0;
  auto quiet_since = Clock::now();
  while (std::chrono::duration<double>(Clock::now() - t0).count() < timeout) {
    std::this_thread::sleep_for(options.poll);
    std::optional<FsActivity> now = activity();
    // An unreadable look is no news: the wait goes on.
    if (!now || now->bytes != last->bytes || now->moves_held) {
      if (now) last = now;
      quiet_since = Clock::now();
    } else if (Clock::now() - quiet_since >= options.quiet) {
      break;
    }
  }
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace hintfs
