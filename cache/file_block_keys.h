// FileBlockKeys: the cache keys of blocks read from files (CachingFilesystem)
// and their saved form, so that the SSD cache is kept across mounts
// (BlockCache, CacheKeyMapping).
//
// At a mount a block is keyed by (file id, data version, offset, length):
// a rewrite or truncation changes the version, and a file id is not reused
// while the mount lives. Neither is stable across mounts (ids of deleted
// files are reused, versions start at 0), so a saved key names the file by
// path and by what shows that its bytes are unchanged: its id, size,
// modification time and the places of its extents. A zoned device never
// writes a block in place, so new bytes mean new extents; a migration moves
// extents without changing bytes, and only costs the blocks (it is checked
// at the next mount against the extents at the close). Thread safe.
#ifndef HINTFS_CACHE_FILE_BLOCK_KEYS_H_
#define HINTFS_CACHE_FILE_BLOCK_KEYS_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "cache/block_cache.h"
#include "fs/filesystem.h"

namespace hintfs {

class FileBlockKeys : public CacheKeyMapping {
 public:
  // fs: the filesystem the files are read from; it must outlive this.
  explicit FileBlockKeys(Filesystem* fs) : fs_(fs) {}

  // The key of a read of n bytes at offset of the file at path, where where
  // (its reader's Locate) says it is now. Remembers the file's path (up to
  // kMaxPaths files, then it starts over).
  std::string Key(const std::string& path, const ReadLocation& where, uint64_t offset, uint64_t n);

  static constexpr size_t kMaxPaths = 1 << 16;

  // CacheKeyMapping: a saved key's group is the file's path and identity,
  // its item "<offset>+<length>". ToKept: no group if the file is gone, is
  // another file now, or its bytes changed since the key was made.
  // FromKept: "" if the file at the saved path is not the one saved,
  // unchanged, or the item is not an offset and length.
  std::vector<KeptKey> ToKept(const std::vector<std::string>& keys) override;
  std::vector<std::string> FromKept(const std::vector<KeptKey>& kept) override;

 private:
  struct Checked {
    std::string identity;  // "" : no such file
    uint64_t id = 0, version = 0;
  };
  // What identifies the file at path now ("" if none): id, size, mtime,
  // extents; with its data version in *version.
  std::string Identity(const std::string& path, uint64_t* id, uint64_t* version);
  // Identity of path, asked once per batch (checked holds the answers).
  const Checked& CheckOnce(const std::string& path, std::unordered_map<std::string, Checked>* checked);

  Filesystem* fs_;
  std::mutex mu_;
  std::unordered_map<uint64_t, std::string> paths_;  // file id -> the path it was read by
};

}  // namespace hintfs

#endif  // HINTFS_CACHE_FILE_BLOCK_KEYS_H_
