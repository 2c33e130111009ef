// The rocksdb::FileSystem over hintfs: every call maps onto the core's API.
#include <sys/time.h>

#include <cstdarg>
#include <cstdio>
#include <ctime>
#include <mutex>

#include <rocksdb/env.h>

#include "adapters/common/mount_registry.h"
#include "adapters/rocksdb/hintfs_rocksdb.h"
#include "fs/walk.h"

namespace hintfs {

namespace {

using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

// As RocksDB's POSIX FileSystem answers: a missing file or directory is an
// IOError with the PathNotFound subcode (what RocksDB tests for), except for
// FileExists, whose contract is NotFound.
IOStatus ToIO(const Status& s) {
  if (s.ok()) return IOStatus::OK();
  const std::string& m = s.message();
  switch (s.code()) {
    case Status::Code::kNotFound: return IOStatus::PathNotFound(m);
    case Status::Code::kCorruption: return IOStatus::Corruption(m);
    case Status::Code::kNotSupported: return IOStatus::NotSupported(m);
    case Status::Code::kInvalidArgument: return IOStatus::InvalidArgument(m);
    case Status::Code::kNoSpace: return IOStatus::NoSpace(m);
    case Status::Code::kBusy: return IOStatus::Busy(m);
    default: return IOStatus::IOError(s.ToString());
  }
}

// Every handle keeps the mount alive: RocksDB may destroy the FileSystem
// (or Env) before the last file or its info log.
using Mount = std::shared_ptr<Filesystem>;

class SequentialFile : public rocksdb::FSSequentialFile {
 public:
  SequentialFile(Mount m, std::unique_ptr<FileReader> r) : m_(std::move(m)), r_(std::move(r)) {}
  IOStatus Read(size_t n, const IOOptions&, Slice* result, char* scratch, IODebugContext*) override {
    size_t got = 0;
    Status s = r_->Read(pos_, n, scratch, &got);
    if (!s.ok()) return ToIO(s);
    pos_ += got;
    *result = Slice(scratch, got);
    return IOStatus::OK();
  }
  IOStatus PositionedRead(uint64_t offset, size_t n, const IOOptions&, Slice* result, char* scratch,
                          IODebugContext*) override {
    size_t got = 0;
    Status s = r_->Read(offset, n, scratch, &got);
    *result = Slice(scratch, got);
    return ToIO(s);
  }
  IOStatus Skip(uint64_t n) override {
    pos_ = std::min(pos_ + n, r_->Size());
    return IOStatus::OK();
  }

 private:
  Mount m_;  // destroyed last
  std::unique_ptr<FileReader> r_;
  uint64_t pos_ = 0;
};

class RandomAccessFile : public rocksdb::FSRandomAccessFile {
 public:
  RandomAccessFile(Mount m, std::unique_ptr<FileReader> r, bool direct)
      : m_(std::move(m)), r_(std::move(r)), direct_(direct) {}
  IOStatus Read(uint64_t offset, size_t n, const IOOptions&, Slice* result, char* scratch,
                IODebugContext*) const override {
    if (scratch == nullptr) return PinnedRead(offset, n, result);
    size_t got = 0;
    Status s = r_->Read(offset, n, scratch, &got);
    *result = Slice(scratch, got);
    return ToIO(s);
  }
  // hintfs reads need no alignment, so "direct" reads are served as asked.
  bool use_direct_io() const override { return direct_; }
  size_t GetRequiredBufferAlignment() const override { return 4096; }

 private:
  // With allow_mmap_reads RocksDB passes no buffer and keeps the slice while
  // the file is open, as it would a mapping: the file is read whole into
  // memory that lives as long as this handle (again if it grew).
  IOStatus PinnedRead(uint64_t offset, size_t n, Slice* result) const {
    std::lock_guard<std::mutex> l(pin_mu_);
    if (pinned_.empty() || pinned_.back()->size() < std::min<uint64_t>(offset + n, r_->Size())) {
      auto whole = std::make_unique<std::string>(r_->Size(), '\0');
      size_t got = 0;
      Status s = r_->Read(0, whole->size(), &(*whole)[0], &got);
      if (!s.ok()) return ToIO(s);
      whole->resize(got);
      pinned_.push_back(std::move(whole));  // earlier copies stay: slices into them live on
    }
    const std::string& whole = *pinned_.back();
    uint64_t from = std::min<uint64_t>(offset, whole.size());
    *result = Slice(whole.data() + from, std::min<uint64_t>(n, whole.size() - from));
    return IOStatus::OK();
  }

