// Device URIs: "scheme:path?key=value&key=value", e.g.
//   file:/var/lib/hintfs/ssd.img?zone_size=64MiB&zones=32&profile=zn540
//   mem:fast0?zones=16
// Parsing is strict: an unknown key, a duplicate key or a malformed number is
// an InvalidArgument naming the offender, so typos never silently fall back to
// defaults.
#ifndef HINTFS_FS_URI_H_
#define HINTFS_FS_URI_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "fs/status.h"

namespace hintfs {

struct DeviceUri {
  std::string scheme;  // "file", "mem", ...
  std::string path;    // everything between "scheme:" and "?"
  std::map<std::string, std::string> params;

  // Parses text into *uri. Rejects empty schemes and paths, empty keys and
  // repeated keys.
  static Status Parse(const std::string& text, DeviceUri* uri);

  // Re-assembles the URI (parameters in key order).
  std::string ToString() const;

  bool Has(const std::string& key) const { return params.count(key) != 0; }

  // Typed getters: return def when the key is absent, an error when present
  // but malformed.
  Status GetSize(const std::string& key, uint64_t def, uint64_t* out) const;
  Status GetUint(const std::string& key, uint64_t def, uint64_t* out) const;
  Status GetDouble(const std::string& key, double def, double* out) const;
  std::string GetString(const std::string& key, const std::string& def) const;

  // InvalidArgument if a key outside allowed is present.
  Status CheckKeys(const std::set<std::string>& allowed) const;
};

// "42" -> 42: decimal digits only (no sign, space or suffix), within 64 bits.
bool ParseUint64(const std::string& text, uint64_t* out);

// "64MiB" -> 67108864. Accepts a plain number of bytes or a binary suffix
// (K, KiB, M, MiB, G, GiB, T, TiB; case-insensitive).
Status ParseSize(const std::string& text, uint64_t* out);

// 67108864 -> "64MiB"; sizes that are not a whole number of a unit print in bytes.
std::string FormatSize(uint64_t bytes);

// 1.5 GiB style human text for tables (one decimal).
std::string HumanSize(uint64_t bytes);

}  // namespace hintfs

#endif  // HINTFS_FS_URI_H_
