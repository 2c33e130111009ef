#include "fs/host_log.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <random>

#include <fmt/format.h>

#include "fs/coding.h"
#include "fs/crc32c.h"

namespace hintfs {

namespace {

constexpr char kMagic[8] = {'H', 'F', 'H', 'O', 'S', 'T', 'L', '1'};
constexpr uint32_t kVersion = 1;
constexpr size_t kBootIdBytes = 40;
constexpr size_t kRecordHeader = 20;  // length, crc, generation, index

uint64_t Align8(uint64_t n) { return (n + 7) / 8 * 8; }

// A mapping of process memory (for mem: filesystems): the pages are taken
// only as records land on them.
struct Region {
  char* base = nullptr;
  uint64_t size = 0;
  ~Region() {
    if (base != nullptr) munmap(base, size);
  }
};

std::mutex g_memory_mu;
std::map<std::string, std::shared_ptr<Region>>& MemoryLogs() {
  static auto* logs = new std::map<std::string, std::shared_ptr<Region>>();
  return *logs;
}

std::string EncodeHeader(uint64_t generation, const HostLogOwner& owner) {
  std::string h(kMagic, sizeof(kMagic));
  PutFixed32(&h, kVersion);
  PutFixed32(&h, 0);
  PutFixed64(&h, generation);
  h.append(reinterpret_cast<const char*>(owner.fs_uuid.data()), owner.fs_uuid.size());
  std::string boot = owner.boot_id.substr(0, kBootIdBytes);
  boot.resize(kBootIdBytes, '\0');
  h += boot;
  PutFixed64(&h, owner.power_cycles);
  PutFixed64(&h, owner.epoch);
  PutFixed64(&h, owner.seq);
  h.resize(HostLog::kHeaderSize - 4, '\0');
  PutFixed32(&h, crc32c::Value(h.data(), h.size()));
  return h;
}

// The header's generation and owner; false if it is not a valid header.
bool DecodeHeader(const char* h, uint64_t* generation, HostLogOwner* owner) {
  if (std::memcmp(h, kMagic, sizeof(kMagic)) != 0) return false;
  if (DecodeFixed32(h + HostLog::kHeaderSize - 4) != crc32c::Value(h, HostLog::kHeaderSize - 4)) return false;
  if (DecodeFixed32(h + 8) != kVersion) return false;
  *generation = DecodeFixed64(h + 16);
  std::memcpy(owner->fs_uuid.data(), h + 24, owner->fs_uuid.size());
  std::string boot(h + 40, kBootIdBytes);
  owner->boot_id = boot.substr(0, boot.find('\0'));
  owner->power_cycles = DecodeFixed64(h + 80);
  owner->epoch = DecodeFixed64(h + 88);
  owner->seq = DecodeFixed64(h + 96);
  return true;
}

}  // namespace

std::string CurrentBootId() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return id;
}

std::string HostLogPath(const std::string& dir, const std::string& journal_device_uri,
                        const Uuid& fs_uuid) {
  if (journal_device_uri.rfind("mem:", 0) == 0) return journal_device_uri;
  // The place is in the name: a copy of the images is not the original.
  return fmt::format("{}/hintfs-{}-{:08x}.hostlog", dir, UuidToString(fs_uuid),
                     crc32c::Value(journal_device_uri.data(), journal_device_uri.size()));
}