  Mount m_;
  std::unique_ptr<FileReader> r_;
  bool direct_;
  mutable std::mutex pin_mu_;
  mutable std::vector<std::unique_ptr<std::string>> pinned_;
};

class WritableFile : public rocksdb::FSWritableFile {
 public:
  WritableFile(Mount fs, std::string path, std::unique_ptr<FileWriter> w, const rocksdb::FileOptions& o)
      : rocksdb::FSWritableFile(o), fs_(std::move(fs)), path_(std::move(path)), w_(std::move(w)) {}
  ~WritableFile() override { w_->Close(); }

  IOStatus Append(const Slice& data, const IOOptions&, IODebugContext*) override {
    return ToIO(w_->Append(std::string_view(data.data(), data.size())));
  }
  IOStatus Append(const Slice& data, const IOOptions& o, const rocksdb::DataVerificationInfo&,
                  IODebugContext* dbg) override {
    return Append(data, o, dbg);
  }
  IOStatus Truncate(uint64_t size, const IOOptions&, IODebugContext*) override {
    return ToIO(fs_->Truncate(path_, size));
  }
  IOStatus Close(const IOOptions&, IODebugContext*) override { return ToIO(w_->Close()); }
  IOStatus Flush(const IOOptions&, IODebugContext*) override { return ToIO(w_->Flush()); }
  IOStatus Sync(const IOOptions&, IODebugContext*) override { return ToIO(w_->Sync()); }
  IOStatus Fsync(const IOOptions&, IODebugContext*) override { return ToIO(w_->Sync()); }
  bool IsSyncThreadSafe() const override { return true; }
  // RocksDB sets it right after opening, before the first append: in time to
  // steer where the file's first zone comes from.
  void SetWriteLifeTimeHint(rocksdb::Env::WriteLifeTimeHint hint) override {
    rocksdb::FSWritableFile::SetWriteLifeTimeHint(hint);
    w_->SetLifetimeHint(static_cast<int>(hint));
  }
  uint64_t GetFileSize(const IOOptions&, IODebugContext*) override { return w_->Size(); }

 private:
  Mount fs_;
  std::string path_;
  std::unique_ptr<FileWriter> w_;
};

// Writes anywhere in a file (ingested tables get their global sequence
// number patched in): FileWriter::WriteAt, written out of place by the core.
class RandomRWFile : public rocksdb::FSRandomRWFile {
 public:
  RandomRWFile(Mount fs, std::unique_ptr<FileWriter> w, std::unique_ptr<FileReader> r)
      : fs_(std::move(fs)), w_(std::move(w)), r_(std::move(r)) {}
  IOStatus Write(uint64_t offset, const Slice& data, const IOOptions&, IODebugContext*) override {
    return ToIO(w_->WriteAt(offset, std::string_view(data.data(), data.size())));
  }
  IOStatus Read(uint64_t offset, size_t n, const IOOptions&, Slice* result, char* scratch,
                IODebugContext*) const override {
    size_t got = 0;
    Status s = r_->Read(offset, n, scratch, &got);
    *result = Slice(scratch, got);
    return ToIO(s);
  }
  IOStatus Flush(const IOOptions&, IODebugContext*) override { return ToIO(w_->Flush()); }
  IOStatus Sync(const IOOptions&, IODebugContext*) override { return ToIO(w_->Sync()); }
  IOStatus Fsync(const IOOptions& o, IODebugContext* d) override { return Sync(o, d); }
  IOStatus Close(const IOOptions&, IODebugContext*) override { return ToIO(w_->Close()); }

 private:
  Mount fs_;  // outlives the handles
  std::unique_ptr<FileWriter> w_;
  std::unique_ptr<FileReader> r_;
};

class Directory : public rocksdb::FSDirectory {
 public:
  explicit Directory(Mount fs) : fs_(std::move(fs)) {}
  IOStatus Fsync(const IOOptions&, IODebugContext*) override { return ToIO(fs_->SyncMetadata()); }
  IOStatus Close(const IOOptions&, IODebugContext*) override { return IOStatus::OK(); }

