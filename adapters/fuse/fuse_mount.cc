#define FUSE_USE_VERSION 31

#include "adapters/fuse/fuse_mount.h"

#include <fuse.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "adapters/common/mount_registry.h"
#include "cache/caching_filesystem.h"

namespace hintfs {

namespace {

constexpr char kStatsDir[] = "/.hintfs";
constexpr char kStatsJson[] = "/.hintfs/stats.json";
constexpr char kMetrics[] = "/.hintfs/metrics";

// The mount every callback works on (one per daemon).
std::shared_ptr<Filesystem> g_fs;

int Errno(const Status& s) {
  if (s.ok()) return 0;
  const std::string& m = s.message();
  if (m.find("directory not empty") != std::string::npos) return -ENOTEMPTY;
  if (m.find("is not a directory") != std::string::npos) return -ENOTDIR;
  if (m.find(" is a directory") != std::string::npos) return -EISDIR;
  return -(s.errno_value() != 0 ? s.errno_value() : EIO);
}

bool IsVirtual(const char* path) {
  return std::strcmp(path, kStatsDir) == 0 || std::strcmp(path, kStatsJson) == 0 ||
         std::strcmp(path, kMetrics) == 0;
}

nlohmann::json StatsJson() {
  using json = nlohmann::json;
  FsStats st = g_fs->Stats();
  json j;
  j["policy"] = g_fs->policy_name();
  j["policy_state"] = json::parse(g_fs->PolicyStateJson(), nullptr, false);
  j["files"] = st.files;
  j["directories"] = st.directories;
  j["bytes_written"] = {{"fast", st.bytes_written[0]}, {"slow", st.bytes_written[1]}};
  j["bytes_read"] = {{"fast", st.bytes_read[0]}, {"slow", st.bytes_read[1]}};
  j["migrated_bytes"] = {{"to_fast", st.migrated_bytes[0]}, {"to_slow", st.migrated_bytes[1]}};
  j["zone_resets"] = st.zone_resets;
  j["gc_runs"] = st.gc_runs;
  j["journal_commits"] = st.journal_commits;
  std::vector<DeviceUsage> usage;
  if (g_fs->Usage(&usage).ok()) {
    for (const DeviceUsage& u : usage) {
      j["devices"].push_back({{"uri", u.uri}, {"tier", TierName(u.tier)}, {"live_bytes", u.live_bytes},
                              {"free_bytes", u.free_bytes}, {"garbage_bytes", u.garbage_bytes},
                              {"empty_zones", u.empty_zones}, {"data_zones", u.data_zones}});
    }
  }
  if (auto* caching = dynamic_cast<CachingFilesystem*>(g_fs.get())) {
    j["cache"] = json::parse(caching->cache()->StatsJson(), nullptr, false);
  }
  return j;
}

std::string Metrics() {
  nlohmann::json j = StatsJson();
  std::string out;
  auto metric = [&](const char* name, const char* help, const std::string& labels, uint64_t v) {
    out += fmt::format("# HELP hintfs_{} {}\n# TYPE hintfs_{} counter\nhintfs_{}{} {}\n", name, help, name, name,
                       labels, v);
  };
  metric("bytes_written_fast", "bytes written to fast devices", "", j["bytes_written"]["fast"].get<uint64_t>());
  metric("bytes_written_slow", "bytes written to slow devices", "", j["bytes_written"]["slow"].get<uint64_t>());
  metric("bytes_read_fast", "bytes read from fast devices", "", j["bytes_read"]["fast"].get<uint64_t>());
  metric("bytes_read_slow", "bytes read from slow devices", "", j["bytes_read"]["slow"].get<uint64_t>());
  metric("migrated_to_fast_bytes", "bytes migrated to the fast tier", "", j["migrated_bytes"]["to_fast"].get<uint64_t>());
  metric("migrated_to_slow_bytes", "bytes migrated to the slow tier", "", j["migrated_bytes"]["to_slow"].get<uint64_t>());
  metric("zone_resets", "zones reset", "", j["zone_resets"].get<uint64_t>());
  metric("journal_commits", "journal batches committed", "", j["journal_commits"].get<uint64_t>());
  for (const auto& d : j["devices"]) {
    std::string labels = fmt::format("{{device=\"{}\",tier=\"{}\"}}", d["uri"].get<std::string>(),
                                     d["tier"].get<std::string>());
    out += fmt::format("hintfs_device_live_bytes{} {}\n", labels, d["live_bytes"].get<uint64_t>());
    out += fmt::format("hintfs_device_free_bytes{} {}\n", labels, d["free_bytes"].get<uint64_t>());
  }
  if (j.contains("cache") && j["cache"].is_object()) {
    metric("cache_hits", "block cache hits", "", j["cache"].value("hits", 0ull));
    metric("cache_misses", "block cache misses", "", j["cache"].value("misses", 0ull));
    metric("cache_admitted", "blocks admitted to the block cache", "", j["cache"].value("admitted", 0ull));
  }
  return out;
}

// An open file: the writer is taken at the first write, so opening a file
// read-write only to read it does not shut other writers out.
struct Handle {
  std::mutex mu;
  std::string path;
  std::unique_ptr<FileWriter> writer;
  std::unique_ptr<FileReader> reader;
  std::string content;  // virtual files: made at open
  bool is_virtual = false;
};

Handle* H(fuse_file_info* fi) { return reinterpret_cast<Handle*>(fi->fh); }

void* Init(fuse_conn_info*, fuse_config* cfg) {
  cfg->use_ino = 1;
  // Sizes change with every append: the kernel must ask rather than cache.
  cfg->attr_timeout = 0;
  cfg->entry_timeout = 0;
  cfg->negative_timeout = 0;
  cfg->kernel_cache = 0;
  cfg->hard_remove = 1;  // unlinked open files are ours to keep readable
  return nullptr;
}

int GetAttr(const char* path, struct stat* st, fuse_file_info*) {
  std::memset(st, 0, sizeof(*st));
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
  st->st_ino = fst.inode;
  st->st_mode = fst.type == FileType::kDirectory ? (S_IFDIR | 0755) : (S_IFREG | 0644);
  st->st_nlink = fst.type == FileType::kDirectory ? 2 : fst.nlink;
  st->st_size = static_cast<off_t>(fst.size);
  st->st_blksize = 4096;
  st->st_blocks = static_cast<blkcnt_t>((fst.size + 511) / 512);
  st->st_mtim.tv_sec = fst.mtime_ns / 1000000000;
  st->st_mtim.tv_nsec = fst.mtime_ns % 1000000000;
  st->st_ctim = st->st_atim = st->st_mtim;
  st->st_uid = getuid();
  st->st_gid = getgid();
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
    if (std::strcmp(path, "/") == 0 && "/" + e.name == kCacheDirectory) continue;  // the cache's own
    fill(buf, e.name.c_str(), nullptr, 0, static_cast<fuse_fill_dir_flags>(0));
  }
  return 0;
}

int OpenCommon(const char* path, fuse_file_info* fi, bool create) {
  auto h = std::make_unique<Handle>();
  h->path = path;
  if (IsVirtual(path)) {
    if ((fi->flags & O_ACCMODE) != O_RDONLY || create) return -EACCES;
    h->is_virtual = true;
    h->content = std::strcmp(path, kStatsJson) == 0 ? StatsJson().dump(2) + "\n" : Metrics();
    fi->direct_io = 1;  // its size is not known before it is read
  } else {
    if (create) {
      // Creating takes the writer at once (O_EXCL is the kernel's check).
      Status s = g_fs->OpenWriter(path, (fi->flags & O_EXCL) ? WriteMode::kExclusive : WriteMode::kAppend,
                                  &h->writer);
      if (!s.ok()) return Errno(s);
    } else {
      FileStat st;
      Status s = g_fs->Stat(path, &st);
      if (!s.ok()) return Errno(s);
      if (st.type == FileType::kDirectory) return -EISDIR;
    }
    if ((fi->flags & O_TRUNC) && (fi->flags & O_ACCMODE) != O_RDONLY) {
      Status s = g_fs->Truncate(path, 0);
      if (!s.ok()) return Errno(s);
    }
    if (fi->flags & O_DIRECT) fi->direct_io = 1;
  }
  fi->fh = reinterpret_cast<uint64_t>(h.release());
  return 0;
}

int Open(const char* path, fuse_file_info* fi) { return OpenCommon(path, fi, false); }
int Create(const char* path, mode_t, fuse_file_info* fi) { return OpenCommon(path, fi, true); }

int Read(const char*, char* buf, size_t size, off_t off, fuse_file_info* fi) {
  Handle* h = H(fi);
  std::lock_guard<std::mutex> l(h->mu);
  if (h->is_virtual) {
    if (static_cast<size_t>(off) >= h->content.size()) return 0;
    size_t n = std::min(size, h->content.size() - static_cast<size_t>(off));
    std::memcpy(buf, h->content.data() + off, n);
    return static_cast<int>(n);
  }
  if (!h->reader) {
    Status s = g_fs->OpenReader(h->path, &h->reader);
    if (!s.ok()) return Errno(s);
  }
  size_t got = 0;
  Status s = h->reader->Read(static_cast<uint64_t>(off), size, buf, &got);
  if (!s.ok()) return Errno(s);
  return static_cast<int>(got);
}

int Write(const char*, const char* buf, size_t size, off_t off, fuse_file_info* fi) {
  Handle* h = H(fi);
  std::lock_guard<std::mutex> l(h->mu);
  if (h->is_virtual) return -EACCES;
  if (!h->writer) {
    Status s = g_fs->OpenWriter(h->path, WriteMode::kAppend, &h->writer);
    if (!s.ok()) return Errno(s);
  }
  // Zoned storage appends: a write anywhere but the end cannot be taken.
  if (static_cast<uint64_t>(off) != h->writer->Size()) return -EINVAL;
  Status s = h->writer->Append(std::string_view(buf, size));
  if (!s.ok()) return Errno(s);
  return static_cast<int>(size);
}

// Called at every close() of the file, synchronously, while the kernel sends
// the release later: the writer is given up here, so a program that closes a
// file and opens it again to append does not find it still "open for
// writing". A later write through a duplicate of the descriptor takes a
// writer again.
int Flush(const char*, fuse_file_info* fi) {
  Handle* h = H(fi);
  std::lock_guard<std::mutex> l(h->mu);
  if (!h->writer) return 0;
  Status s = h->writer->Close();
  h->writer.reset();
  return Errno(s);
}

int Fsync(const char*, int, fuse_file_info* fi) {
  Handle* h = H(fi);
  std::lock_guard<std::mutex> l(h->mu);
  if (h->writer) return Errno(h->writer->Sync());
  return Errno(g_fs->SyncMetadata());  // nothing of ours buffered: the namespace
}

int FsyncDir(const char*, int, fuse_file_info*) { return Errno(g_fs->SyncMetadata()); }

int Release(const char*, fuse_file_info* fi) {
  std::unique_ptr<Handle> h(H(fi));
  std::lock_guard<std::mutex> l(h->mu);
  if (h->writer) return Errno(h->writer->Close());
  return 0;
}

int Truncate(const char* path, off_t size, fuse_file_info* fi) {
  if (IsVirtual(path)) return -EACCES;
  if (fi != nullptr && H(fi)->writer) {
    // Through the writer's file, which then continues from the new end.
    Handle* h = H(fi);
    std::lock_guard<std::mutex> l(h->mu);
    Status s = h->writer->Flush();
    if (s.ok()) s = g_fs->Truncate(path, static_cast<uint64_t>(size));
    return Errno(s);
  }
  return Errno(g_fs->Truncate(path, static_cast<uint64_t>(size)));
}

int Mkdir(const char* path, mode_t) { return IsVirtual(path) ? -EEXIST : Errno(g_fs->Mkdir(path)); }
int Rmdir(const char* path) { return IsVirtual(path) ? -EACCES : Errno(g_fs->Rmdir(path)); }
int Unlink(const char* path) { return IsVirtual(path) ? -EACCES : Errno(g_fs->Unlink(path)); }
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
  return Errno(g_fs->Rename(from, to));
}

