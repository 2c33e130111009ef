// Filesystem: the namespace (paths, directories, links, renames, locks).
#include "fs/fs_impl.h"

#include <fmt/format.h>

#include "fs/coding.h"

namespace hintfs {

namespace {

constexpr size_t kMaxNameLength = 255;

// Splits "/a//b/./c" into {"a", "b", "c"}; ".." pops.
Status SplitPath(const std::string& path, std::vector<std::string>* parts) {
  parts->clear();
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t slash = path.find('/', pos);
    std::string part = path.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos);
    if (part == "..") {
      if (!parts->empty()) parts->pop_back();
    } else if (!part.empty() && part != ".") {
      if (part.size() > kMaxNameLength) return Status::InvalidArgument("name too long: " + part);
      if (part.find('\0') != std::string::npos) return Status::InvalidArgument("NUL in path");
      parts->push_back(part);
    }
    if (slash == std::string::npos) break;
    pos = slash + 1;
  }
  return Status::OK();
}

}  // namespace

Status FsImpl::CheckWritable() const {
  if (options_.read_only) return Status::NotSupported("filesystem is mounted read-only");
  if (unmounted_) return Status::IOError("filesystem is unmounted");
  return Status::OK();
}

// ---------------------------------------------------------------- namespace

Status FsImpl::Resolve(const std::string& path, uint64_t* inode) {
  std::vector<std::string> parts;
  Status s = SplitPath(path, &parts);
  if (!s.ok()) return s;
  uint64_t cur = kRootInode;
  for (const std::string& p : parts) {
    auto dir = dirs_.find(cur);
    if (dir == dirs_.end()) return Status::NotFound(path + ": a path component is not a directory");
    auto e = dir->second.find(p);
    if (e == dir->second.end()) return Status::NotFound(path);
    cur = e->second;
  }
  *inode = cur;
  return Status::OK();
}

Status FsImpl::ResolveParent(const std::string& path, uint64_t* parent, std::string* name) {
  std::vector<std::string> parts;
  Status s = SplitPath(path, &parts);
  if (!s.ok()) return s;
  if (parts.empty()) return Status::InvalidArgument("the root directory has no parent");
  *name = parts.back();
  uint64_t cur = kRootInode;
  for (size_t i = 0; i + 1 < parts.size(); i++) {
    auto dir = dirs_.find(cur);
    auto e = dir->second.find(parts[i]);
    if (e == dir->second.end()) return Status::NotFound(path + ": parent directory missing");
    if (dirs_.count(e->second) == 0) return Status::NotFound(path + ": " + parts[i] + " is not a directory");
    cur = e->second;
  }
  *parent = cur;
  return Status::OK();
}

Status FsImpl::CreateLocked(uint64_t parent, const std::string& name, FileType type,
                            const std::string& path, uint64_t* inode) {
  auto ino = std::make_shared<Inode>();
  ino->id = next_inode_++;
  ino->type = type;
  auto fast_dir = fast_tier_dirs_.find(parent);
  ino->role = type != FileType::kFile             ? ZoneRole::kFree
              : fast_dir != fast_tier_dirs_.end() ? fast_dir->second
                                                  : policy_->RoleForNewFile(path);
  ino->created_as = path;
  ino->mtime_ns = WallClockNs();
  ino->nlink = 1;
  MetadataOp create;
  create.type = MetadataOp::Type::kCreateInode;
  create.inode.id = ino->id;
  create.inode.type = type;
  create.inode.role = ino->role;
  create.inode.mtime_ns = ino->mtime_ns;
  MetadataOp link;
  link.type = MetadataOp::Type::kLink;
  link.parent = parent;
  link.name = name;
  link.inode.id = ino->id;
  journal_->Add({create, link});
  inodes_[ino->id] = ino;
  dirs_[parent][name] = ino->id;
  if (type == FileType::kDirectory) dirs_[ino->id];
  if (type == FileType::kFile && options_.observer) options_.observer->OnCreate(path, ino->role);
  *inode = ino->id;
  return Status::OK();
}

void FsImpl::DeleteInodeLocked(Inode* ino) {
  ino->deleted = true;
  if (options_.observer && ino->type == FileType::kFile) options_.observer->OnDelete(ino->created_as);
  if (ino->type == FileType::kFile) policy_->OnFileDeleted(ino->created_as, ino->size, write_clock_.load());
  for (const Extent& e : ino->extents) AddLiveLocked(e, -1);
  MetadataOp del;
  del.type = MetadataOp::Type::kDeleteInode;
  del.inode.id = ino->id;
  journal_->Add(del);
  dirs_.erase(ino->id);
  locked_.erase(ino->id);
  inodes_.erase(ino->id);  // last: ino may be owned only by the map
}

