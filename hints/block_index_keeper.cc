#include "hints/block_index_keeper.h"

#include <cinttypes>
#include <cstdio>
#include <functional>
#include <unordered_set>

#include <fmt/format.h>

#include "fs/walk.h"
#include "hints/file_kind.h"

namespace hintfs {

namespace {

std::string IndexPath(uint64_t inode) { return fmt::format("{}/{:016x}", kBlockIndexDirectory, inode); }

// An index being written, renamed to IndexPath once whole.
constexpr char kAsideSuffix[] = ".new";

// The inode an index file is named after; false for any other name.
bool InodeOfIndexName(const std::string& name, uint64_t* inode) {
  if (name.size() != 16 || name.find_first_not_of("0123456789abcdef") != std::string::npos) return false;
  *inode = std::stoull(name, nullptr, 16);
  return true;
}

struct TableFile {
  std::string path;
  uint64_t size = 0;
};

// Every table file by inode.
Status ListTables(Filesystem* fs, std::unordered_map<uint64_t, TableFile>* tables) {
  return Walk(fs, "/", /*recursive=*/true, [&](const std::string& path, const DirEntry& e) {
    FileStat st;
    if (e.type == FileType::kFile && IsTableFile(path) && fs->Stat(path, &st).ok()) {
      (*tables)[e.inode] = TableFile{path, st.size};
    }
  });
}

}  // namespace

bool IsBlockIndexFile(std::string_view path) {
  std::string_view dir = kBlockIndexDirectory;
  return path.size() > dir.size() + 1 && path.substr(0, dir.size()) == dir && path[dir.size()] == '/';
}

BlockIndexKeeper::BlockIndexKeeper(std::shared_ptr<IoObserver> next) : next_(std::move(next)) {}

BlockIndexKeeper::~BlockIndexKeeper() { Detach(); }

Status BlockIndexKeeper::Attach(Filesystem* fs) {
  std::vector<DirEntry> indexes;
  Status s = fs->ReadDir(kBlockIndexDirectory, &indexes);
  if (s.IsNotFound()) s = fs->Mkdir(kBlockIndexDirectory);
  if (!s.ok()) return s;
  std::unordered_map<uint64_t, TableFile> tables;
  s = ListTables(fs, &tables);
  if (!s.ok()) return s;
  std::unordered_set<uint64_t> indexed;
  uint64_t removed = 0;
  for (const DirEntry& e : indexes) {
    uint64_t inode = 0;
    bool named = InodeOfIndexName(e.name, &inode);
    if (named && tables.count(inode)) {
      indexed.insert(inode);
    } else if (fs->Unlink(JoinPath(kBlockIndexDirectory, e.name)).ok()) {
      removed++;  // its table is gone (a crash between the two deletions)
    }
  }
  std::lock_guard<std::mutex> l(mu_);
  fs_ = fs;
  stats_.removed += removed;
  for (const auto& [inode, f] : tables) {
    inode_of_[f.path] = inode;
    Queue(Job{indexed.count(inode) ? Job::Kind::kLoad : Job::Kind::kRebuild, f.path, nullptr, 0});
  }
  thread_ = std::thread([this] { Run(); });
  return Status::OK();
}

void BlockIndexKeeper::Detach() {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (!thread_.joinable()) return;
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
  fs_->SetAttribute("block_index", StatsJson());
  std::lock_guard<std::mutex> l(mu_);
  fs_ = nullptr;
}

void BlockIndexKeeper::WaitIdle() {
  std::unique_lock<std::mutex> l(mu_);
  idle_cv_.wait(l, [this] { return (queue_.empty() && !busy_) || !thread_.joinable(); });
}

void BlockIndexKeeper::Queue(Job job) {
  if (job.kind != Job::Kind::kRemove) pending_.insert(job.path);
  queue_.push_back(std::move(job));
  cv_.notify_one();
}

void BlockIndexKeeper::Run() {
  std::unique_lock<std::mutex> l(mu_);
  for (;;) {
    cv_.wait(l, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, everything written
    Job job = std::move(queue_.front());
    queue_.pop_front();
    if (stopping_ && (job.kind == Job::Kind::kLoad || job.kind == Job::Kind::kRebuild)) {
      pending_.erase(job.path);  // the next mount does these again: no reason to hold up this one
      continue;
    }
    busy_ = true;
    l.unlock();
    if (job.kind == Job::Kind::kRemove) {
      RemoveIndex(job.inode);
    } else if (job.kind == Job::Kind::kLoad) {
      {
        std::lock_guard<std::mutex> pl(mu_);
        pending_.erase(job.path);  // so that a stale index found now is rebuilt
      }
      std::shared_ptr<const BlockIndex> index;
      Get(job.path, &index);
    } else {
      IndexTable(&job);
    }
    l.lock();
    busy_ = false;
    if (queue_.empty()) idle_cv_.notify_all();
  }
}

void BlockIndexKeeper::IndexTable(Job* job) {
  FileStat st;
  if (!fs_->Stat(job->path, &st).ok() || st.type != FileType::kFile) {
    std::lock_guard<std::mutex> l(mu_);
    pending_.erase(job->path);
    deleted_while_pending_.erase(job->path);
    return;  // deleted since
  }
  const Capture* c = job->capture.get();
  if (c != nullptr && c->size != st.size) c = nullptr;  // written to since: read it
  bool read_back = false;
  std::unique_ptr<FileReader> reader;
  TableReadFn read = [&](uint64_t offset, size_t n, std::string* out) {
    if (c != nullptr && offset + n <= c->head.size()) {
      out->assign(c->head, static_cast<size_t>(offset), n);
      return Status::OK();
    }
    if (c != nullptr && offset >= c->size - c->tail.size() && offset + n <= c->size) {
      out->assign(c->tail, static_cast<size_t>(offset - (c->size - c->tail.size())), n);
      return Status::OK();
    }
    read_back = true;
    Status s = reader ? Status::OK() : fs_->OpenReader(job->path, &reader);
    if (!s.ok()) return s;
    out->resize(n);
    size_t got = 0;
    s = reader->Read(offset, n, out->data(), &got);
    if (s.ok() && got != n) s = Status::Corruption(job->path + ": short read");
    return s;
  };
  TableMap map;
  Status s = ParseTable(st.size, read, &map);
  std::shared_ptr<const BlockIndex> index;
  if (s.ok()) {
    index = std::make_shared<BlockIndex>(BlockIndexFromTableMap(map));
    s = WriteIndex(st.inode, *index, job->capture != nullptr ? job->capture->lifetime_hint : 0);
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    pending_.erase(job->path);
    if (deleted_while_pending_.erase(job->path)) {
      if (s.ok()) Queue(Job{Job::Kind::kRemove, job->path, nullptr, st.inode});
      return;
    }
    if (!s.ok()) {
      (s.IsCorruption() || s.IsNotSupported() ? stats_.unparsable : stats_.write_errors)++;
      return;
    }
    (job->kind == Job::Kind::kRebuild ? stats_.rebuilt : stats_.indexed)++;
    stats_.read_back += read_back && job->kind == Job::Kind::kIndex;
    stats_.table_bytes += st.size;
    inode_of_[job->path] = st.inode;
    Remember(st.inode, index);
  }
  if (on_indexed_ && job->kind == Job::Kind::kIndex) on_indexed_(job->path, std::move(index));
}

Status BlockIndexKeeper::WriteIndex(uint64_t inode, const BlockIndex& index, int lifetime_hint) {
  std::string bytes = EncodeBlockIndex(index);
  // Written aside and renamed into place: a reader (Get) never sees a
  // truncated or half-appended index, which it would count as damaged (a
  // load of the HHZS reproduction did 28-38 times when written in place).
  // A crash leaves at most the aside file, which Attach removes.
  const std::string path = IndexPath(inode);
  const std::string aside = path + kAsideSuffix;
  std::unique_ptr<FileWriter> w;
  Status s = fs_->OpenWriter(aside, WriteMode::kTruncate, &w);
  if (s.ok()) w->SetLifetimeHint(lifetime_hint);
  if (s.ok()) s = w->Append(bytes);
  if (s.ok()) s = w->Close();
  if (s.ok()) s = fs_->Rename(aside, path);
  if (s.ok()) {
    std::lock_guard<std::mutex> l(mu_);
    stats_.index_bytes += bytes.size();
  }
  return s;
}

void BlockIndexKeeper::RemoveIndex(uint64_t inode) {
  Status s = fs_->Unlink(IndexPath(inode));
  std::lock_guard<std::mutex> l(mu_);
  if (s.ok()) stats_.removed++;
  auto it = cached_.find(inode);
  if (it != cached_.end()) {
    lru_.erase(it->second);
    cached_.erase(it);
  }
}

void BlockIndexKeeper::Remember(uint64_t inode, std::shared_ptr<const BlockIndex> index) {
  auto it = cached_.find(inode);
  if (it != cached_.end()) lru_.erase(it->second);
  lru_.emplace_front(inode, std::move(index));
  cached_[inode] = lru_.begin();
  if (lru_.size() > kCachedIndexes) {
    cached_.erase(lru_.back().first);
    lru_.pop_back();
  }
}

Status BlockIndexKeeper::Get(const std::string& path, std::shared_ptr<const BlockIndex>* index) {
  Filesystem* fs;
  {
    std::lock_guard<std::mutex> l(mu_);
    fs = fs_;
  }
  if (fs == nullptr) return Status::NotFound("block index: not attached");
  FileStat st;
  Status s = fs->Stat(path, &st);
  if (!s.ok()) return s;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = cached_.find(st.inode);
    if (it != cached_.end() && it->second->second->file_size == st.size) {
      lru_.splice(lru_.begin(), lru_, it->second);
      *index = it->second->second;
      return Status::OK();
    }
  }
  std::string bytes;
  s = ReadWholeFile(fs, IndexPath(st.inode), &bytes);
  if (s.IsNotFound()) return Status::NotFound(path + ": no block index");
  if (!s.ok()) return s;
  auto decoded = std::make_shared<BlockIndex>();
  s = DecodeBlockIndex(bytes, decoded.get());
  std::lock_guard<std::mutex> l(mu_);
  if (!s.ok() || decoded->file_size != st.size) {
    // Damaged, or the table changed after it was indexed: index it again.
    stats_.bad_files += !s.ok();
    if (fs_ != nullptr && !stopping_ && !pending_.count(path)) Queue(Job{Job::Kind::kRebuild, path, nullptr, 0});
    return s.ok() ? Status::NotFound(path + ": block index is stale") : s;
  }
  Remember(st.inode, decoded);
  *index = std::move(decoded);
  return Status::OK();
}

BlockIndexStats BlockIndexKeeper::stats() const {
  std::lock_guard<std::mutex> l(mu_);
  return stats_;
}

std::string BlockIndexKeeper::StatsJson() const {
  BlockIndexStats s = stats();
  return fmt::format(
      "{{\"indexed\":{},\"read_back\":{},\"rebuilt\":{},\"unparsable\":{},\"removed\":{},\"bad_files\":{},"
      "\"write_errors\":{},\"index_bytes\":{},\"table_bytes\":{}}}",
      s.indexed, s.read_back, s.rebuilt, s.unparsable, s.removed, s.bad_files, s.write_errors, s.index_bytes,
      s.table_bytes);
}

void BlockIndexKeeper::OnCreate(const std::string& path, ZoneRole role) {
  if (IsTableFile(path)) {
    std::lock_guard<std::mutex> l(mu_);
    writing_[path] = std::make_unique<Capture>();
  }
  if (next_) next_->OnCreate(path, role);
}

void BlockIndexKeeper::OnLifetimeHint(const std::string& path, int lifetime) {
  if (IsTableFile(path)) {
    std::lock_guard<std::mutex> l(mu_);
    auto it = writing_.find(path);
    if (it != writing_.end()) it->second->lifetime_hint = lifetime;
  }
  if (next_) next_->OnLifetimeHint(path, lifetime);
}

void BlockIndexKeeper::OnAppend(const std::string& path, std::string_view data) {
  if (IsTableFile(path)) {
    std::lock_guard<std::mutex> l(mu_);
    auto it = writing_.find(path);
    if (it != writing_.end()) {
      Capture& c = *it->second;
      c.size += data.size();
      if (c.head.size() < kHeadBytes) c.head.append(data.substr(0, kHeadBytes - c.head.size()));
      // Keep at least the last kTailBytes, trimming in steps so that each
      // byte is moved about once.
      std::string_view last = data.size() > kTailBytes ? data.substr(data.size() - kTailBytes) : data;
      if (c.tail.size() + last.size() > 2 * kTailBytes) {
        size_t keep = std::min(c.tail.size(), kTailBytes - last.size());
        c.tail.erase(0, c.tail.size() - keep);
      }
      c.tail.append(last);
    }
  }
  if (next_) next_->OnAppend(path, data);
}

void BlockIndexKeeper::OnClose(const std::string& path, uint64_t size) {
  if (IsTableFile(path)) {
    std::lock_guard<std::mutex> l(mu_);
    auto it = writing_.find(path);
    if (it != writing_.end()) {
      Job job{Job::Kind::kIndex, path, std::move(it->second), 0};
      writing_.erase(it);
      Queue(std::move(job));
    }
  }
  if (next_) next_->OnClose(path, size);
}

void BlockIndexKeeper::OnDelete(const std::string& path) {
  if (IsTableFile(path)) {
    std::lock_guard<std::mutex> l(mu_);
    writing_.erase(path);
    auto it = inode_of_.find(path);
    if (it != inode_of_.end()) {
      Queue(Job{Job::Kind::kRemove, path, nullptr, it->second});
      inode_of_.erase(it);
    }
    // An index being built now is removed once it is written.
    if (pending_.count(path)) deleted_while_pending_.insert(path);
  }
  if (next_) next_->OnDelete(path);
}

void BlockIndexKeeper::OnRead(const std::string& path, uint64_t offset, uint64_t bytes, uint64_t slow_bytes) {
  if (on_block_read_ && (!block_read_wanted_ || block_read_wanted_()) && IsTableFile(path)) {
    std::shared_ptr<const BlockIndex> index;
    {
      std::lock_guard<std::mutex> l(mu_);
      auto id = inode_of_.find(path);
      auto cached = id == inode_of_.end() ? cached_.end() : cached_.find(id->second);
      if (cached != cached_.end()) index = cached->second->second;
    }
    int64_t block = index ? index->BlockAt(offset) : -1;
    if (block >= 0) on_block_read_(path, *index, static_cast<size_t>(block), bytes, slow_bytes);
  }
  if (next_) next_->OnRead(path, offset, bytes, slow_bytes);
}

void CheckBlockIndexes(Filesystem* fs, FsckReport* report) {
  std::vector<DirEntry> indexes;
  if (!fs->ReadDir(kBlockIndexDirectory, &indexes).ok()) return;  // none kept yet
  std::unordered_map<uint64_t, TableFile> tables;
  Status s = ListTables(fs, &tables);
  if (!s.ok()) {
    report->errors.push_back("block indexes: " + s.ToString());
    return;
  }
  for (const DirEntry& e : indexes) {
    std::string path = JoinPath(kBlockIndexDirectory, e.name);
    uint64_t inode = 0;
    if (!InodeOfIndexName(e.name, &inode)) {
      report->warnings.push_back(path + (EndsWith(e.name, kAsideSuffix)
                                             ? ": an index cut short by a crash (removed at the next mount)"
                                             : ": not a block index name"));
      continue;
    }
    std::string bytes;
    BlockIndex index;
    s = ReadWholeFile(fs, path, &bytes);
    if (s.ok()) s = DecodeBlockIndex(bytes, &index);
    auto f = tables.find(inode);
    if (!s.ok()) {
      report->errors.push_back(path + ": " + s.ToString());
    } else if (f == tables.end()) {
      report->warnings.push_back(path + ": its table is gone (removed at the next mount)");
    } else if (f->second.size != index.file_size) {
      report->warnings.push_back(fmt::format("{}: indexes {} bytes of {}, which has {} (rebuilt when used)", path,
                                             index.file_size, f->second.path, f->second.size));
    }
  }
}

}  // namespace hintfs
