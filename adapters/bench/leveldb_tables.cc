#include "adapters/bench/leveldb_tables.h"

#include <cstdint>
#include <regex>

#include <leveldb/db.h>

namespace hintfs {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Undoes LevelDB's EscapeString: \xHH for each byte outside ' '..'~'. A
// backslash not followed by two hex digits is kept as it is (EscapeString
// leaves a printable backslash alone).
std::string Unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); i++) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] == 'x' && HexDigit(s[i + 2]) >= 0 &&
        HexDigit(s[i + 3]) >= 0) {
      out.push_back(static_cast<char>(HexDigit(s[i + 2]) * 16 + HexDigit(s[i + 3])));
      i += 3;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> LevelDbTableProbeKeys(const std::string& sstables) {
  constexpr size_t kLongestLine = 8192;
  // The key parts are greedy: a key holding "' @ 1 : 1 .. '" itself could be
  // split wrongly, and then only that table's open is left to its first read.
  static const std::regex kLine(R"(^ \d+:\d+\['(.*)' @ \d+ : \d+ \.\. '(.*)' @ \d+ : \d+\]$)");
  std::vector<std::string> keys;
  size_t start = 0;
  while (start < sstables.size()) {
    size_t end = sstables.find('\n', start);
    if (end == std::string::npos) end = sstables.size();
    std::string line = sstables.substr(start, end - start);
    start = end + 1;
    // libstdc++'s std::regex recurses once per character matched: lines of
    // keys this long are left to their tables' first reads.
    if (line.size() > kLongestLine) continue;
    std::smatch m;
    if (!std::regex_match(line, m, kLine)) continue;
    std::string smallest = Unescape(m[1].str()), largest = Unescape(m[2].str());
    if (smallest != largest) keys.push_back(largest);
  }
  return keys;
}

int OpenEveryLevelDbTable(leveldb::DB* db) {
  std::string sstables;
  if (!db->GetProperty("leveldb.sstables", &sstables)) return 0;
  std::vector<std::string> keys = LevelDbTableProbeKeys(sstables);
  // At a table's largest user key (sought before that key's entries) every
  // table whose range holds the key is opened, this one included.
  for (const std::string& key : keys) {
    leveldb::Range range(key, key);
    uint64_t size = 0;
    db->GetApproximateSizes(&range, 1, &size);
  }
  return static_cast<int>(keys.size());
}

}  // namespace hintfs