int Utimens(const char* path, const struct timespec tv[2], fuse_file_info*) {
  if (IsVirtual(path)) return 0;
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

// Permissions are not kept: files are 0644 and directories 0755.
int Chmod(const char*, mode_t, fuse_file_info*) { return 0; }
int Chown(const char*, uid_t, gid_t, fuse_file_info*) { return 0; }

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
  return ops;
}

}  // namespace

int RunFuseMount(const FuseMountOptions& o) {
  // Check the spec before detaching, so a bad one is reported here.
  {
    std::shared_ptr<Filesystem> probe;
    Status s = AcquireMount(o.spec, &probe);
    if (!s.ok()) {
      std::fprintf(stderr, "hintfs mount: %s\n", s.ToString().c_str());
      return s.IsInvalidArgument() || s.IsNotFound() ? 2 : 1;
    }
  }
  std::vector<std::string> args = {"hintfs"};
  if (o.debug) args.push_back("-d");
  for (const std::string& opt : o.fuse_options) {
    args.push_back("-o");
    args.push_back(opt);
  }
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(&a[0]);
  fuse_args fargs = FUSE_ARGS_INIT(static_cast<int>(argv.size()), argv.data());
  fuse_operations ops = Operations();
  fuse* f = fuse_new(&fargs, &ops, sizeof(ops), nullptr);
  if (f == nullptr) {
    std::fprintf(stderr, "hintfs mount: bad FUSE options\n");
    return 2;
  }
  if (fuse_mount(f, o.mountpoint.c_str()) != 0) {
    fuse_destroy(f);
    std::fprintf(stderr, "hintfs mount: cannot mount on %s\n", o.mountpoint.c_str());
    return 1;
  }
  // Detach before any thread starts: the mount's threads must live in the daemon.
  if (fuse_daemonize(o.foreground ? 1 : 0) != 0) {
    fuse_unmount(f);
    fuse_destroy(f);
    return 1;
  }
  Status s = AcquireMount(o.spec, &g_fs);
  int rc = 0;
  if (!s.ok()) {
    std::fprintf(stderr, "hintfs mount: %s\n", s.ToString().c_str());
    rc = 1;
  } else {
    fuse_set_signal_handlers(fuse_get_session(f));
    rc = fuse_loop_mt(f, 0) == 0 ? 0 : 1;
    fuse_remove_signal_handlers(fuse_get_session(f));
  }
  fuse_unmount(f);
  fuse_destroy(f);
  g_fs.reset();  // the last reference: services stop, the filesystem unmounts cleanly
  return rc;
}

}  // namespace hintfs