void FsImpl::DropLinkLocked(uint64_t inode, const std::string& path) {
  auto it = inodes_.find(inode);
  if (it == inodes_.end()) return;
  Inode* ino = it->second.get();
  if (ino->created_as.empty()) ino->created_as = path;
  ino->nlink--;
  if (ino->nlink == 0 && ino->open_count == 0) DeleteInodeLocked(ino);
}

void FsImpl::CloseHandle(const std::shared_ptr<Inode>& ino) {
  std::lock_guard<std::mutex> l(mu_);
  ino->open_count--;
  if (ino->open_count == 0 && ino->nlink == 0 && !ino->deleted && !unmounted_) {
    DeleteInodeLocked(ino.get());
  }
}

Status FsImpl::Stat(const std::string& path, FileStat* st) {
  std::shared_ptr<Inode> ino;
  {
    std::lock_guard<std::mutex> l(mu_);
    uint64_t id;
    Status s = Resolve(path, &id);
    if (!s.ok()) return s;
    ino = inodes_.at(id);
    st->nlink = ino->nlink;
  }
  std::lock_guard<std::mutex> il(ino->mu);
  st->inode = ino->id;
  st->type = ino->type;
  st->role = ino->role;
  st->size = ino->size;
  st->mtime_ns = ino->mtime_ns;
  st->extents = ino->extents;
  st->tag = ino->tag;
  st->mode = ino->mode;
  st->uid = ino->uid;
  st->gid = ino->gid;
  st->reads = ino->reads.load(std::memory_order_relaxed);
  return Status::OK();
}

Status FsImpl::SetAttribute(const std::string& name, const std::string& value) {
  if (name.empty() || name.size() > kMaxAttributeName || value.size() > kMaxAttributeValue) {
    return Status::InvalidArgument("attribute names are 1-64 bytes and values at most 8 KiB");
  }
  std::lock_guard<std::mutex> l(mu_);
  Status s = CheckWritable();
  if (!s.ok()) return s;
  MetadataOp op;
  op.type = MetadataOp::Type::kSetAttribute;
  op.name = name;
  op.value = value;
  journal_->Add(op);
  if (value.empty()) {
    attributes_.erase(name);
  } else {
    attributes_[name] = value;
  }
  return Status::OK();
}

std::map<std::string, std::string> FsImpl::Attributes() {
  std::lock_guard<std::mutex> l(mu_);
  return attributes_;
}

Status FsImpl::ReadDir(const std::string& path, std::vector<DirEntry>* entries) {
  std::lock_guard<std::mutex> l(mu_);
  uint64_t id;
  Status s = Resolve(path, &id);
  if (!s.ok()) return s;
  auto dir = dirs_.find(id);
  if (dir == dirs_.end()) return Status::InvalidArgument(path + " is not a directory");
  entries->clear();
  for (const auto& [name, child] : dir->second) {
    entries->push_back({name, child, inodes_.at(child)->type});
  }
  return Status::OK();
}

Status FsImpl::Mkdir(const std::string& path) { return CreateWithContent(path, FileType::kDirectory, ""); }

Status FsImpl::Symlink(const std::string& target, const std::string& path) {
  if (target.empty() || target.size() > kMaxSymlinkTarget) {
    return Status::InvalidArgument(path + ": a link target holds 1 to " + std::to_string(kMaxSymlinkTarget) +
                                   " bytes");
  }
  return CreateWithContent(path, FileType::kSymlink, target);
}

Status FsImpl::ReadLink(const std::string& path, std::string* target) {
  return ReadContent(path, FileType::kSymlink, target);
}

namespace {
// POSIX's file-type bits of the nodes MakeSpecial records.
constexpr uint32_t kFifo = 0010000, kCharDevice = 0020000, kBlockDevice = 0060000, kSocket = 0140000;
}  // namespace

Status FsImpl::MakeSpecial(const std::string& path, uint32_t format, uint64_t rdev) {
  if (format != kFifo && format != kCharDevice && format != kBlockDevice && format != kSocket) {
    return Status::InvalidArgument(path + ": not a FIFO, socket or device node format");
  }
  std::string content;
  PutFixed32(&content, format);
  PutFixed64(&content, rdev);
  return CreateWithContent(path, FileType::kSpecial, content);
}

