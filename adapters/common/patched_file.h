// A file that can be written anywhere, over a filesystem whose files are
// written only at their end (zones are append-only): writes are kept as
// patches over the file as it is, reads see them, and Persist() writes the
// patched file out of place (a hidden sibling, then an atomic rename over the
// original), so a crash leaves either the old or the new contents, never a
// mix. Memory holds only the patches.
//
// This is what RocksDB's NewRandomRWFile needs (ingested tables patched with
// their global sequence number): a few small writes, then one sync. A large
// file patched often pays a whole copy per Persist(); handles that read the
// file before a Persist() keep seeing the old contents (they hold the old
// file, as after a rename on POSIX).
#ifndef HINTFS_ADAPTERS_COMMON_PATCHED_FILE_H_
#define HINTFS_ADAPTERS_COMMON_PATCHED_FILE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fs/filesystem.h"

namespace hintfs {

class PatchedFile {
 public:
  // Opens path, creating it empty if it does not exist. Errors: those of
  // OpenReader and OpenWriter (NotFound for a missing parent, InvalidArgument
  // for a directory, Busy while another handle writes the file).
  static Status Open(std::shared_ptr<Filesystem> fs, const std::string& path,
                     std::unique_ptr<PatchedFile>* file);
  ~PatchedFile();  // persists what was written (errors are lost: call Close)

  // Replaces [offset, offset + data.size()); a write past the end extends the
  // file, with zeros in any gap.
  void Write(uint64_t offset, std::string_view data);
  // Reads up to n bytes at offset, patches included; *got is short only at
  // the end. Errors: the filesystem's (IOError, Corruption).
  Status Read(uint64_t offset, size_t n, char* scratch, size_t* got) const;
  uint64_t Size() const { return size_; }

  // Writes the patched file out of place and renames it over the original;
  // with sync, the contents and the rename are durable against a power cut
  // (otherwise against a process kill). Nothing to do if nothing was written.
  // Errors: the filesystem's (NoSpace, IOError); the original is then intact
  // and the patches are kept.
  Status Persist(bool sync);
  Status Close();

 private:
  struct Patch {
    uint64_t offset;
    std::string data;
  };
  PatchedFile(std::shared_ptr<Filesystem> fs, std::string path, std::unique_ptr<FileReader> base);
  Status CopyWithPatches(FileWriter* out) const;

  std::shared_ptr<Filesystem> fs_;
  std::string path_;
  std::unique_ptr<FileReader> base_;  // the file as last persisted
  std::vector<Patch> patches_;        // in write order: later ones win
  uint64_t size_ = 0;
  bool closed_ = false;
};

}  // namespace hintfs

#endif  // HINTFS_ADAPTERS_COMMON_PATCHED_FILE_H_
