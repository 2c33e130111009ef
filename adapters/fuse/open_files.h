// The FUSE mount's open files: handles of one file share its
// OrderedAppender (the kernel writes a file's cached pages back through
// whichever of its handles it likes), counted per inode.
#ifndef HINTFS_ADAPTERS_FUSE_OPEN_FILES_H_
#define HINTFS_ADAPTERS_FUSE_OPEN_FILES_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "adapters/fuse/ordered_appender.h"
#include "fs/filesystem.h"

namespace hintfs {

// Every file some handle holds open, by inode.
struct OpenFile {
  OpenFile(Filesystem* fs, std::string path, uint64_t size) : appender(fs, std::move(path), size) {}
  OrderedAppender appender;
  int handles = 0;           // guarded by OpenFileTable's mutex
  int writable_handles = 0;  // likewise
};

class OpenFileTable {
 public:
  // The open file of inode (made, with an appender at size and its pinned
  // reader, for its first handle), counting one more handle.
  std::shared_ptr<OpenFile> Acquire(Filesystem* fs, uint64_t inode, const std::string& path, uint64_t size,
                                    bool writable) {
    std::lock_guard<std::mutex> l(mu_);
    std::shared_ptr<OpenFile>& f = files_[inode];
    if (!f) {
      f = std::make_shared<OpenFile>(fs, path, size);
      // While path names the file (the caller's Stat): reads find it after
      // an unlink or a rename over it too. Should that fail (the path was
      // unlinked meanwhile), reads open readers by path as they go.
      static_cast<void>(f->appender.PinReader());
    }
    f->handles++;
    if (writable) f->writable_handles++;
    return f;
  }
  // Whether the handle was the file's last one. The file stays in the table
  // until EraseIfUnused, so a handle opened while the last one closes the
  // writer shares the appender rather than racing it for a writer.
  bool Release(uint64_t inode, bool writable) {
    std::lock_guard<std::mutex> l(mu_);
    auto it = files_.find(inode);
    if (it == files_.end()) return false;
    if (writable) it->second->writable_handles--;
    return --it->second->handles == 0;
  }
  void EraseIfUnused(uint64_t inode) {
    std::lock_guard<std::mutex> l(mu_);
    auto it = files_.find(inode);
    if (it != files_.end() && it->second->handles == 0) files_.erase(it);
  }
  int WritableHandles(const OpenFile& f) {
    std::lock_guard<std::mutex> l(mu_);
    return f.writable_handles;
  }
  // fs->Unlink(path), and fs->Rename(from, to) with the open files' paths
  // renamed after it (Renamed). An open file that loses its name (unlinked,
  // or renamed over) and has handles open for writing takes its writer
  // first, while the name still leads to it: their later writes reach it,
  // as on a kernel filesystem (a writer is otherwise opened by the name,
  // which then leads elsewhere).
  Status Unlink(Filesystem* fs, const std::string& path) {
    KeepWriterOf(fs, path);
    return fs->Unlink(path);
  }
  Status Rename(Filesystem* fs, const std::string& from, const std::string& to) {
    KeepWriterOf(fs, to);
    Status s = fs->Rename(from, to);
    if (s.ok()) Renamed(from, to);
    return s;
  }
  std::shared_ptr<OpenFile> Find(uint64_t inode) {
    std::lock_guard<std::mutex> l(mu_);
    auto it = files_.find(inode);
    return it == files_.end() ? nullptr : it->second;
  }
  // At unmount: files whose handles the kernel never released (a lazy
  // unmount, a signal) are settled and closed while the filesystem lives.
  void CloseAll() {
    std::unordered_map<uint64_t, std::shared_ptr<OpenFile>> files;
    {
      std::lock_guard<std::mutex> l(mu_);
      files.swap(files_);
    }
    for (auto& [inode, f] : files) {
      Status s = f->appender.Close();
      if (!s.ok()) std::fprintf(stderr, "hintfs mount: at unmount: %s\n", s.ToString().c_str());
    }
  }
  void Totals(uint64_t* files, uint64_t* held) {
    std::vector<std::shared_ptr<OpenFile>> all = All();
    *files = all.size();
    *held = 0;
    for (auto& f : all) *held += f->appender.HeldBytes();
  }

 private:
  // A renamed file, or directory with open files under it. Not under the
  // table's lock: an appender's lock waits for its file's device writes.
  void Renamed(const std::string& from, const std::string& to) {
    for (auto& f : All()) f->appender.Renamed(from, to);
  }
  void KeepWriterOf(Filesystem* fs, const std::string& path) {
    FileStat st;
    if (!fs->Stat(path, &st).ok()) return;
    std::shared_ptr<OpenFile> f = Find(st.inode);
    // Should the writer not open (busy elsewhere), writes that need one fail (ESTALE).
    if (f && WritableHandles(*f) > 0) static_cast<void>(f->appender.TakeWriter());
  }

  std::vector<std::shared_ptr<OpenFile>> All() {
    std::lock_guard<std::mutex> l(mu_);
    std::vector<std::shared_ptr<OpenFile>> all;
    for (auto& [inode, f] : files_) all.push_back(f);
    return all;
  }

  std::mutex mu_;
  std::unordered_map<uint64_t, std::shared_ptr<OpenFile>> files_;
};

}  // namespace hintfs

#endif  // HINTFS_ADAPTERS_FUSE_OPEN_FILES_H_
