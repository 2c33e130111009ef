#include "cache/file_block_keys.h"

#include <cinttypes>
#include <cstdio>

#include <fmt/format.h>

#include "fs/coding.h"
#include "fs/crc32c.h"

namespace hintfs {

namespace {

// A live key: "f<id>.<version>@<offset>+<n>".
bool ParseLiveKey(const std::string& key, uint64_t* id, uint64_t* version, uint64_t* offset, uint64_t* n) {
  int used = 0;
  return std::sscanf(key.c_str(), "f%" SCNu64 ".%" SCNu64 "@%" SCNu64 "+%" SCNu64 "%n", id, version, offset, n,
                     &used) == 4 &&
         static_cast<size_t>(used) == key.size();
}

}  // namespace

std::string FileBlockKeys::Key(const std::string& path, const ReadLocation& where, uint64_t offset, uint64_t n) {
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = paths_.find(where.file_id);
    if (it == paths_.end() || it->second != path) {
      // Deleted tables' ids are never asked again: forget them all at a bound
      // (a block whose file was forgotten is just not kept, unless read again).
      if (paths_.size() >= kMaxPaths) paths_.clear();
      paths_[where.file_id] = path;
    }
  }
  return fmt::format("f{}.{}@{}+{}", where.file_id, where.data_version, offset, n);
}

std::string FileBlockKeys::Identity(const std::string& path, uint64_t* id, uint64_t* version) {
  FileStat st;
  std::unique_ptr<FileReader> reader;
  if (!fs_->Stat(path, &st).ok() || st.type != FileType::kFile || !fs_->OpenReader(path, &reader).ok()) return "";
  *id = st.inode;
  *version = reader->Locate(0, 1).data_version;
  std::string places;
  for (const Extent& e : st.extents) {
    PutFixed32(&places, e.device);
    PutFixed32(&places, e.zone);
    PutFixed64(&places, e.offset);
    PutFixed64(&places, e.length);
  }
  return fmt::format("{}.{}.{}.{:08x}", st.inode, st.size, st.mtime_ns, crc32c::Value(places.data(), places.size()));
}

const FileBlockKeys::Checked& FileBlockKeys::CheckOnce(const std::string& path,
                                                      std::unordered_map<std::string, Checked>* checked) {
  auto it = checked->find(path);
  if (it == checked->end()) {
    Checked c;
    c.identity = Identity(path, &c.id, &c.version);
    it = checked->emplace(path, std::move(c)).first;
  }
  return it->second;
}

std::vector<KeptKey> FileBlockKeys::ToKept(const std::vector<std::string>& keys) {
  std::unordered_map<std::string, Checked> checked;  // path -> the file there now
  std::vector<KeptKey> out(keys.size());
  for (size_t i = 0; i < keys.size(); i++) {
    uint64_t id = 0, version = 0, offset = 0, n = 0;
    if (!ParseLiveKey(keys[i], &id, &version, &offset, &n)) continue;  // not a file block's (a store's own key)
    std::string path;
    {
      std::lock_guard<std::mutex> l(mu_);
      auto it = paths_.find(id);
      if (it == paths_.end()) continue;
      path = it->second;
    }
    const Checked& now = CheckOnce(path, &checked);
    if (now.identity.empty() || now.id != id || now.version != version) continue;
    out[i] = KeptKey{path + "\n" + now.identity, fmt::format("{}+{}", offset, n)};
  }
  return out;
}

std::vector<std::string> FileBlockKeys::FromKept(const std::vector<KeptKey>& kept) {
  std::unordered_map<std::string, Checked> checked;  // path -> the file there now
  std::vector<std::string> out(kept.size());
  for (size_t i = 0; i < kept.size(); i++) {
    const KeptKey& k = kept[i];
    const size_t newline = k.group.find('\n');
    uint64_t offset = 0, n = 0;
    int used = 0;
    if (newline == std::string::npos ||
        std::sscanf(k.item.c_str(), "%" SCNu64 "+%" SCNu64 "%n", &offset, &n, &used) != 2 ||
        static_cast<size_t>(used) != k.item.size()) {
      continue;
    }
    const std::string path = k.group.substr(0, newline);
    const Checked& now = CheckOnce(path, &checked);
    if (now.identity.empty() || now.identity != k.group.substr(newline + 1)) continue;
    {
      std::lock_guard<std::mutex> l(mu_);
      paths_[now.id] = path;
    }
    out[i] = fmt::format("f{}.{}@{}+{}", now.id, now.version, offset, n);
  }
  return out;
}

}  // namespace hintfs