 private:
  Mount fs_;
};

class Lock : public rocksdb::FileLock {
 public:
  Lock(Mount m, std::unique_ptr<hintfs::FileLock> lock) : m_(std::move(m)), lock_(std::move(lock)) {}

 private:
  Mount m_;
  std::unique_ptr<hintfs::FileLock> lock_;
};

// RocksDB's info log, as a hintfs file.
class Logger : public rocksdb::Logger {
 public:
  Logger(Mount m, std::unique_ptr<FileWriter> w) : m_(std::move(m)), w_(std::move(w)) {}
  ~Logger() override { CloseImpl(); }
  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override {
    char buf[1024];
    struct timeval now;
    gettimeofday(&now, nullptr);
    struct tm t;
    localtime_r(&now.tv_sec, &t);
    int n = std::snprintf(buf, sizeof(buf), "%04d/%02d/%02d-%02d:%02d:%02d.%06ld ", t.tm_year + 1900,
                          t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec,
                          static_cast<long>(now.tv_usec));
    va_list copy;
    va_copy(copy, ap);
    int m = std::vsnprintf(buf + n, sizeof(buf) - static_cast<size_t>(n), format, copy);
    va_end(copy);
    std::string line(buf, static_cast<size_t>(n));
    if (m >= 0 && static_cast<size_t>(n + m) < sizeof(buf)) {
      line.append(buf + n, static_cast<size_t>(m));
    } else if (m >= 0) {  // long line
      std::string big(static_cast<size_t>(m) + 1, '\0');
      va_copy(copy, ap);
      std::vsnprintf(&big[0], big.size(), format, copy);
      va_end(copy);
      big.resize(static_cast<size_t>(m));
      line += big;
    }
    if (line.empty() || line.back() != '\n') line += '\n';
    std::lock_guard<std::mutex> l(mu_);
    if (w_) w_->Append(line);
  }
  void Flush() override {
    std::lock_guard<std::mutex> l(mu_);
    if (w_) w_->Flush();
  }

 protected:
  rocksdb::Status CloseImpl() override {
    std::lock_guard<std::mutex> l(mu_);
    if (!w_) return rocksdb::Status::OK();
    Status s = w_->Close();
    w_.reset();
    return s.ok() ? rocksdb::Status::OK() : rocksdb::Status::IOError(s.ToString());
  }

 private:
  Mount m_;
  std::mutex mu_;
  std::unique_ptr<FileWriter> w_;
};

class HintRocksFileSystem : public rocksdb::FileSystem {
 public:
  HintRocksFileSystem(std::shared_ptr<Filesystem> fs, std::shared_ptr<HintBus> bus)
      : fs_(std::move(fs)), bus_(std::move(bus)) {}

  static const char* kClassName() { return "HintfsFileSystem"; }
  const char* Name() const override { return kClassName(); }

  IOStatus NewSequentialFile(const std::string& f, const rocksdb::FileOptions&,
                             std::unique_ptr<rocksdb::FSSequentialFile>* result,
                             IODebugContext*) override {
    std::unique_ptr<FileReader> r;
    Status s = fs_->OpenReader(f, &r);
    if (s.ok()) result->reset(new SequentialFile(fs_, std::move(r)));
    return ToIO(s);
  }

  IOStatus NewRandomAccessFile(const std::string& f, const rocksdb::FileOptions& o,
                               std::unique_ptr<rocksdb::FSRandomAccessFile>* result,
                               IODebugContext*) override {
    std::unique_ptr<FileReader> r;
    Status s = fs_->OpenReader(f, &r);
    if (s.ok()) result->reset(new RandomAccessFile(fs_, std::move(r), o.use_direct_reads));
    return ToIO(s);
  }

  IOStatus NewWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                           std::unique_ptr<rocksdb::FSWritableFile>* result,
                           IODebugContext*) override {
    return OpenWritable(f, WriteMode::kTruncate, o, result);
  }

  IOStatus ReopenWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                              std::unique_ptr<rocksdb::FSWritableFile>* result,
                              IODebugContext*) override {
    return OpenWritable(f, WriteMode::kAppend, o, result);
  }

  IOStatus ReuseWritableFile(const std::string& f, const std::string& old, const rocksdb::FileOptions& o,
                             std::unique_ptr<rocksdb::FSWritableFile>* result,
                             IODebugContext*) override {
    Status s = fs_->Rename(old, f);
    if (!s.ok()) return ToIO(s);
    return OpenWritable(f, WriteMode::kTruncate, o, result);
  }