Status FsImpl::ReadSpecial(const std::string& path, uint32_t* format, uint64_t* rdev) {
  std::string content;
  Status s = ReadContent(path, FileType::kSpecial, &content);
  if (!s.ok()) return s;
  Decoder d(content, "special node");
  d.GetFixed32(format);
  d.GetFixed64(rdev);
  if (!d.ok() || d.remaining() != 0) return Status::Corruption(path + ": special node record of a bad size");
  return Status::OK();
}

Status FsImpl::CreateWithContent(const std::string& path, FileType type, const std::string& content) {
  {
    std::lock_guard<std::mutex> l(mu_);
    Status s = CheckWritable();
    if (!s.ok()) return s;
    uint64_t parent, id;
    std::string name;
    s = ResolveParent(path, &parent, &name);
    if (!s.ok()) return s;
    if (dirs_[parent].count(name)) return Status::AlreadyExists(path);
    s = CreateLocked(parent, name, type, path, &id);
    if (!s.ok()) return s;
    if (!content.empty()) {
      // The content is journaled as the tail. Nobody else can reach the new
      // inode before mu_ is released: its own lock is not needed (and would
      // be taken out of order here).
      Inode* ino = inodes_.at(id).get();
      ino->pending = content;
      ino->tail_len = content.size();
      ino->size = content.size();
      ino->first_dirty = 0;
      QueueInodeLocked(ino);
    }
  }
  return CommitUnflushed();
}

Status FsImpl::ReadContent(const std::string& path, FileType type, std::string* content) {
  std::shared_ptr<Inode> ino;
  {
    std::lock_guard<std::mutex> l(mu_);
    uint64_t id;
    Status s = Resolve(path, &id);
    if (!s.ok()) return s;
    ino = inodes_.at(id);
  }
  if (ino->type != type) {
    return Status::InvalidArgument(path + (type == FileType::kSymlink ? " is not a symbolic link"
                                                                      : " is not a FIFO, socket or device node"));
  }
  std::lock_guard<std::mutex> il(ino->mu);
  *content = ino->pending;
  return Status::OK();
}

Status FsImpl::SetOwnership(const std::string& path, uint32_t mode, uint32_t uid, uint32_t gid) {
  std::shared_ptr<Inode> ino;
  Status s = HoldInode(path, /*files_only=*/false, &ino);
  if (!s.ok()) return s;
  {
    std::lock_guard<std::mutex> il(ino->mu);
    ino->mode = (mode & kModeBits) | kModeSet;
    ino->uid = uid;
    ino->gid = gid;
    MetadataOp op;
    op.type = MetadataOp::Type::kSetOwnership;
    op.inode.id = ino->id;
    op.inode.mode = ino->mode;
    op.inode.uid = uid;
    op.inode.gid = gid;
    journal_->Add(op);
  }
  CloseHandle(ino);
  return CommitUnflushed();
}

void FsImpl::SetZoneLender(ZoneRole lender_class, ZoneLender lender) {
  std::lock_guard<std::mutex> l(lender_mu_);
  lender_class_ = lender_class;
  lender_ = std::move(lender);
}

Status FsImpl::KeepOnFastTier(const std::string& dir, ZoneRole file_class) {
  if (!IsFileClass(file_class)) return Status::InvalidArgument(ZoneRoleName(file_class) + " is not a file class");
  std::lock_guard<std::mutex> l(mu_);
  uint64_t inode = 0;
  Status s = Resolve(dir, &inode);
  if (!s.ok()) return s;
  if (dirs_.count(inode) == 0) return Status::NotFound(dir + ": not a directory");
  fast_tier_dirs_[inode] = file_class;
  fast_tier_classes_ |= 1u << static_cast<int>(file_class);
  return Status::OK();
}

Status FsImpl::Rmdir(const std::string& path) { return RemoveName(path, /*want_dir=*/true); }

Status FsImpl::Unlink(const std::string& path) { return RemoveName(path, /*want_dir=*/false); }

Status FsImpl::RemoveName(const std::string& path, bool want_dir) {
  Status s = RemoveNameUncommitted(path, want_dir);
  return s.ok() ? CommitUnflushed() : s;
}

