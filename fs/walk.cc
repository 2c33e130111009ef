#include "fs/walk.h"

#include <vector>

namespace hintfs {

std::string JoinPath(const std::string& dir, const std::string& name) {
  return dir == "/" ? "/" + name : dir + "/" + name;
}

Status Walk(Filesystem* fs, const std::string& dir, bool recursive,
            const std::function<void(const std::string&, const DirEntry&)>& fn) {
  std::vector<DirEntry> entries;
  Status s = fs->ReadDir(dir, &entries);
  if (!s.ok()) return s;
  for (const DirEntry& e : entries) {
    std::string path = JoinPath(dir, e.name);
    fn(path, e);
    if (recursive && e.type == FileType::kDirectory) {
      s = Walk(fs, path, true, fn);
      if (!s.ok()) return s;
    }
  }
  return Status::OK();
}

Status MakeDirectories(Filesystem* fs, const std::string& dir, std::string* failed) {
  for (size_t pos = dir.find('/', 1);; pos = dir.find('/', pos + 1)) {
    const std::string prefix = dir.substr(0, pos);
    if (!prefix.empty() && prefix != "/") {
      Status s = fs->Mkdir(prefix);
      if (!s.ok() && !s.IsAlreadyExists()) {
        if (failed != nullptr) *failed = prefix;
        return s;
      }
    }
    if (pos == std::string::npos) return Status::OK();
  }
}

Status ReadWholeFile(Filesystem* fs, const std::string& path, std::string* out) {
  std::unique_ptr<FileReader> r;
  Status s = fs->OpenReader(path, &r);
  if (!s.ok()) return s;
  out->resize(static_cast<size_t>(r->Size()));
  size_t got = 0;
  s = r->Read(0, out->size(), out->data(), &got);
  if (s.ok() && got != out->size()) s = Status::Corruption(path + ": short read");
  return s;
}

}  // namespace hintfs
