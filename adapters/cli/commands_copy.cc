// hintfs backup and restore: copy a whole tree out of or into the filesystem.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "adapters/cli/commands.h"
#include "adapters/cli/progress.h"
#include "cache/block_cache.h"
#include "fs/uri.h"

namespace hintfs {
namespace cli {

namespace stdfs = std::filesystem;

namespace {

constexpr size_t kChunk = 1 << 20;

struct TreeEntry {
  std::string path;  // inside hintfs
  FileType type;
  uint64_t size;
  int64_t mtime_ns;
};

// The tree to back up: everything but the SSD cache's zones and saved
// mapping, copies of table blocks that a restored tree (new inodes) could
// not use anyway.
Status ListTree(Filesystem* fs, std::vector<TreeEntry>* out) {
  Status result;
  const std::string cache_dir = kCacheDirectory;
  Status s = Walk(fs, "/", true, [&](const std::string& path, const DirEntry& e) {
    if (path == cache_dir || path.rfind(cache_dir + "/", 0) == 0) return;
    FileStat st;
    Status stat = fs->Stat(path, &st);
    if (!stat.ok() && result.ok()) result = stat;
    out->push_back({path, e.type, st.size, st.mtime_ns});
  });
  return s.ok() ? result : s;
}

void SetHostMtime(const std::string& path, int64_t ns) {
  struct timespec times[2];
  times[0].tv_sec = times[1].tv_sec = ns / 1000000000;
  times[0].tv_nsec = times[1].tv_nsec = ns % 1000000000;
  utimensat(AT_FDCWD, path.c_str(), times, 0);
}

// Copies [from, size) of r to out in blocks, zeros for blocks that do not
// read (check) back; returns the bytes it could not read.
uint64_t SalvageRest(FileReader* r, uint64_t from, uint64_t size, std::ofstream* out) {
  constexpr size_t kBlock = 4096;
  std::string block(kBlock, '\0');
  uint64_t lost = 0;
  for (uint64_t off = from; off < size; off += kBlock) {
    size_t want = static_cast<size_t>(std::min<uint64_t>(kBlock, size - off));
    size_t got = 0;
    if (!r->Read(off, want, &block[0], &got).ok() || got != want) {
      std::fill(block.begin(), block.end(), '\0');
      lost += want;
    }
    out->write(block.data(), static_cast<std::streamsize>(want));
  }
  return lost;
}

// Gives a backed-up file or directory the mode and owner the filesystem
// keeps for it, if any was set (as root; otherwise the owner stays).
void SetHostOwnership(Filesystem* fs, const std::string& path, const std::string& host) {
  FileStat st;
  if (!fs->Stat(path, &st).ok() || !(st.mode & kModeSet)) return;
  if (lchown(host.c_str(), st.uid, st.gid) != 0 && errno != EPERM) {
    std::fprintf(stderr, "hintfs: backup: %s: owner not set: %s\n", host.c_str(), std::strerror(errno));
  }
  if (chmod(host.c_str(), st.mode & kModeBits) != 0) {
    std::fprintf(stderr, "hintfs: backup: %s: mode not set: %s\n", host.c_str(), std::strerror(errno));
  }
}

}  // namespace

int Backup(const std::string& uri, const std::string& host_dir, bool salvage) {
  std::unique_ptr<Filesystem> fs;
  Status s = MountForCli(uri, true, &fs, /*repair=*/salvage);
  if (!s.ok()) return Fail("backup", s);
  for (const std::string& r : fs->Stats().repairs) std::fprintf(stderr, "hintfs: backup: %s\n", r.c_str());
  bool damaged = !fs->Stats().repairs.empty();
  std::vector<TreeEntry> tree;
  s = ListTree(fs.get(), &tree);
  if (!s.ok()) return Fail("backup", s);
  uint64_t total = 0, done = 0;
  for (const auto& e : tree) total += e.type == FileType::kFile ? e.size : 0;
  std::error_code ec;
  stdfs::create_directories(host_dir, ec);
  if (ec) return Fail("backup", Status::IOError(host_dir + ": " + ec.message()));
  ProgressBar bar("backup", true);
  std::string buf(kChunk, '\0');
  size_t files = 0;
  for (const auto& e : tree) {
    std::string host = host_dir + e.path;
    if (e.type == FileType::kDirectory) {
      stdfs::create_directories(host, ec);
      if (ec) return Fail("backup", Status::IOError(host + ": " + ec.message()));
      continue;
    }
    if (e.type == FileType::kSymlink) {
      std::string target;
      s = fs->ReadLink(e.path, &target);
      if (!s.ok()) return Fail("backup " + e.path, s);
      stdfs::remove(host, ec);
      stdfs::create_symlink(target, host, ec);
      if (ec) return Fail("backup", Status::IOError(host + ": " + ec.message()));
      continue;
    }
    if (e.type == FileType::kSpecial) {
      uint32_t format = 0;
      uint64_t rdev = 0;
      s = fs->ReadSpecial(e.path, &format, &rdev);
      if (!s.ok()) return Fail("backup " + e.path, s);
      stdfs::remove(host, ec);
      if (mknod(host.c_str(), format | 0600, static_cast<dev_t>(rdev)) != 0) {
        return Fail("backup", Status::IOError(host + ": " + std::strerror(errno)));
      }
      SetHostOwnership(fs.get(), e.path, host);
      continue;
    }
    std::unique_ptr<FileReader> r;
    s = fs->OpenReader(e.path, &r);
    if (!s.ok()) return Fail("backup " + e.path, s);
    std::ofstream out(host, std::ios::binary | std::ios::trunc);
    if (!out) return Fail("backup", Status::IOError("cannot write " + host));
    for (uint64_t off = 0; off < e.size;) {
      size_t got = 0;
      s = r->Read(off, kChunk, &buf[0], &got);
      if (!s.ok() && salvage) {
        uint64_t lost = SalvageRest(r.get(), off, e.size, &out);
        std::fprintf(stderr, "hintfs: backup: %s: %s of %s unreadable, written as zeros (%s)\n", e.path.c_str(),
                     HumanSize(lost).c_str(), HumanSize(e.size).c_str(), s.message().c_str());
        damaged = true;
        done += e.size - off;
        break;
      }
      if (!s.ok()) return Fail("backup " + e.path, s);
      if (got == 0) break;
      out.write(buf.data(), static_cast<std::streamsize>(got));
      off += got;
      done += got;
      bar.Update(done, total);
    }
    out.close();
    if (!out) return Fail("backup", Status::IOError("writing " + host + " failed"));
    SetHostMtime(host, e.mtime_ns);
    SetHostOwnership(fs.get(), e.path, host);
    files++;
  }
  for (auto it = tree.rbegin(); it != tree.rend(); ++it) {
    if (it->type != FileType::kDirectory) continue;
    SetHostOwnership(fs.get(), it->path, host_dir + it->path);
    SetHostMtime(host_dir + it->path, it->mtime_ns);
  }
  bar.Finish();
  std::printf("backed up %zu files, %s to %s%s\n", files, HumanSize(done).c_str(), host_dir.c_str(),
              damaged ? " (with damage, listed above)" : "");
  return damaged ? kExitDamage : kExitOk;
}

int Restore(const std::string& uri, const std::string& host_dir) {
  std::error_code ec;
  if (!stdfs::is_directory(host_dir, ec)) {
    return Fail("restore", Status::InvalidArgument(host_dir + " is not a directory"));
  }
  std::vector<stdfs::directory_entry> entries;
  uint64_t total = 0;
  for (auto it = stdfs::recursive_directory_iterator(host_dir, ec);
       !ec && it != stdfs::recursive_directory_iterator(); it.increment(ec)) {
    entries.push_back(*it);
    if (it->is_regular_file()) total += it->file_size();
  }
  if (ec) return Fail("restore", Status::IOError(host_dir + ": " + ec.message()));
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.path() < b.path(); });
  std::unique_ptr<Filesystem> fs;
  Status s = MountForCli(uri, false, &fs);
  if (!s.ok()) return Fail("restore", s);
  ProgressBar bar("restore", true);
  std::string buf(kChunk, '\0');
  uint64_t done = 0;
  size_t files = 0, skipped = 0;
  std::vector<std::pair<std::string, int64_t>> dir_times;
  for (const auto& entry : entries) {
    // Lexically: relative() would resolve a symbolic link to its target.
    std::string rel = "/" + entry.path().lexically_relative(host_dir).string();
    struct stat st;
    if (lstat(entry.path().c_str(), &st) != 0) continue;
    int64_t mtime = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    if (S_ISDIR(st.st_mode)) {
      s = fs->Mkdir(rel);
      if (s.ok() || s.IsAlreadyExists()) s = fs->SetOwnership(rel, st.st_mode & kModeBits, st.st_uid, st.st_gid);
      if (!s.ok()) return Fail("restore " + rel, s);
      dir_times.push_back({rel, mtime});
      continue;
    }
    if (S_ISLNK(st.st_mode)) {
      std::error_code link_ec;
      stdfs::path target = stdfs::read_symlink(entry.path(), link_ec);
      if (link_ec) return Fail("restore", Status::IOError(entry.path().string() + ": " + link_ec.message()));
      s = fs->Symlink(target.string(), rel);
      if (!s.ok()) return Fail("restore " + rel, s);
      files++;
      continue;
    }
    if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
      s = fs->MakeSpecial(rel, st.st_mode & S_IFMT, st.st_rdev);
      if (s.ok()) s = fs->SetOwnership(rel, st.st_mode & kModeBits, st.st_uid, st.st_gid);
      if (!s.ok()) return Fail("restore " + rel, s);
      files++;
      continue;
    }
    if (!S_ISREG(st.st_mode)) {
      std::fprintf(stderr, "hintfs: restore: skipping %s (not a regular file)\n", rel.c_str());
      skipped++;
      continue;
    }
    std::ifstream in(entry.path(), std::ios::binary);
    if (!in) return Fail("restore", Status::IOError("cannot read " + entry.path().string()));
    std::unique_ptr<FileWriter> w;
    s = fs->OpenWriter(rel, WriteMode::kTruncate, &w);
    if (!s.ok()) return Fail("restore " + rel, s);
    while (in) {
      in.read(&buf[0], static_cast<std::streamsize>(buf.size()));
      std::streamsize got = in.gcount();
      if (got <= 0) break;
      s = w->Append(std::string_view(buf.data(), static_cast<size_t>(got)));
      if (!s.ok()) return Fail("restore " + rel, s);
      done += static_cast<uint64_t>(got);
      bar.Update(done, total);
    }
    if (in.bad()) return Fail("restore", Status::IOError("reading " + entry.path().string() + " failed"));
    s = w->Close();
    if (!s.ok()) return Fail("restore " + rel, s);
    s = fs->SetMtime(rel, mtime);
    if (s.ok()) s = fs->SetOwnership(rel, st.st_mode & kModeBits, st.st_uid, st.st_gid);
    if (!s.ok()) return Fail("restore " + rel, s);
    files++;
  }
  for (const auto& [path, mtime] : dir_times) fs->SetMtime(path, mtime);
  s = fs->Unmount();  // commits everything
  bar.Finish();
  if (!s.ok()) return Fail("restore", s);
  std::printf("restored %zu files, %s from %s%s\n", files, HumanSize(done).c_str(), host_dir.c_str(),
              skipped ? fmt::format(" ({} skipped)", skipped).c_str() : "");
  return 0;
}

}  // namespace cli
}  // namespace hintfs