Status FsImpl::RemoveNameUncommitted(const std::string& path, bool want_dir) {
  std::lock_guard<std::mutex> l(mu_);
  Status s = CheckWritable();
  if (!s.ok()) return s;
  uint64_t parent;
  std::string name;
  s = ResolveParent(path, &parent, &name);
  if (!s.ok()) return s;
  auto e = dirs_[parent].find(name);
  if (e == dirs_[parent].end()) return Status::NotFound(path);
  uint64_t id = e->second;
  bool is_dir = dirs_.count(id) != 0;
  if (is_dir != want_dir) {
    return Status::InvalidArgument(path + (is_dir ? " is a directory" : " is not a directory"));
  }
  if (is_dir && !dirs_[id].empty()) return Status::InvalidArgument(path + ": directory not empty");
  MetadataOp unlink;
  unlink.type = MetadataOp::Type::kUnlink;
  unlink.parent = parent;
  unlink.name = name;
  journal_->Add(unlink);
  dirs_[parent].erase(e);
  DropLinkLocked(id, path);
  return Status::OK();
}

Status FsImpl::HoldInode(const std::string& path, bool files_only, std::shared_ptr<Inode>* ino) {
  std::lock_guard<std::mutex> l(mu_);
  Status s = CheckWritable();
  if (!s.ok()) return s;
  uint64_t id;
  s = Resolve(path, &id);
  if (!s.ok()) return s;
  *ino = inodes_.at(id);
  if (files_only && (*ino)->type != FileType::kFile) {
    return Status::InvalidArgument(path + ((*ino)->type == FileType::kDirectory ? " is a directory"
                                                                                : " is not a regular file"));
  }
  (*ino)->open_count++;
  return Status::OK();
}

Status FsImpl::Rename(const std::string& from, const std::string& to) {
  Status s = RenameUncommitted(from, to);
  return s.ok() ? CommitUnflushed() : s;
}

Status FsImpl::RenameUncommitted(const std::string& from, const std::string& to) {
  std::lock_guard<std::mutex> l(mu_);
  Status s = CheckWritable();
  if (!s.ok()) return s;
  uint64_t from_parent, to_parent;
  std::string from_name, to_name;
  s = ResolveParent(from, &from_parent, &from_name);
  if (s.ok()) s = ResolveParent(to, &to_parent, &to_name);
  if (!s.ok()) return s;
  auto src = dirs_[from_parent].find(from_name);
  if (src == dirs_[from_parent].end()) return Status::NotFound(from);
  uint64_t id = src->second;
  bool is_dir = dirs_.count(id) != 0;
  if (is_dir) {
    // A directory may not move into its own subtree.
    std::vector<std::string> to_parts;
    for (uint64_t cur = to_parent; cur != kRootInode;) {
      if (cur == id) return Status::InvalidArgument("cannot move " + from + " into itself");
      uint64_t up = kRootInode;
      for (const auto& [dir_id, names] : dirs_) {
        for (const auto& [n, child] : names) {
          if (child == cur) up = dir_id;
        }
      }
      cur = up;
    }
    if (to_parent == id) return Status::InvalidArgument("cannot move " + from + " into itself");
  }
  std::vector<MetadataOp> ops;
  auto dst = dirs_[to_parent].find(to_name);
  uint64_t replaced = 0;
  if (dst != dirs_[to_parent].end()) {
    if (dst->second == id) return Status::OK();  // same file: nothing to do
    bool dst_dir = dirs_.count(dst->second) != 0;
    if (dst_dir != is_dir) {
      return Status::InvalidArgument(to + (dst_dir ? " is a directory" : " is not a directory"));
    }
    if (dst_dir && !dirs_[dst->second].empty()) {
      return Status::InvalidArgument(to + ": directory not empty");
    }
    replaced = dst->second;
    MetadataOp u;
    u.type = MetadataOp::Type::kUnlink;
    u.parent = to_parent;
    u.name = to_name;
    ops.push_back(u);
  }
  MetadataOp u;
  u.type = MetadataOp::Type::kUnlink;
  u.parent = from_parent;
  u.name = from_name;
  ops.push_back(u);
  MetadataOp link;
  link.type = MetadataOp::Type::kLink;
  link.parent = to_parent;
  link.name = to_name;
  link.inode.id = id;
  ops.push_back(link);
  journal_->Add(ops);  // one batch: the rename is atomic
  // Observers know a file by its first path in this mount, renames or not.
  auto moved = inodes_.find(id);
  if (moved != inodes_.end() && moved->second->created_as.empty()) moved->second->created_as = from;
  dirs_[from_parent].erase(from_name);
  if (replaced != 0) dirs_[to_parent].erase(to_name);
  dirs_[to_parent][to_name] = id;
  if (replaced != 0) DropLinkLocked(replaced, to);
  return Status::OK();
}

