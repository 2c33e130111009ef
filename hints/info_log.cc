#include "hints/info_log.h"

#include <cstdio>

namespace hintfs {

namespace {

// "a@L + b@M files" at s; false if s does not start so.
bool ParseInputs(const std::string& s, InfoLogEvent* e) {
  unsigned a = 0, b = 0;
  int l = -1, m = -1, n = 0;
  if (std::sscanf(s.c_str(), "%u@%d + %u@%d files%n", &a, &l, &b, &m, &n) != 4 || n == 0) return false;
  if (l < 0 || m < l || m > 64) return false;
  e->input_tables = a, e->input_level = l, e->lower_tables = b, e->lower_level = m;
  // RocksDB names the output level ("files to L1"); LevelDB's is the lower one.
  int to = -1;
  e->output_level = std::sscanf(s.c_str() + n, " to L%d", &to) == 1 && to >= l && to <= 64 ? to : m;
  return true;
}

}  // namespace

InfoLogEvent ParseInfoLogLine(std::string_view line) {
  InfoLogEvent e;
  auto after = [&](std::string_view word) -> std::string {
    size_t at = line.find(word);
    return at == std::string_view::npos ? std::string() : std::string(line.substr(at + word.size()));
  };
  std::string rest;
  if (!(rest = after("Compacting ")).empty()) {
    if (ParseInputs(rest, &e)) e.kind = InfoLogEvent::Kind::kCompactionBegin;
  } else if (!(rest = after("Compacted ")).empty()) {
    InfoLogEvent inputs;
    if (ParseInputs(rest, &inputs)) e.kind = InfoLogEvent::Kind::kCompactionEnd;
  } else if (line.find("Compaction error: ") != std::string_view::npos) {
    e.kind = InfoLogEvent::Kind::kCompactionEnd;
  } else if (!(rest = after("Level-0 table #")).empty() || !(rest = after("Level-0 flush table #")).empty()) {
    unsigned long long number = 0;
    int n = 0;
    if (std::sscanf(rest.c_str(), "%llu: started%n", &number, &n) == 1 && n > 0 && number > 0) {
      e.kind = InfoLogEvent::Kind::kFlushStarted;
      e.table_number = number;
    }
  }
  return e;
}

uint64_t TableNumberOf(std::string_view path) {
  size_t slash = path.rfind('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  uint64_t number = 0;
  size_t i = 0;
  for (; i < base.size() && base[i] >= '0' && base[i] <= '9' && i < 19; i++) number = number * 10 + (base[i] - '0');
  return i > 0 && i < base.size() && base[i] == '.' ? number : 0;
}

}  // namespace hintfs
