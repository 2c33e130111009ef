#include <sys/time.h>

#include <cstdarg>
#include <cstdio>
#include <ctime>
#include <mutex>

#include "adapters/common/mount_registry.h"
#include "adapters/leveldb/hintfs_leveldb.h"
#include "fs/walk.h"

namespace hintfs {

namespace {

using leveldb::Slice;

// Every handle keeps the mount alive, even past the Env.
using Mount = std::shared_ptr<Filesystem>;

leveldb::Status ToLevelDb(const Status& s, const std::string& context) {
  if (s.ok()) return leveldb::Status::OK();
  switch (s.code()) {
    case Status::Code::kNotFound: return leveldb::Status::NotFound(context, s.message());
    case Status::Code::kCorruption: return leveldb::Status::Corruption(context, s.message());
    case Status::Code::kNotSupported: return leveldb::Status::NotSupported(context, s.message());
    case Status::Code::kInvalidArgument: return leveldb::Status::InvalidArgument(context, s.message());
    default: return leveldb::Status::IOError(context, s.ToString());
  }
}

class SequentialFile : public leveldb::SequentialFile {
 public:
  SequentialFile(Mount m, std::string name, std::unique_ptr<FileReader> r)
      : m_(std::move(m)), name_(std::move(name)), r_(std::move(r)) {}
  leveldb::Status Read(size_t n, Slice* result, char* scratch) override {
    size_t got = 0;
    Status s = r_->Read(pos_, n, scratch, &got);
    pos_ += got;
    *result = Slice(scratch, got);
    return ToLevelDb(s, name_);
  }
  leveldb::Status Skip(uint64_t n) override {
    pos_ = std::min(pos_ + n, r_->Size());
    return leveldb::Status::OK();
  }

 private:
  Mount m_;
  std::string name_;
  std::unique_ptr<FileReader> r_;
  uint64_t pos_ = 0;
};

class RandomAccessFile : public leveldb::RandomAccessFile {
 public:
  RandomAccessFile(Mount m, std::string name, std::unique_ptr<FileReader> r)
      : m_(std::move(m)), name_(std::move(name)), r_(std::move(r)) {}
  leveldb::Status Read(uint64_t offset, size_t n, Slice* result, char* scratch) const override {
    size_t got = 0;
    Status s = r_->Read(offset, n, scratch, &got);
    *result = Slice(scratch, got);
    return ToLevelDb(s, name_);
  }

 private:
  Mount m_;
  std::string name_;
  std::unique_ptr<FileReader> r_;
};

class WritableFile : public leveldb::WritableFile {
 public:
  WritableFile(Mount m, std::string name, std::unique_ptr<FileWriter> w)
      : m_(std::move(m)), name_(std::move(name)), w_(std::move(w)) {}
  leveldb::Status Append(const Slice& data) override {
    return ToLevelDb(w_->Append(std::string_view(data.data(), data.size())), name_);
  }
  leveldb::Status Close() override { return ToLevelDb(w_->Close(), name_); }
  leveldb::Status Flush() override { return ToLevelDb(w_->Flush(), name_); }
  leveldb::Status Sync() override { return ToLevelDb(w_->Sync(), name_); }

 private:
  Mount m_;
  std::string name_;
  std::unique_ptr<FileWriter> w_;
};

class Lock : public leveldb::FileLock {
 public:
  Lock(Mount m, std::unique_ptr<hintfs::FileLock> lock) : m_(std::move(m)), lock_(std::move(lock)) {}

 private:
  Mount m_;
  std::unique_ptr<hintfs::FileLock> lock_;
};

class Logger : public leveldb::Logger {
 public:
  Logger(Mount m, std::unique_ptr<FileWriter> w) : m_(std::move(m)), w_(std::move(w)) {}
  void Logv(const char* format, std::va_list ap) override {
    struct timeval now;
    gettimeofday(&now, nullptr);
    struct tm t;
    localtime_r(&now.tv_sec, &t);
    char head[64];
    std::snprintf(head, sizeof(head), "%04d/%02d/%02d-%02d:%02d:%02d.%06ld ", t.tm_year + 1900, t.tm_mon + 1,
                  t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec, static_cast<long>(now.tv_usec));
    std::va_list copy;
    va_copy(copy, ap);
    int n = std::vsnprintf(nullptr, 0, format, copy);
    va_end(copy);
    std::string line(head);
    if (n > 0) {
      std::string body(static_cast<size_t>(n) + 1, '\0');
      std::vsnprintf(&body[0], body.size(), format, ap);
      body.resize(static_cast<size_t>(n));
      line += body;
    }
    if (line.back() != '\n') line += '\n';
    std::lock_guard<std::mutex> l(mu_);
    w_->Append(line);
    w_->Flush();
  }