Status FsImpl::LinkUncommitted(const std::string& existing, const std::string& new_path) {
  std::lock_guard<std::mutex> l(mu_);
  Status s = CheckWritable();
  if (!s.ok()) return s;
  uint64_t id, parent;
  std::string name;
  s = Resolve(existing, &id);
  if (s.ok()) s = ResolveParent(new_path, &parent, &name);
  if (!s.ok()) return s;
  if (dirs_.count(id)) return Status::InvalidArgument("cannot hard-link directory " + existing);
  if (dirs_[parent].count(name)) return Status::AlreadyExists(new_path);
  MetadataOp link;
  link.type = MetadataOp::Type::kLink;
  link.parent = parent;
  link.name = name;
  link.inode.id = id;
  journal_->Add(link);
  dirs_[parent][name] = id;
  inodes_.at(id)->nlink++;
  return Status::OK();
}

Status FsImpl::Link(const std::string& existing, const std::string& new_path) {
  Status s = LinkUncommitted(existing, new_path);
  return s.ok() ? CommitUnflushed() : s;
}

namespace {
class FsFileLock : public FileLock {
 public:
  FsFileLock(FsImpl* fs, uint64_t inode) : fs_(fs), inode_(inode) {}
  ~FsFileLock() override { fs_->UnlockPath(inode_); }

 private:
  FsImpl* fs_;
  uint64_t inode_;
};
}  // namespace

Status FsImpl::Lock(const std::string& path, std::unique_ptr<FileLock>* lock) {
  bool created = false;
  {
    std::lock_guard<std::mutex> l(mu_);
    Status s = CheckWritable();
    if (!s.ok()) return s;
    uint64_t id;
    s = Resolve(path, &id);
    if (s.IsNotFound()) {
      uint64_t parent;
      std::string name;
      s = ResolveParent(path, &parent, &name);
      if (s.ok()) s = CreateLocked(parent, name, FileType::kFile, path, &id);
      created = s.ok();
    }
    if (!s.ok()) return s;
    if (!locked_.insert(id).second) return Status::Busy("lock on " + path + " is held");
    lock->reset(new FsFileLock(this, id));
  }
  return created ? CommitUnflushed() : Status::OK();
}

void FsImpl::UnlockPath(uint64_t inode) {
  std::lock_guard<std::mutex> l(mu_);
  locked_.erase(inode);
}

Status FsImpl::SyncMetadata() {
  Status s = CheckWritable();
  if (!s.ok()) return s;
  return CommitAndReclaim();
}

FsStats FsImpl::Stats() {
  FsStats st;
  {
    std::lock_guard<std::mutex> l(stats_mu_);
    st = stats_;
  }
  if (journal_) {
    JournalStats js = journal_->stats();
    st.journal_commits = js.batches_committed;
    st.journal_unflushed_commits = js.unflushed_batches_committed;
    st.journal_bytes = js.bytes_committed;
    st.journal_rolls = js.rolls;
    st.journal_epoch = js.epoch;
    st.journal_active_zone = js.active_zone;
    st.journal_snapshot_bound = js.snapshot_bytes + js.grown_bytes;
    st.journal_zone_capacity = js.zone_capacity;
  }
  st.repairs = repairs_;
  RecentBlocksStats recent = recent_.stats();
  st.copies_from_memory = recent.hits;
  st.reads_from_written = recent.written_hits;
  st.bytes_from_written = recent.written_bytes;
  st.copies_from_device = recent.misses;
  ReadaheadStats ra = readahead_.stats();
  st.readahead_reads_served = ra.reads_served;
  st.readahead_fetches = ra.fetches;
  st.readahead_bytes = ra.bytes_fetched;
  std::lock_guard<std::mutex> l(mu_);
  for (const auto& [id, ino] : inodes_) {
    if (ino->type == FileType::kFile) st.files++;
    if (ino->type == FileType::kDirectory) st.directories++;
  }
  return st;
}

}  // namespace hintfs
