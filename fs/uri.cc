#include "fs/uri.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fmt/format.h>

namespace hintfs {

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

bool ParseUint64(const std::string& text, uint64_t* out) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return false;
  *out = v;
  return true;
}

Status ParseSize(const std::string& text, uint64_t* out) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) digits++;
  uint64_t number = 0;
  if (digits == 0 || !ParseUint64(text.substr(0, digits), &number)) {
    return Status::InvalidArgument("bad size '" + text + "'");
  }
  std::string unit = Lower(text.substr(digits));
  unsigned shift = 0;
  if (unit.empty() || unit == "b") shift = 0;
  else if (unit == "k" || unit == "kib") shift = 10;
  else if (unit == "m" || unit == "mib") shift = 20;
  else if (unit == "g" || unit == "gib") shift = 30;
  else if (unit == "t" || unit == "tib") shift = 40;
  else return Status::InvalidArgument("bad size unit in '" + text + "' (use KiB, MiB, GiB, TiB)");
  if (shift > 0 && number > (UINT64_MAX >> shift)) {
    return Status::InvalidArgument("size '" + text + "' overflows");
  }
  *out = number << shift;
  return Status::OK();
}

std::string FormatSize(uint64_t bytes) {
  static const char* kUnits[] = {"TiB", "GiB", "MiB", "KiB"};
  static const unsigned kShifts[] = {40, 30, 20, 10};
  for (int i = 0; i < 4; i++) {
    uint64_t unit = uint64_t{1} << kShifts[i];
    if (bytes != 0 && bytes % unit == 0) return fmt::format("{}{}", bytes / unit, kUnits[i]);
  }
  return fmt::format("{}", bytes);
}

std::string HumanSize(uint64_t bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    u++;
  }
  if (u == 0) return fmt::format("{}B", bytes);
  return fmt::format("{:.1f}{}", v, kUnits[u]);
}

Status DeviceUri::Parse(const std::string& text, DeviceUri* uri) {
  *uri = DeviceUri();
  size_t colon = text.find(':');
  if (colon == std::string::npos || colon == 0) {
    return Status::InvalidArgument("device URI '" + text + "' has no scheme (expected e.g. file:PATH)");
  }
  uri->scheme = text.substr(0, colon);
  for (char c : uri->scheme) {
    if (!std::isalnum(static_cast<unsigned char>(c))) {
      return Status::InvalidArgument("bad scheme in device URI '" + text + "'");
    }
  }
  std::string rest = text.substr(colon + 1);
  size_t q = rest.find('?');
  uri->path = rest.substr(0, q);
  if (uri->path.empty()) return Status::InvalidArgument("device URI '" + text + "' has no path");
  if (q == std::string::npos) return Status::OK();
  std::string query = rest.substr(q + 1);
  size_t pos = 0;
  while (pos <= query.size()) {
    size_t amp = query.find('&', pos);
    std::string item = query.substr(pos, amp == std::string::npos ? std::string::npos : amp - pos);
    if (!item.empty()) {
      size_t eq = item.find('=');
      std::string key = item.substr(0, eq);
      std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
      if (key.empty()) return Status::InvalidArgument("empty key in device URI '" + text + "'");
      if (!uri->params.emplace(key, value).second) {
        return Status::InvalidArgument("key '" + key + "' repeated in device URI '" + text + "'");
      }
    }
    if (amp == std::string::npos) break;
    pos = amp + 1;
  }
  return Status::OK();
}

std::string DeviceUri::ToString() const {
  std::string s = scheme + ":" + path;
  char sep = '?';
  for (const auto& [k, v] : params) {
    s += sep;
    s += k + "=" + v;
    sep = '&';
  }
  return s;
}

Status DeviceUri::GetSize(const std::string& key, uint64_t def, uint64_t* out) const {
  auto it = params.find(key);
  if (it == params.end()) {
    *out = def;
    return Status::OK();
  }
  Status s = ParseSize(it->second, out);
  if (!s.ok()) return Status::InvalidArgument(key + ": " + s.message());
  return s;
}

Status DeviceUri::GetUint(const std::string& key, uint64_t def, uint64_t* out) const {
  auto it = params.find(key);
  if (it == params.end()) {
    *out = def;
    return Status::OK();
  }
  if (!ParseUint64(it->second, out)) {
    return Status::InvalidArgument(key + ": '" + it->second + "' is not a whole number");
  }
  return Status::OK();
}

Status DeviceUri::GetDouble(const std::string& key, double def, double* out) const {
  auto it = params.find(key);
  if (it == params.end()) {
    *out = def;
    return Status::OK();
  }
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(it->second.c_str(), &end);
  if (it->second.empty() || errno != 0 || *end != '\0' || !(v > 0)) {
    return Status::InvalidArgument(key + ": '" + it->second + "' is not a positive number");
  }
  *out = v;
  return Status::OK();
}

std::string DeviceUri::GetString(const std::string& key, const std::string& def) const {
  auto it = params.find(key);
  return it == params.end() ? def : it->second;
}

Status DeviceUri::CheckKeys(const std::set<std::string>& allowed) const {
  for (const auto& [k, v] : params) {
    if (allowed.count(k) == 0) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      return Status::InvalidArgument("unknown device URI key '" + k + "' (known: " + list + ")");
    }
  }
  return Status::OK();
}

}  // namespace hintfs