 private:
  Mount m_;
  std::mutex mu_;
  std::unique_ptr<FileWriter> w_;
};

class HintLevelDbEnv : public leveldb::EnvWrapper {
 public:
  explicit HintLevelDbEnv(std::shared_ptr<Filesystem> fs)
      : leveldb::EnvWrapper(leveldb::Env::Default()), fs_(std::move(fs)) {}

  leveldb::Status NewSequentialFile(const std::string& f, leveldb::SequentialFile** result) override {
    std::unique_ptr<FileReader> r;
    Status s = fs_->OpenReader(f, &r);
    *result = s.ok() ? new SequentialFile(fs_, f, std::move(r)) : nullptr;
    return ToLevelDb(s, f);
  }
  leveldb::Status NewRandomAccessFile(const std::string& f, leveldb::RandomAccessFile** result) override {
    std::unique_ptr<FileReader> r;
    Status s = fs_->OpenReader(f, &r);
    *result = s.ok() ? new RandomAccessFile(fs_, f, std::move(r)) : nullptr;
    return ToLevelDb(s, f);
  }
  leveldb::Status NewWritableFile(const std::string& f, leveldb::WritableFile** result) override {
    return OpenWritable(f, WriteMode::kTruncate, result);
  }
  leveldb::Status NewAppendableFile(const std::string& f, leveldb::WritableFile** result) override {
    return OpenWritable(f, WriteMode::kAppend, result);
  }
  bool FileExists(const std::string& f) override {
    FileStat st;
    return fs_->Stat(f, &st).ok();
  }
  leveldb::Status GetChildren(const std::string& dir, std::vector<std::string>* result) override {
    std::vector<DirEntry> entries;
    Status s = fs_->ReadDir(dir, &entries);
    result->clear();
    for (const DirEntry& e : entries) result->push_back(e.name);
    return ToLevelDb(s, dir);
  }
  // Both the new and the deprecated names: their defaults call each other.
  leveldb::Status RemoveFile(const std::string& f) override { return ToLevelDb(fs_->Unlink(f), f); }
  leveldb::Status DeleteFile(const std::string& f) override { return RemoveFile(f); }
  leveldb::Status CreateDir(const std::string& d) override {
    // mkdir -p: LevelDB creates only the last component.
    std::string failed;
    Status s = MakeDirectories(fs_.get(), d, &failed);
    return s.ok() ? leveldb::Status::OK() : ToLevelDb(s, failed);
  }
  leveldb::Status RemoveDir(const std::string& d) override { return ToLevelDb(fs_->Rmdir(d), d); }
  leveldb::Status DeleteDir(const std::string& d) override { return RemoveDir(d); }
  leveldb::Status GetFileSize(const std::string& f, uint64_t* size) override {
    FileStat st;
    Status s = fs_->Stat(f, &st);
    *size = st.size;
    return ToLevelDb(s, f);
  }
  leveldb::Status RenameFile(const std::string& src, const std::string& dst) override {
    return ToLevelDb(fs_->Rename(src, dst), src);
  }
  leveldb::Status LockFile(const std::string& f, leveldb::FileLock** lock) override {
    std::unique_ptr<hintfs::FileLock> held;
    Status s = fs_->Lock(f, &held);
    *lock = s.ok() ? new Lock(fs_, std::move(held)) : nullptr;
    if (s.IsBusy()) return leveldb::Status::IOError("lock " + f, "already held by this process");
    return ToLevelDb(s, f);
  }
  leveldb::Status UnlockFile(leveldb::FileLock* lock) override {
    delete lock;
    return leveldb::Status::OK();
  }
  leveldb::Status GetTestDirectory(std::string* path) override {
    *path = "/tmp/hintfs-leveldb-test";
    return CreateDir(*path);
  }
  leveldb::Status NewLogger(const std::string& f, leveldb::Logger** result) override {
    std::unique_ptr<FileWriter> w;
    Status s = fs_->OpenWriter(f, WriteMode::kTruncate, &w);
    *result = s.ok() ? new Logger(fs_, std::move(w)) : nullptr;
    return ToLevelDb(s, f);
  }

 private:
  leveldb::Status OpenWritable(const std::string& f, WriteMode mode, leveldb::WritableFile** result) {
    std::unique_ptr<FileWriter> w;
    Status s = fs_->OpenWriter(f, mode, &w);
    *result = s.ok() ? new WritableFile(fs_, f, std::move(w)) : nullptr;
    return ToLevelDb(s, f);
  }

  std::shared_ptr<Filesystem> fs_;
};

}  // namespace

leveldb::Status NewHintLevelDbEnv(const std::string& spec, std::unique_ptr<leveldb::Env>* env) {
  std::shared_ptr<Filesystem> fs;
  Status s = AcquireMount(spec, &fs);
  if (!s.ok()) return ToLevelDb(s, spec);
  env->reset(new HintLevelDbEnv(std::move(fs)));
  return leveldb::Status::OK();
}

}  // namespace hintfs