  IOStatus NewRandomRWFile(const std::string& f, const rocksdb::FileOptions&,
                           std::unique_ptr<rocksdb::FSRandomRWFile>* result, IODebugContext*) override {
    // Created if missing, as POSIX's O_CREAT | O_RDWR.
    std::unique_ptr<FileWriter> w;
    std::unique_ptr<FileReader> r;
    Status s = fs_->OpenWriter(f, WriteMode::kAppend, &w);
    if (s.ok()) s = fs_->OpenReader(f, &r);
    if (s.ok()) result->reset(new RandomRWFile(fs_, std::move(w), std::move(r)));
    return ToIO(s);
  }

  IOStatus NewDirectory(const std::string& name, const IOOptions&,
                        std::unique_ptr<rocksdb::FSDirectory>* result, IODebugContext*) override {
    FileStat st;
    Status s = fs_->Stat(name, &st);
    if (s.ok() && st.type != FileType::kDirectory) s = Status::InvalidArgument(name + " is not a directory");
    if (s.ok()) result->reset(new Directory(fs_));
    return ToIO(s);
  }

  IOStatus FileExists(const std::string& f, const IOOptions&, IODebugContext*) override {
    FileStat st;
    Status s = fs_->Stat(f, &st);
    return s.IsNotFound() ? IOStatus::NotFound(s.message()) : ToIO(s);
  }

  IOStatus GetChildren(const std::string& dir, const IOOptions&, std::vector<std::string>* result,
                       IODebugContext*) override {
    std::vector<DirEntry> entries;
    Status s = fs_->ReadDir(dir, &entries);
    result->clear();
    for (const DirEntry& e : entries) result->push_back(e.name);
    return ToIO(s);
  }

  // No hint here: every mount's level inference announces the unlink of a
  // log or any other non-table file, and a table's deletion comes from the
  // listener and the MANIFEST with its level.
  IOStatus DeleteFile(const std::string& f, const IOOptions&, IODebugContext*) override {
    return ToIO(fs_->Unlink(f));
  }

  IOStatus Truncate(const std::string& f, size_t size, const IOOptions&, IODebugContext*) override {
    return ToIO(fs_->Truncate(f, size));
  }

  IOStatus CreateDir(const std::string& d, const IOOptions&, IODebugContext*) override {
    return ToIO(fs_->Mkdir(d));
  }

  IOStatus CreateDirIfMissing(const std::string& d, const IOOptions&, IODebugContext*) override {
    // Like mkdir -p: a fresh hintfs has only "/", and RocksDB paths are deep.
    Status s = MakeDirectories(fs_.get(), d);
    if (!s.ok()) return ToIO(s);
    FileStat st;
    s = fs_->Stat(d, &st);
    if (s.ok() && st.type != FileType::kDirectory) return IOStatus::IOError(d + " exists and is not a directory");
    return ToIO(s);
  }

  IOStatus DeleteDir(const std::string& d, const IOOptions&, IODebugContext*) override {
    return ToIO(fs_->Rmdir(d));
  }

  IOStatus GetFileSize(const std::string& f, const IOOptions&, uint64_t* size, IODebugContext*) override {
    FileStat st;
    Status s = fs_->Stat(f, &st);
    *size = st.size;
    return ToIO(s);
  }

  IOStatus GetFileModificationTime(const std::string& f, const IOOptions&, uint64_t* mtime,
                                   IODebugContext*) override {
    FileStat st;
    Status s = fs_->Stat(f, &st);
    *mtime = static_cast<uint64_t>(st.mtime_ns / 1000000000);
    return ToIO(s);
  }

  IOStatus RenameFile(const std::string& src, const std::string& dst, const IOOptions&,
                      IODebugContext*) override {
    return ToIO(fs_->Rename(src, dst));
  }

  IOStatus LinkFile(const std::string& src, const std::string& dst, const IOOptions&,
                    IODebugContext*) override {
    return ToIO(fs_->Link(src, dst));
  }

  IOStatus NumFileLinks(const std::string& f, const IOOptions&, uint64_t* count, IODebugContext*) override {
    FileStat st;
    Status s = fs_->Stat(f, &st);
    *count = st.nlink;
    return ToIO(s);
  }

