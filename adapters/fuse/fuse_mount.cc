#define FUSE_USE_VERSION 31

#include "adapters/fuse/fuse_mount.h"

#include <fuse.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "adapters/common/exit_status.h"
#include "adapters/common/mount_registry.h"
#include "adapters/common/mount_stats.h"
#include "adapters/fuse/cache_invalidator.h"
#include "adapters/fuse/dirty_limit.h"
#include "adapters/fuse/fuse_args.h"
#include "adapters/fuse/open_files.h"
#include "cache/block_cache.h"
#include "hints/block_index_keeper.h"
#include "hints/file_kind.h"

namespace hintfs {

namespace {

constexpr char kStatsDir[] = "/.hintfs";
constexpr char kStatsJson[] = "/.hintfs/stats.json";
constexpr char kMetrics[] = "/.hintfs/metrics";

// The mount every callback works on (one per daemon).
std::shared_ptr<Filesystem> g_fs;
bool g_writeback = true;  // the kernel's write-back cache (until Init finds it missing)

int Errno(const Status& s) {
  if (s.ok()) return 0;
  const std::string& m = s.message();
  if (m.find("directory not empty") != std::string::npos) return -ENOTEMPTY;
  if (m.find("is not a directory") != std::string::npos) return -ENOTDIR;
  if (m.find(" is a directory") != std::string::npos) return -EISDIR;
  return -(s.errno_value() != 0 ? s.errno_value() : EIO);
}

// A null path is an open file that was unlinked since (hard_remove): the
// callbacks that get one work through its handle.
bool IsVirtual(const char* path) {
  if (path == nullptr) return false;
  return std::strcmp(path, kStatsDir) == 0 || std::strcmp(path, kStatsJson) == 0 ||
         std::strcmp(path, kMetrics) == 0;
}

OpenFileTable g_open_files;
std::atomic<uint64_t> g_failed_writes{0};
std::atomic<uint64_t> g_held_writes{0};

nlohmann::json StatsJson() {
  uint64_t files = 0, held = 0;
  g_open_files.Totals(&files, &held);
  nlohmann::json mount = {{"writeback_cache", g_writeback},
                          {"open_files", files},
                          {"held_bytes", held},
                          {"held_writes", g_held_writes.load()},
                          {"failed_writes", g_failed_writes.load()}};
  return MountStatsJson(g_fs.get(), mount);
}

std::string Metrics() { return MountMetrics(StatsJson()); }

CacheInvalidator g_invalidator;

// An open handle. Virtual files carry their content, made at open.
struct Handle {
  uint64_t inode = 0;
  bool writable = false;
  std::shared_ptr<OpenFile> file;
  bool is_virtual = false;
  std::string content;
};

Handle* H(fuse_file_info* fi) { return reinterpret_cast<Handle*>(fi->fh); }

void* Init(fuse_conn_info* conn, fuse_config* cfg) {
  cfg->use_ino = 1;
  cfg->hard_remove = 1;  // unlinked open files are ours to keep readable
  if (g_writeback && (conn->capable & FUSE_CAP_WRITEBACK_CACHE)) {
    conn->want |= FUSE_CAP_WRITEBACK_CACHE;
    // Every change to the namespace, sizes and contents goes through this
    // kernel, which keeps its caches right: attributes, names and pages may
    // be kept. Asking at every write would cost a round trip per write().
    cfg->attr_timeout = 1;
    cfg->entry_timeout = 1;
    cfg->negative_timeout = 0;
    cfg->kernel_cache = 1;
  } else {
    g_writeback = false;
    // Writes go through one by one; sizes change with every append, so the
    // kernel asks rather than caches.
    cfg->attr_timeout = 0;
    cfg->entry_timeout = 0;
    cfg->negative_timeout = 0;
    cfg->kernel_cache = 0;
  }
  return nullptr;
}

// The permission bits an inode shows: the ones stored (SetOwnership), else
// what the mount always showed (links are 0777, as on Linux).
mode_t ModeBits(const FileStat& st) {
  if (st.type == FileType::kSymlink) return 0777;
  if (st.mode & kModeSet) return st.mode & kModeBits;
  return st.type == FileType::kDirectory ? 0755 : 0644;
}

int GetAttr(const char* path, struct stat* st, fuse_file_info* fi) {
  std::memset(st, 0, sizeof(*st));
  if (path == nullptr) {  // unlinked, still open
    if (fi == nullptr || H(fi)->file == nullptr) return -ENOENT;
    st->st_ino = H(fi)->inode;
    st->st_mode = S_IFREG | 0644;
    st->st_size = static_cast<off_t>(H(fi)->file->appender.Size());
    st->st_blksize = 4096;
    st->st_blocks = static_cast<blkcnt_t>((st->st_size + 511) / 512);
    st->st_uid = getuid();
    st->st_gid = getgid();
    return 0;
  }
  if (std::strcmp(path, kStatsDir) == 0) {
    st->st_mode = S_IFDIR | 0555;
    st->st_nlink = 2;
    return 0;
  }
  if (IsVirtual(path)) {
    st->st_mode = S_IFREG | 0444;
    st->st_nlink = 1;
    st->st_size = static_cast<off_t>((std::strcmp(path, kStatsJson) == 0 ? StatsJson().dump(2) + "\n" : Metrics()).size());
    return 0;
  }
  FileStat fst;
  Status s = g_fs->Stat(path, &fst);
  if (!s.ok()) return Errno(s);
  if (fst.type != FileType::kDirectory) {
    // An open file may hold bytes the filesystem has not taken yet.
    if (std::shared_ptr<OpenFile> f = g_open_files.Find(fst.inode)) fst.size = f->appender.Size();
  }
  st->st_ino = fst.inode;
  st->st_mode = fst.type == FileType::kDirectory ? S_IFDIR : fst.type == FileType::kSymlink ? S_IFLNK : S_IFREG;
  if (fst.type == FileType::kSpecial) {
    uint32_t format = 0;
    uint64_t rdev = 0;
    s = g_fs->ReadSpecial(path, &format, &rdev);
    if (!s.ok()) return Errno(s);
    st->st_mode = format;
    st->st_rdev = rdev;
    fst.size = 0;
  }
  st->st_mode |= ModeBits(fst);
  st->st_nlink = fst.type == FileType::kDirectory ? 2 : fst.nlink;
  st->st_size = static_cast<off_t>(fst.size);
  st->st_blksize = 4096;
  st->st_blocks = static_cast<blkcnt_t>((fst.size + 511) / 512);
  st->st_mtim.tv_sec = fst.mtime_ns / 1000000000;
  st->st_mtim.tv_nsec = fst.mtime_ns % 1000000000;
  st->st_ctim = st->st_atim = st->st_mtim;
  st->st_uid = (fst.mode & kModeSet) ? fst.uid : getuid();
  st->st_gid = (fst.mode & kModeSet) ? fst.gid : getgid();
  return 0;
}

int ReadDir(const char* path, void* buf, fuse_fill_dir_t fill, off_t, fuse_file_info*, fuse_readdir_flags) {
  fill(buf, ".", nullptr, 0, static_cast<fuse_fill_dir_flags>(0));
  fill(buf, "..", nullptr, 0, static_cast<fuse_fill_dir_flags>(0));
  if (std::strcmp(path, kStatsDir) == 0) {
    fill(buf, "stats.json", nullptr, 0, static_cast<fuse_fill_dir_flags>(0));
    fill(buf, "metrics", nullptr, 0, static_cast<fuse_fill_dir_flags>(0));
    return 0;
  }
  std::vector<DirEntry> entries;
  Status s = g_fs->ReadDir(path, &entries);
  if (!s.ok()) return Errno(s);
  if (std::strcmp(path, "/") == 0) fill(buf, kStatsDir + 1, nullptr, 0, static_cast<fuse_fill_dir_flags>(0));
  for (const DirEntry& e : entries) {
    bool own = "/" + e.name == kCacheDirectory || "/" + e.name == kBlockIndexDirectory;
    if (std::strcmp(path, "/") == 0 && own) continue;  // the cache's and the block indexes' files
    fill(buf, e.name.c_str(), nullptr, 0, static_cast<fuse_fill_dir_flags>(0));
  }
  return 0;
}

// Once the store's MANIFEST records a table (a flush or compaction output),
// the table leaves the kernel's page cache, where writing it and the store's
// first read of it put it all. Otherwise the store's later reads of it, its
// compactions' scans included, are served from that cache and never reach
// hintfs, which then cannot see a compaction begin (hints/level_inference.h)
// or which tables are hot (migration, the SSD cache). Mapped pages go too:
// they fault in again through the daemon.
void DropRecordedTablesFromPageCache(const Hint& h) {
  if (h.kind == Hint::Kind::kCompactionOutput && h.reason != "inferred") g_invalidator.Invalidate(h.path);
}

int OpenCommon(const char* path, fuse_file_info* fi, bool create) {
  auto h = std::make_unique<Handle>();
  if (IsVirtual(path)) {
    if ((fi->flags & O_ACCMODE) != O_RDONLY || create) return -EACCES;
    h->is_virtual = true;
    h->content = std::strcmp(path, kStatsJson) == 0 ? StatsJson().dump(2) + "\n" : Metrics();
    fi->direct_io = 1;  // its size is not known before it is read
    fi->fh = reinterpret_cast<uint64_t>(h.release());
    return 0;
  }
  h->writable = (fi->flags & O_ACCMODE) != O_RDONLY;
  FileStat st;
  Status s = g_fs->Stat(path, &st);
  std::unique_ptr<FileWriter> created;
  if (s.IsNotFound() && create) {
    // Creating takes the writer at once; another create may win the race.
    s = g_fs->OpenWriter(path, WriteMode::kExclusive, &created);
    if (s.IsAlreadyExists() && (fi->flags & O_EXCL)) return -EEXIST;
    if (s.ok() || s.IsAlreadyExists()) s = g_fs->Stat(path, &st);
  } else if (s.ok() && create && (fi->flags & O_EXCL)) {
    return -EEXIST;
  }
  if (!s.ok()) return Errno(s);
  if (st.type == FileType::kDirectory) return -EISDIR;
  h->inode = st.inode;
  h->file = g_open_files.Acquire(g_fs.get(), st.inode, path, st.size, h->writable);
  if (created) h->file->appender.Adopt(std::move(created));
  if ((fi->flags & O_TRUNC) && h->writable) {
    s = h->file->appender.Truncate(0);
    if (!s.ok()) {
      if (g_open_files.Release(h->inode, h->writable)) g_open_files.EraseIfUnused(h->inode);
      return Errno(s);
    }
  }
  // The store's info LOG comes through as written: its lines announce
  // flushes and compactions (hints/info_log.h), which write-back delays.
  if ((fi->flags & O_DIRECT) || (h->writable && IsInfoLogFile(path))) fi->direct_io = 1;
  fi->fh = reinterpret_cast<uint64_t>(h.release());
  return 0;
}

int Open(const char* path, fuse_file_info* fi) { return OpenCommon(path, fi, false); }

int Read(const char*, char* buf, size_t size, off_t off, fuse_file_info* fi) {
  Handle* h = H(fi);
  if (h->is_virtual) {
    if (static_cast<size_t>(off) >= h->content.size()) return 0;
    size_t n = std::min(size, h->content.size() - static_cast<size_t>(off));
    std::memcpy(buf, h->content.data() + off, n);
    return static_cast<int>(n);
  }
  size_t got = 0;
  Status s = h->file->appender.Read(static_cast<uint64_t>(off), size, buf, &got);
  if (!s.ok()) return Errno(s);
  return static_cast<int>(got);
}

int Write(const char*, const char* buf, size_t size, off_t off, fuse_file_info* fi) {
  Handle* h = H(fi);
  if (h->is_virtual) return -EACCES;
  bool held = false;
  Status s = h->file->appender.Write(static_cast<uint64_t>(off), std::string_view(buf, size), &held);
  if (held) g_held_writes++;
  if (!s.ok()) {
    g_failed_writes++;
    if (fi->writepage) {
      // The program's write() succeeded long ago; it learns at fsync or
      // close, and its cached copy of the file must go.
      LogFailedWriteBack(s);
      g_invalidator.Invalidate(h->file->appender.path());  // renames included
    }
    return Errno(s);
  }
  return static_cast<int>(size);
}

// Called at every close() of the file, synchronously, while the kernel sends
// the release later: the last writable handle gives the writer up here, so a
// program that closes a file and opens it again to append does not find it
// still "open for writing" (by another process on another mount of the
// filesystem, say). A later write takes a writer again.
int Flush(const char*, fuse_file_info* fi) {
  Handle* h = H(fi);
  if (h->is_virtual || !h->writable) return 0;
  if (g_open_files.WritableHandles(*h->file) > 1) return 0;
  return Errno(h->file->appender.CloseWriter());
}

int Fsync(const char*, int, fuse_file_info* fi) {
  Handle* h = H(fi);
  if (h->is_virtual) return 0;
  return Errno(h->file->appender.Sync());
}

int FsyncDir(const char*, int, fuse_file_info*) { return Errno(g_fs->SyncMetadata()); }

int Release(const char*, fuse_file_info* fi) {
  std::unique_ptr<Handle> h(H(fi));
  if (h->is_virtual) return 0;
  if (!g_open_files.Release(h->inode, h->writable)) return 0;
  Status s = h->file->appender.CloseWriter();  // the last handle
  g_open_files.EraseIfUnused(h->inode);
  return Errno(s);
}

int Truncate(const char* path, off_t size, fuse_file_info* fi) {
  if (IsVirtual(path)) return -EACCES;
  std::shared_ptr<OpenFile> f;
  if (fi != nullptr && !H(fi)->is_virtual) {
    f = H(fi)->file;
  } else if (path == nullptr) {
    return -ENOENT;
  } else {
    FileStat st;
    Status s = g_fs->Stat(path, &st);
    if (!s.ok()) return Errno(s);
    f = g_open_files.Find(st.inode);
  }
  // An open file is cut through its appender, which may hold bytes past the
  // stored end.
  if (f) return Errno(f->appender.Truncate(static_cast<uint64_t>(size)));
  return Errno(g_fs->Truncate(path, static_cast<uint64_t>(size)));
}

// Zones are written once, so nothing can be reserved ahead: mode 0 makes
// the file at least offset + length long (zeros, written when the file is
// settled), KEEP_SIZE has nothing to do; hole punching and the other modes
// are not supported.
int Fallocate(const char* path, int mode, off_t offset, off_t length, fuse_file_info* fi) {
  if (mode & ~FALLOC_FL_KEEP_SIZE) return -EOPNOTSUPP;
  if (offset < 0 || length <= 0) return -EINVAL;
  if (IsVirtual(path)) return -EACCES;
  if (mode & FALLOC_FL_KEEP_SIZE) return 0;
  struct stat st;
  int rc = GetAttr(path, &st, fi);
  if (rc != 0 || offset + length <= st.st_size) return rc;
  return Truncate(path, offset + length, fi);
}

int Rmdir(const char* path) { return IsVirtual(path) ? -EACCES : Errno(g_fs->Rmdir(path)); }
int Unlink(const char* path) { return IsVirtual(path) ? -EACCES : Errno(g_open_files.Unlink(g_fs.get(), path)); }
int Link(const char* from, const char* to) {
  return IsVirtual(from) || IsVirtual(to) ? -EACCES : Errno(g_fs->Link(from, to));
}

int Rename(const char* from, const char* to, unsigned int flags) {
  if (IsVirtual(from) || IsVirtual(to)) return -EACCES;
  if (flags & RENAME_EXCHANGE) return -EINVAL;
  if (flags & RENAME_NOREPLACE) {
    FileStat st;
    if (g_fs->Stat(to, &st).ok()) return -EEXIST;
  }
  return Errno(g_open_files.Rename(g_fs.get(), from, to));
}

int Utimens(const char* path, const struct timespec tv[2], fuse_file_info*) {
  if (path == nullptr || IsVirtual(path)) return 0;  // an unlinked file's time goes with it
  int64_t ns;
  if (tv == nullptr || tv[1].tv_nsec == UTIME_NOW) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    ns = static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
  } else if (tv[1].tv_nsec == UTIME_OMIT) {
    return 0;
  } else {
    ns = static_cast<int64_t>(tv[1].tv_sec) * 1000000000 + tv[1].tv_nsec;
  }
  return Errno(g_fs->SetMtime(path, ns));
}

// Modes and owners are kept with the inode (SetOwnership, both at once);
// the kernel checks them (default_permissions).
int SetOwnership(const char* path, const mode_t* mode, const uid_t* uid, const gid_t* gid) {
  if (IsVirtual(path)) return -EACCES;
  FileStat st;
  Status s = g_fs->Stat(path, &st);
  if (!s.ok()) return Errno(s);
  const bool set = st.mode & kModeSet;
  uint32_t m = mode != nullptr ? *mode : ModeBits(st);
  uint32_t u = uid != nullptr && *uid != static_cast<uid_t>(-1) ? *uid : set ? st.uid : getuid();
  uint32_t g = gid != nullptr && *gid != static_cast<gid_t>(-1) ? *gid : set ? st.gid : getgid();
  return Errno(g_fs->SetOwnership(path, m, u, g));
}
int Chmod(const char* path, mode_t mode, fuse_file_info*) { return SetOwnership(path, &mode, nullptr, nullptr); }
int Chown(const char* path, uid_t uid, gid_t gid, fuse_file_info*) { return SetOwnership(path, nullptr, &uid, &gid); }

// A new inode keeps the mode its creator asked for (less the umask) and the
// creator as owner, unless that is what it shows anyway (the daemon's user,
// 0644 or 0755): a store's files cost no extra journal op.
int KeepCreatorMode(const char* path, mode_t mode, bool dir) {
  const fuse_context* c = fuse_get_context();
  mode_t bits = mode & ~c->umask & kModeBits;
  if (bits == (dir ? 0755u : 0644u) && c->uid == getuid() && c->gid == getgid()) return 0;
  return SetOwnership(path, &bits, &c->uid, &c->gid);
}

int Create(const char* path, mode_t mode, fuse_file_info* fi) {
  int rc = OpenCommon(path, fi, true);
  if (rc != 0) return rc;
  rc = KeepCreatorMode(path, mode, /*dir=*/false);
  if (rc != 0) Release(path, fi);
  return rc;
}

int Mkdir(const char* path, mode_t mode) {
  if (IsVirtual(path)) return -EEXIST;
  Status s = g_fs->Mkdir(path);
  return s.ok() ? KeepCreatorMode(path, mode, /*dir=*/true) : Errno(s);
}

int Symlink(const char* target, const char* path) {
  if (IsVirtual(path)) return -EACCES;
  Status s = g_fs->Symlink(target, path);
  if (!s.ok()) return Errno(s);
  const fuse_context* c = fuse_get_context();
  if (c->uid == getuid() && c->gid == getgid()) return 0;
  mode_t bits = 0777;
  return SetOwnership(path, &bits, &c->uid, &c->gid);
}

// FIFOs, sockets and device nodes are recorded; the kernel serves them.
int Mknod(const char* path, mode_t mode, dev_t rdev) {
  if (IsVirtual(path)) return -EEXIST;
  if (S_ISREG(mode)) {  // create() is the usual way; mknod of a file makes it empty
    std::unique_ptr<FileWriter> w;
    Status s = g_fs->OpenWriter(path, WriteMode::kExclusive, &w);
    if (s.ok()) s = w->Close();
    return s.ok() ? KeepCreatorMode(path, mode, /*dir=*/false) : Errno(s);
  }
  Status s = g_fs->MakeSpecial(path, mode & S_IFMT, rdev);
  if (s.IsInvalidArgument()) return -EINVAL;
  return s.ok() ? KeepCreatorMode(path, mode, /*dir=*/false) : Errno(s);
}

int ReadLink(const char* path, char* buf, size_t size) {
  if (size == 0) return -EINVAL;
  std::string target;
  Status s = g_fs->ReadLink(path, &target);
  if (!s.ok()) return s.IsInvalidArgument() ? -EINVAL : Errno(s);
  size_t n = std::min(size - 1, target.size());  // cut short as readlink(2) does, NUL-terminated for FUSE
  std::memcpy(buf, target.data(), n);
  buf[n] = '\0';
  return 0;
}

int StatFs(const char*, struct statvfs* st) {
  std::vector<DeviceUsage> usage;
  Status s = g_fs->Usage(&usage);
  if (!s.ok()) return Errno(s);
  std::memset(st, 0, sizeof(*st));
  uint64_t total = 0, avail = 0;
  for (const DeviceUsage& u : usage) {
    total += u.raw_bytes - u.reserved_bytes - u.unusable_bytes;
    avail += u.free_bytes + u.garbage_bytes;  // garbage is reclaimed before "no space"
  }
  st->f_bsize = st->f_frsize = 4096;
  st->f_blocks = total / 4096;
  st->f_bfree = st->f_bavail = avail / 4096;
  st->f_files = 1 << 30;
  st->f_ffree = (1 << 30) - g_fs->Stats().files;
  st->f_namemax = 255;
  return 0;
}

int Access(const char* path, int) {
  if (IsVirtual(path)) return 0;
  FileStat st;
  return Errno(g_fs->Stat(path, &st));
}

fuse_operations Operations() {
  fuse_operations ops;
  std::memset(&ops, 0, sizeof(ops));
  ops.init = Init;
  ops.getattr = GetAttr;
  ops.readdir = ReadDir;
  ops.open = Open;
  ops.create = Create;
  ops.read = Read;
  ops.write = Write;
  ops.flush = Flush;
  ops.fsync = Fsync;
  ops.fsyncdir = FsyncDir;
  ops.release = Release;
  ops.truncate = Truncate;
  ops.mkdir = Mkdir;
  ops.rmdir = Rmdir;
  ops.unlink = Unlink;
  ops.link = Link;
  ops.rename = Rename;
  ops.utimens = Utimens;
  ops.chmod = Chmod;
  ops.chown = Chown;
  ops.statfs = StatFs;
  ops.access = Access;
  ops.symlink = Symlink;
  ops.readlink = ReadLink;
  ops.mknod = Mknod;
  ops.fallocate = Fallocate;
  return ops;
}

}  // namespace