Status HostLog::Open(const std::string& path, uint64_t capacity, bool create,
                     std::unique_ptr<HostLog>* log) {
  capacity = std::max<uint64_t>(Align8(capacity), 2 * kHeaderSize);
  if (path.rfind("mem:", 0) == 0) {
    std::lock_guard<std::mutex> l(g_memory_mu);
    if (!create && MemoryLogs().count(path) == 0) return Status::NotFound(path);
    auto& region = MemoryLogs()[path];
    if (!region || region->size < capacity) {
      auto fresh = std::make_shared<Region>();
      void* p = mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) return Status::IOError(fmt::format("{}: mmap: {}", path, std::strerror(errno)), errno);
      fresh->base = static_cast<char*>(p);
      fresh->size = capacity;
      if (region) std::memcpy(fresh->base, region->base, region->size);
      region = fresh;
    }
    log->reset(new HostLog(path, region->base, region->size, /*mapped=*/false));
    return Status::OK();
  }
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0600);
  if (fd < 0 && errno == ENOENT) return Status::NotFound(path);
  if (fd < 0) return Status::IOError(fmt::format("{}: {}", path, std::strerror(errno)), errno);
  struct stat st;
  int err = fstat(fd, &st) != 0 ? errno : 0;
  // The space is reserved now, so a store into the mapping never meets a
  // full filesystem (which would be a SIGBUS, not an error).
  if (err == 0 && static_cast<uint64_t>(st.st_size) < capacity) {
    err = posix_fallocate(fd, 0, static_cast<off_t>(capacity));
  }
  if (err != 0) {
    ::close(fd);
    return Status::IOError(fmt::format("{}: cannot reserve {} bytes: {}", path, capacity, std::strerror(err)), err);
  }
  capacity = std::max<uint64_t>(capacity, static_cast<uint64_t>(st.st_size) / 8 * 8);
  void* p = mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  err = errno;
  ::close(fd);
  if (p == MAP_FAILED) return Status::IOError(fmt::format("{}: mmap: {}", path, std::strerror(err)), err);
  log->reset(new HostLog(path, static_cast<char*>(p), capacity, /*mapped=*/true));
  return Status::OK();
}

void HostLog::ForgetMemory(const std::string& path) {
  std::lock_guard<std::mutex> l(g_memory_mu);
  MemoryLogs().erase(path);
}

HostLog::HostLog(std::string path, char* base, uint64_t capacity, bool mapped)
    : path_(std::move(path)), base_(base), capacity_(capacity), mapped_(mapped) {}

HostLog::~HostLog() {
  if (mapped_) munmap(base_, capacity_);
}

std::vector<std::string> HostLog::Records(const HostLogOwner& owner) const {
  std::vector<std::string> records;
  uint64_t generation = 0;
  HostLogOwner found;
  if (!DecodeHeader(base_, &generation, &found) || !(found == owner)) return records;
  uint64_t pos = kHeaderSize;
  for (uint32_t index = 0; pos + kRecordHeader <= capacity_; index++) {
    const char* r = base_ + pos;
    uint32_t len = DecodeFixed32(r);
    if (len == 0 || len > capacity_ - pos - kRecordHeader) break;
    if (DecodeFixed64(r + 8) != generation || DecodeFixed32(r + 16) != index) break;
    if (DecodeFixed32(r + 4) != crc32c::Value(r + 8, 12 + len)) break;  // torn by a kill
    records.emplace_back(r + kRecordHeader, len);
    pos += Align8(kRecordHeader + len);
  }
  return records;
}

void HostLog::Start(const HostLogOwner& owner) {
  static std::mt19937_64 rng(std::random_device{}());
  generation_ = rng();
  next_index_ = 0;
  end_ = kHeaderSize;
  std::string h = EncodeHeader(generation_, owner);
  std::memcpy(base_, h.data(), h.size());
}

bool HostLog::Append(std::string_view payload) {
  if (generation_ == 0 || payload.empty()) return false;
  uint64_t need = Align8(kRecordHeader + payload.size());
  if (end_ + need > capacity_) return false;
  char* r = base_ + end_;
  EncodeFixed64(r + 8, generation_);
  EncodeFixed32(r + 16, next_index_);
  std::memcpy(r + kRecordHeader, payload.data(), payload.size());
  EncodeFixed32(r + 4, crc32c::Value(r + 8, 12 + payload.size()));
  EncodeFixed32(r, static_cast<uint32_t>(payload.size()));
  end_ += need;
  next_index_++;
  return true;
}

void HostLog::Remove() {
  generation_ = 0;
  std::memset(base_, 0, kHeaderSize);
  if (mapped_) ::unlink(path_.c_str());
}

}  // namespace hintfs
