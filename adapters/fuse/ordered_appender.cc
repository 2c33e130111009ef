#include "adapters/fuse/ordered_appender.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

namespace hintfs {

namespace {
constexpr size_t kCompareChunk = 64 * 1024;
constexpr size_t kMaxIdleReaders = 4;
}  // namespace

OrderedAppender::OrderedAppender(Filesystem* fs, std::string path, uint64_t size)
    : fs_(fs), path_(std::move(path)), stored_(size), size_(size) {}

OrderedAppender::~OrderedAppender() { CloseWriter(); }  // an error has no one to go to

void OrderedAppender::Adopt(std::unique_ptr<FileWriter> writer) {
  std::lock_guard<std::mutex> l(mu_);
  writer_ = std::move(writer);
  stored_ = writer_->Size();
  size_ = std::max(size_, stored_);
}

void OrderedAppender::Renamed(const std::string& from, const std::string& to) {
  std::lock_guard<std::mutex> l(mu_);
  if (path_.compare(0, from.size(), from) != 0) return;
  if (path_.size() == from.size() || path_[from.size()] == '/') path_ = to + path_.substr(from.size());
}

std::string OrderedAppender::path() {
  std::lock_guard<std::mutex> l(mu_);
  return path_;
}

Status OrderedAppender::PathNamesFileLocked() {
  FileStat st;
  if (!detached_ && pinned_ && file_id_ != 0 && (!fs_->Stat(path_, &st).ok() || st.inode != file_id_)) {
    detached_ = true;
  }
  if (detached_) return Status::IOError(fmt::format("{}: the file was unlinked or renamed over", path_), ESTALE);
  return Status::OK();
}

Status OrderedAppender::OpenWriterLocked() {
  if (writer_) return Status::OK();
  // A writer opened by a path that now names another file, or none, would
  // write into the file that replaced this one, or make a new one there.
  Status s = PathNamesFileLocked();
  if (s.ok()) s = fs_->OpenWriter(path_, WriteMode::kAppend, &writer_);
  if (s.ok()) stored_ = writer_->Size();
  return s;
}

Status OrderedAppender::TakeWriter() {
  std::lock_guard<std::mutex> l(mu_);
  return OpenWriterLocked();
}

Status OrderedAppender::PinReader() {
  std::lock_guard<std::mutex> l(mu_);
  if (pinned_) return Status::OK();
  std::unique_ptr<FileReader> reader;
  Status s = fs_->OpenReader(path_, &reader);
  if (!s.ok()) return s;
  file_id_ = reader->Locate(0, 0).file_id;
  pinned_ = std::move(reader);
  return Status::OK();
}

Status OrderedAppender::TakeReaderLocked(std::unique_ptr<FileReader>* reader,
                                         std::shared_ptr<FileReader>* shared) {
  if (!readers_.empty()) {
    *reader = std::move(readers_.back());
    readers_.pop_back();
    return Status::OK();
  }
  if (!detached_) {
    Status s = fs_->OpenReader(path_, reader);
    if (!pinned_) return s;
    if (s.ok() && (*reader)->Locate(0, 0).file_id == file_id_) return s;
    // The path was unlinked, or names the file that replaced this one.
    reader->reset();
    detached_ = true;
  }
  *shared = pinned_;
  return Status::OK();
}

void OrderedAppender::ReturnReaderLocked(std::unique_ptr<FileReader> reader) {
  if (readers_.size() < kMaxIdleReaders) readers_.push_back(std::move(reader));
}

Status OrderedAppender::ReadStored(FileReader* reader, uint64_t offset, size_t n, char* dst) {
  size_t got = 0;
  Status s = reader->Read(offset, n, dst, &got);
  if (s.ok() && got != n) {
    return Status::IOError(fmt::format("{} bytes at {} read short ({})", n, offset, got));
  }
  return s;
}

Status OrderedAppender::Write(uint64_t offset, std::string_view data, bool* held) {
  std::lock_guard<std::mutex> l(mu_);
  bool changed = false;
  Status s = WriteLocked(offset, data, held, &changed);
  // The kernel forgets a page once its write is answered: what the file
  // took must survive the daemon being killed from here on.
  if (s.ok() && changed) s = writer_->Flush();
  return s;
}

Status OrderedAppender::OverwriteStoredLocked(uint64_t offset, std::string_view data, bool crosses_end,
                                              bool* changed) {
  // A page written back again after it grew brings back bytes the file
  // holds unchanged: only the bytes that differ are written (out of place,
  // FileWriter::WriteAt), so re-sent pages cost a read, not a rewrite. Only
  // a write that reaches past the stored end can be one; any other is a
  // program's rewrite, written as it comes.
  if (!crosses_end) {
    *changed = true;
    return writer_->WriteAt(offset, data);
  }
  std::unique_ptr<FileReader> reader;
  std::shared_ptr<FileReader> shared;
  Status s = TakeReaderLocked(&reader, &shared);
  if (!s.ok()) return s;
  FileReader* from = reader ? reader.get() : shared.get();
  std::vector<char> stored(std::min<uint64_t>(data.size(), kCompareChunk));
  for (uint64_t done = 0; done < data.size() && s.ok();) {
    size_t n = std::min<uint64_t>(stored.size(), data.size() - done);
    s = ReadStored(from, offset + done, n, stored.data());
    if (!s.ok()) break;
    size_t first = 0, last = n;
    while (first < n && stored[first] == data[done + first]) first++;
    while (last > first && stored[last - 1] == data[done + last - 1]) last--;
    if (first < last) {
      s = writer_->WriteAt(offset + done + first, data.substr(done + first, last - first));
      *changed = true;
    }
    done += n;
  }
  if (s.ok() && reader) ReturnReaderLocked(std::move(reader));
  return s;
}

Status OrderedAppender::WriteLocked(uint64_t offset, std::string_view data, bool* held, bool* changed) {
  if (held != nullptr) *held = false;
  if (data.empty()) return Status::OK();  // as write(2) of nothing: no change, even past the end
  Status s = OpenWriterLocked();
  if (!s.ok()) return s;
  if (offset < stored_) {
    uint64_t overlap = std::min<uint64_t>(data.size(), stored_ - offset);
    s = OverwriteStoredLocked(offset, data.substr(0, overlap), /*crosses_end=*/overlap < data.size(), changed);
    if (!s.ok()) return s;
    data.remove_prefix(overlap);
    offset += overlap;
    if (data.empty()) return Status::OK();
  }
  *changed = true;
  if (offset == stored_ && (held_.empty() || held_.begin()->first >= offset + data.size())) {
    s = writer_->Append(data);  // the usual case: nothing held in the way
    if (!s.ok()) return s;
    stored_ += data.size();
    size_ = std::max(size_, stored_);
    return DrainLocked();
  }
  HoldLocked(offset, data);
  size_ = std::max(size_, offset + data.size());
  s = DrainLocked();
  if (held != nullptr) *held = !held_.empty();
  return s;
}

void OrderedAppender::HoldLocked(uint64_t offset, std::string_view data) {
  uint64_t end = offset + data.size();
  // Runs the new bytes overlap keep only their parts outside [offset, end).
  auto it = held_.upper_bound(offset);
  if (it != held_.begin()) --it;
  while (it != held_.end() && it->first < end) {
    uint64_t run_start = it->first;
    uint64_t run_end = run_start + it->second.size();
    if (run_end <= offset) {
      ++it;
      continue;
    }
    std::string run = std::move(it->second);
    it = held_.erase(it);
    if (run_start < offset) held_.emplace(run_start, run.substr(0, offset - run_start));
    if (run_end > end) {
      it = held_.emplace(end, run.substr(end - run_start)).first;
      ++it;
    }
  }
  held_.emplace(offset, std::string(data));
}

Status OrderedAppender::DrainLocked() {
  while (!held_.empty() && held_.begin()->first == stored_) {
    auto it = held_.begin();
    Status s = writer_->Append(it->second);
    if (!s.ok()) return s;
    stored_ += it->second.size();
    held_.erase(it);
  }
  return Status::OK();
}

Status OrderedAppender::AppendZerosLocked(uint64_t n) {
  if (n == 0) return Status::OK();
  // A write past the end leaves zeros before it (FileWriter::WriteAt).
  Status s = writer_->WriteAt(stored_ + n - 1, std::string_view("\0", 1));
  stored_ = writer_->Size();  // also what a failure took
  return s;
}

Status OrderedAppender::Read(uint64_t offset, size_t n, char* dst, size_t* got) {
  std::unique_lock<std::mutex> l(mu_);
  *got = 0;
  if (offset >= size_) return Status::OK();
  n = std::min<uint64_t>(n, size_ - offset);
  size_t from_store = offset < stored_ ? std::min<uint64_t>(n, stored_ - offset) : 0;
  if (from_store < n) {  // past the stored end: held bytes over zeros
    uint64_t lo = offset + from_store, hi = offset + n;
    std::memset(dst + from_store, 0, n - from_store);
    auto it = held_.upper_bound(lo);
    if (it != held_.begin()) --it;
    for (; it != held_.end() && it->first < hi; ++it) {
      uint64_t a = std::max(lo, it->first);
      uint64_t b = std::min<uint64_t>(hi, it->first + it->second.size());
      if (a < b) std::memcpy(dst + (a - offset), it->second.data() + (a - it->first), b - a);
    }
  }
  if (from_store > 0) {
    // Stored bytes do not change under a read (a store cuts a file it is
    // reading only by mistake), so many reads of one file may run at once.
    std::unique_ptr<FileReader> reader;
    std::shared_ptr<FileReader> shared;
    Status s = TakeReaderLocked(&reader, &shared);
    if (!s.ok()) return s;
    l.unlock();
    s = ReadStored(reader ? reader.get() : shared.get(), offset, from_store, dst);
    l.lock();
    if (!s.ok()) return Status::IOError(fmt::format("{}: {}", path_, s.message()), s.errno_value());
    if (reader) ReturnReaderLocked(std::move(reader));
  }
  *got = n;
  return Status::OK();
}

Status OrderedAppender::Truncate(uint64_t size) {
  std::lock_guard<std::mutex> l(mu_);
  if (size < stored_) {
    Status s = writer_ ? writer_->Flush() : Status::OK();
    if (s.ok()) s = PathNamesFileLocked();  // a cut by path must be of this file
    if (s.ok()) s = fs_->Truncate(path_, size);
    if (!s.ok()) return s;
    stored_ = size;
    held_.clear();
  } else {
    // Held bytes past the new end go; the rest stays held.
    held_.erase(held_.lower_bound(size), held_.end());
    if (!held_.empty()) {
      auto last = std::prev(held_.end());
      if (last->first + last->second.size() > size) last->second.resize(size - last->first);
    }
  }
  size_ = size;
  return Status::OK();
}

Status OrderedAppender::SettleLocked() {
  if (held_.empty() && size_ == stored_) return Status::OK();
  Status s = OpenWriterLocked();
  if (!s.ok()) return s;
  while (!held_.empty()) {
    auto it = held_.begin();
    s = AppendZerosLocked(it->first - stored_);
    if (s.ok()) s = DrainLocked();
    if (!s.ok()) return s;
  }
  return AppendZerosLocked(size_ - stored_);
}

Status OrderedAppender::Settle() {
  std::lock_guard<std::mutex> l(mu_);
  return SettleLocked();
}

Status OrderedAppender::Sync() {
  std::lock_guard<std::mutex> l(mu_);
  Status s = SettleLocked();
  if (!s.ok()) return s;
  // Without a writer nothing of the file is buffered: what is left to make
  // durable is the namespace (a create, a rename).
  return writer_ ? writer_->Sync() : fs_->SyncMetadata();
}

Status OrderedAppender::CloseWriter() {
  std::lock_guard<std::mutex> l(mu_);
  Status s = SettleLocked();
  if (writer_) {
    Status c = writer_->Close();
    if (s.ok()) s = c;
    writer_.reset();
  }
  return s;
}

Status OrderedAppender::Close() {
  Status s = CloseWriter();
  std::lock_guard<std::mutex> l(mu_);
  readers_.clear();
  pinned_.reset();  // a read under way keeps its own reference
  return s;
}

uint64_t OrderedAppender::Size() {
  std::lock_guard<std::mutex> l(mu_);
  return size_;
}

uint64_t OrderedAppender::HeldBytes() {
  std::lock_guard<std::mutex> l(mu_);
  uint64_t bytes = 0;
  for (const auto& [offset, run] : held_) bytes += run.size();
  return bytes;
}

}  // namespace hintfs
