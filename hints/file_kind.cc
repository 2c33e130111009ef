#include "hints/file_kind.h"

namespace hintfs {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

LsmFileKind ClassifyLsmFile(std::string_view path) {
  size_t slash = path.rfind('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (EndsWith(base, ".sst") || EndsWith(base, ".ldb")) return LsmFileKind::kTable;
  if (EndsWith(base, ".log")) return LsmFileKind::kWal;
  if (EndsWith(base, ".blob")) return LsmFileKind::kBlob;
  if (base.size() > 9 && base.compare(0, 9, "MANIFEST-") == 0) return LsmFileKind::kManifest;
  // RocksDB rotates LOG to LOG.old.<micros>, LevelDB to LOG.old.
  if (base == "LOG" || base.compare(0, 7, "LOG.old") == 0) return LsmFileKind::kInfoLog;
  return LsmFileKind::kOther;
}

}  // namespace hintfs
