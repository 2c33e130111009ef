#include "adapters/common/patched_file.h"

#include <algorithm>
#include <cstring>

namespace hintfs {

namespace {

// Where the patched copy is written before it replaces the original: a
// hidden sibling, so the rename stays within one directory.
std::string StagingPath(const std::string& path) {
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  return dir + "." + name + ".hintfs-patch";
}

}  // namespace

Status PatchedFile::Open(std::shared_ptr<Filesystem> fs, const std::string& path,
                         std::unique_ptr<PatchedFile>* file) {
  // Creates the file if needed, and finds out whether a writer holds it.
  std::unique_ptr<FileWriter> probe;
  Status s = fs->OpenWriter(path, WriteMode::kAppend, &probe);
  if (s.ok()) s = probe->Close();
  if (!s.ok()) return s;
  std::unique_ptr<FileReader> base;
  s = fs->OpenReader(path, &base);
  if (!s.ok()) return s;
  file->reset(new PatchedFile(std::move(fs), path, std::move(base)));
  return Status::OK();
}

PatchedFile::PatchedFile(std::shared_ptr<Filesystem> fs, std::string path, std::unique_ptr<FileReader> base)
    : fs_(std::move(fs)), path_(std::move(path)), base_(std::move(base)), size_(base_->Size()) {}

PatchedFile::~PatchedFile() {
  if (!closed_) Close().ok();
}

void PatchedFile::Write(uint64_t offset, std::string_view data) {
  if (data.empty()) return;
  patches_.push_back(Patch{offset, std::string(data)});
  size_ = std::max(size_, offset + data.size());
}

Status PatchedFile::Read(uint64_t offset, size_t n, char* scratch, size_t* got) const {
  *got = 0;
  if (offset >= size_) return Status::OK();
  n = static_cast<size_t>(std::min<uint64_t>(n, size_ - offset));
  const uint64_t base_size = base_->Size();
  size_t from_base = offset < base_size ? static_cast<size_t>(std::min<uint64_t>(n, base_size - offset)) : 0;
  if (from_base > 0) {
    size_t read = 0;
    Status s = base_->Read(offset, from_base, scratch, &read);
    if (!s.ok()) return s;
    from_base = read;
  }
  std::memset(scratch + from_base, 0, n - from_base);  // a gap a later write left
  for (const Patch& p : patches_) {
    const uint64_t begin = std::max(offset, p.offset);
    const uint64_t end = std::min(offset + n, p.offset + p.data.size());
    if (begin < end) std::memcpy(scratch + (begin - offset), p.data.data() + (begin - p.offset), end - begin);
  }
  *got = n;
  return Status::OK();
}

Status PatchedFile::CopyWithPatches(FileWriter* out) const {
  constexpr size_t kChunk = 1 << 20;
  std::string buffer(kChunk, '\0');
  for (uint64_t offset = 0; offset < size_;) {
    size_t got = 0;
    Status s = Read(offset, kChunk, buffer.data(), &got);
    if (s.ok()) s = out->Append(std::string_view(buffer.data(), got));
    if (!s.ok()) return s;
    offset += got;
  }
  return Status::OK();
}

Status PatchedFile::Persist(bool sync) {
  if (patches_.empty()) return Status::OK();
  const std::string staging = StagingPath(path_);
  std::unique_ptr<FileWriter> out;
  Status s = fs_->OpenWriter(staging, WriteMode::kTruncate, &out);
  if (s.ok()) s = CopyWithPatches(out.get());
  if (s.ok() && sync) s = out->Sync();
  if (out) {
    Status c = out->Close();
    if (s.ok()) s = c;
  }
  if (s.ok()) s = fs_->Rename(staging, path_);
  if (!s.ok()) {
    fs_->Unlink(staging).ok();  // the original is untouched
    return s;
  }
  if (sync) s = fs_->SyncMetadata();
  std::unique_ptr<FileReader> base;
  Status r = fs_->OpenReader(path_, &base);
  if (!r.ok()) return r;
  base_ = std::move(base);
  patches_.clear();
  return s;
}

Status PatchedFile::Close() {
  closed_ = true;
  return Persist(/*sync=*/false);
}

}  // namespace hintfs