int RunFuseMount(const FuseMountOptions& o) {
  // Check the mountpoint and the spec before detaching, so that a bad one
  // is reported here.
  Status ready = CheckBeforeMounting(o);
  if (!ready.ok()) {
    std::fprintf(stderr, "hintfs mount: %s\n", ready.ToString().c_str());
    return ready.IsBusy() ? kExitFailed : kExitUsage;
  }
  {
    std::shared_ptr<Filesystem> probe;
    Status s = AcquireMount(MountSpec(o), &probe);
    if (!s.ok()) {
      std::fprintf(stderr, "hintfs mount: %s\n", s.ToString().c_str());
      // Spec keys and values are checked here (bad usage); the rest is
      // as for every command.
      return s.IsInvalidArgument() ? kExitUsage : ExitStatusFor(s);
    }
  }
  std::vector<std::string> args = FuseArguments(o, &g_writeback);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(&a[0]);
  fuse_args fargs = FUSE_ARGS_INIT(static_cast<int>(argv.size()), argv.data());
  fuse_operations ops = Operations();
  fuse* f = nullptr;
  {
    FuseLogCapture capture;
    f = fuse_new(&fargs, &ops, sizeof(ops), nullptr);
    if (f == nullptr) {
      std::fprintf(stderr, "hintfs mount: bad FUSE options: %s\n", FuseLogCapture::Text().c_str());
      return kExitUsage;
    }
    if (fuse_mount(f, o.mountpoint.c_str()) != 0) {
      fuse_destroy(f);
      std::fprintf(stderr, "hintfs mount: cannot mount on %s: %s\n", o.mountpoint.c_str(),
                   FuseLogCapture::Text().c_str());
      return kExitFailed;
    }
    FuseLogCapture::Print();
  }
  if (g_writeback) {
    std::string bdi;
    Status lifted = MountDeviceName(o.mountpoint, &bdi);
    if (lifted.ok()) lifted = LiftDirtyLimit(bdi);
    if (!lifted.ok()) {
      std::fprintf(stderr, "hintfs mount: writers will be throttled early: %s\n", lifted.ToString().c_str());
    }
  }
  // Detach before any thread starts: the mount's threads must live in the daemon.
  if (fuse_daemonize(o.foreground ? 1 : 0) != 0) {
    fuse_unmount(f);
    fuse_destroy(f);
    return kExitFailed;
  }
  std::shared_ptr<HintBus> bus;
  Status s = AcquireMount(MountSpec(o), &g_fs, &bus);
  int rc = 0;
  uint64_t subscription = 0;
  if (!s.ok()) {
    std::fprintf(stderr, "hintfs mount: %s\n", s.ToString().c_str());
    rc = ExitStatusFor(s);
  } else {
    g_invalidator.Start(f);
    if (g_writeback) subscription = bus->Subscribe(DropRecordedTablesFromPageCache);
    fuse_set_signal_handlers(fuse_get_session(f));
    rc = fuse_loop_mt(f, 0) == 0 ? kExitOk : kExitFailed;
    fuse_remove_signal_handlers(fuse_get_session(f));
  }
  if (subscription != 0) bus->Unsubscribe(subscription);
  fuse_unmount(f);
  // After the connection ends, so an invalidation waiting on the kernel
  // returns; before the session goes.
  g_invalidator.Stop();
  fuse_destroy(f);
  g_open_files.CloseAll();
  g_fs.reset();  // the last reference: services stop, the filesystem unmounts cleanly
  return rc;
}

}  // namespace hintfs
