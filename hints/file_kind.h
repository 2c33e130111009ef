// What an LSM store's file is, from its name: the one place that knows
// RocksDB's and LevelDB's file names (NNNNNN.sst and NNNNNN.ldb tables,
// NNNNNN.log write-ahead logs, MANIFEST-NNNNNN, BlobDB's NNNNNN.blob). Paths
// may carry directories; only the last component counts.
#ifndef HINTFS_HINTS_FILE_KIND_H_
#define HINTFS_HINTS_FILE_KIND_H_

#include <string_view>

namespace hintfs {

enum class LsmFileKind {
  kTable,     // *.sst (RocksDB) or *.ldb (LevelDB)
  kWal,       // *.log
  kManifest,  // MANIFEST-*
  kInfoLog,   // LOG and its rotated copies LOG.old* (the store's diagnostics:
              // written in the background, read by people, never on open)
  kOther,     // CURRENT, LOCK, OPTIONS-*, anything else
  kBlob,      // *.blob: RocksDB's blob files (BlobDB), values kept out of the
              // tables; last so that kinds saved as numbers keep their values
};

LsmFileKind ClassifyLsmFile(std::string_view path);

// Whether s is suffix preceded by at least one character (a name of that
// extension, not the extension alone).
bool EndsWith(std::string_view s, std::string_view suffix);

inline bool IsTableFile(std::string_view path) { return ClassifyLsmFile(path) == LsmFileKind::kTable; }
inline bool IsWalFile(std::string_view path) { return ClassifyLsmFile(path) == LsmFileKind::kWal; }
inline bool IsManifestFile(std::string_view path) { return ClassifyLsmFile(path) == LsmFileKind::kManifest; }
inline bool IsInfoLogFile(std::string_view path) { return ClassifyLsmFile(path) == LsmFileKind::kInfoLog; }
inline bool IsBlobFile(std::string_view path) { return ClassifyLsmFile(path) == LsmFileKind::kBlob; }

}  // namespace hintfs

#endif  // HINTFS_HINTS_FILE_KIND_H_