  IOStatus AreFilesSame(const std::string& a, const std::string& b, const IOOptions&, bool* res,
                        IODebugContext*) override {
    FileStat sa, sb;
    Status s = fs_->Stat(a, &sa);
    if (s.ok()) s = fs_->Stat(b, &sb);
    *res = s.ok() && sa.inode == sb.inode;
    return ToIO(s);
  }

  IOStatus LockFile(const std::string& f, const IOOptions&, rocksdb::FileLock** lock, IODebugContext*) override {
    std::unique_ptr<hintfs::FileLock> held;
    Status s = fs_->Lock(f, &held);
    if (s.IsBusy()) return IOStatus::IOError("lock " + f + ": already held by this process");
    if (s.ok()) *lock = new Lock(fs_, std::move(held));
    return ToIO(s);
  }

  IOStatus UnlockFile(rocksdb::FileLock* lock, const IOOptions&, IODebugContext*) override {
    delete lock;
    return IOStatus::OK();
  }

  IOStatus GetTestDirectory(const IOOptions& o, std::string* path, IODebugContext* dbg) override {
    *path = "/tmp/hintfs-rocksdb-test";
    return CreateDirIfMissing(*path, o, dbg);
  }

  IOStatus NewLogger(const std::string& f, const IOOptions&, std::shared_ptr<rocksdb::Logger>* result,
                     IODebugContext*) override {
    std::unique_ptr<FileWriter> w;
    Status s = fs_->OpenWriter(f, WriteMode::kTruncate, &w);
    if (s.ok()) *result = std::make_shared<Logger>(fs_, std::move(w));
    return ToIO(s);
  }

  IOStatus GetAbsolutePath(const std::string& path, const IOOptions&, std::string* out,
                           IODebugContext*) override {
    *out = !path.empty() && path[0] == '/' ? path : "/" + path;
    return IOStatus::OK();
  }

  IOStatus IsDirectory(const std::string& path, const IOOptions&, bool* is_dir, IODebugContext*) override {
    FileStat st;
    Status s = fs_->Stat(path, &st);
    *is_dir = s.ok() && st.type == FileType::kDirectory;
    return ToIO(s);
  }

  IOStatus GetFreeSpace(const std::string&, const IOOptions&, uint64_t* free, IODebugContext*) override {
    std::vector<DeviceUsage> usage;
    Status s = fs_->Usage(&usage);
    *free = 0;
    for (const DeviceUsage& u : usage) *free += u.free_bytes + u.garbage_bytes;
    return ToIO(s);
  }

 private:
  IOStatus OpenWritable(const std::string& f, WriteMode mode, const rocksdb::FileOptions& o,
                        std::unique_ptr<rocksdb::FSWritableFile>* result) {
    PublishTemperature(f, o.temperature);
    std::unique_ptr<FileWriter> w;
    Status s = fs_->OpenWriter(f, mode, &w);
    if (s.ok()) result->reset(new WritableFile(fs_, f, std::move(w), o));
    return ToIO(s);
  }

  // RocksDB's temperature for a file it creates (last_level_temperature and
  // friends), before the file's first byte: placement/temperature.h.
  void PublishTemperature(const std::string& f, rocksdb::Temperature t) {
    Hint h;
    h.kind = Hint::Kind::kFileTemperature;
    h.path = f;
    switch (t) {
      case rocksdb::Temperature::kHot: h.temperature = Temperature::kHot; break;
      case rocksdb::Temperature::kWarm: h.temperature = Temperature::kWarm; break;
      case rocksdb::Temperature::kCold: h.temperature = Temperature::kCold; break;
      default: return;  // unknown: nothing to say
    }
    bus_->Publish(h);
  }

  std::shared_ptr<Filesystem> fs_;
  std::shared_ptr<HintBus> bus_;
};

}  // namespace

rocksdb::IOStatus NewHintRocksFileSystem(const std::string& spec,
                                         std::shared_ptr<rocksdb::FileSystem>* result) {
  std::shared_ptr<Filesystem> fs;
  std::shared_ptr<HintBus> bus;
  Status s = AcquireMount(spec, &fs, &bus);
  if (!s.ok()) return ToIO(s);
  *result = std::make_shared<HintRocksFileSystem>(std::move(fs), std::move(bus));
  return rocksdb::IOStatus::OK();
}

}  // namespace hintfs
