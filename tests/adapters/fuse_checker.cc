// Random operations on a directory (a hintfs FUSE mount) checked against a
// model of what every file must hold.
//   fuse_checker ops DIR SEED COUNT     random create/append/read/rename/unlink/
//                                       fsync/truncate/overwrite/symlink/chmod, and files
//                                       held open for small writes, every result checked
//   fuse_checker crash DIR LOG SEED     appends and fsyncs until killed; after each
//                                       fsync records (file, length) in the host file LOG
//   fuse_checker crash-nosync DIR LOG SEED
//                                       the same without fsync: after each append the
//                                       kernel writes the file's dirty pages back to the
//                                       daemon (sync_file_range, no flush of any device)
//                                       and (file, length) goes to LOG: what the daemon
//                                       answered must survive the daemon being killed
//   fuse_checker verify DIR LOG SEED    every file holds at least what LOG says was
//                                       synced, and only the bytes that were written
// Exits 1 with the seed and operation on the first mismatch.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>

namespace {

std::string dir;
unsigned long seed = 0;
long op_no = 0;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "fuse_checker: seed %lu op %ld: %s (errno %d %s)\n", seed, op_no, what.c_str(), errno,
               std::strerror(errno));
  std::exit(1);
}

std::string Bytes(std::mt19937_64* rng, size_t n) {
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>((*rng)());
  return s;
}

bool WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

std::string ReadAll(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) Fail("open for read " + path);
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0) Fail("read " + path);
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return out;
}

// A file kept open for writing across operations, the way a store keeps
// its log: small writes, each a page-cache update under the write-back
// cache, written back later, some pages more than once, some out of order.
struct OpenWriter {
  int fd = -1;
  std::string name;
};

// What the files should hold, and the writers held open (other operations
// leave their files alone).
struct Model {
  std::map<std::string, std::string> files;  // name -> content
  std::map<std::string, OpenWriter> writers;
  std::map<std::string, std::string> links;  // name -> target
  std::map<std::string, mode_t> modes;       // files chmod changed (others are 0644)
  int next = 0;
  mode_t ModeOf(const std::string& name) const {
    auto it = modes.find(name);
    return it == modes.end() ? 0644 : it->second;
  }
  std::string PickAny(std::mt19937_64* rng) {
    auto it = files.begin();
    std::advance(it, static_cast<long>((*rng)() % files.size()));
    return it->first;
  }
  std::string PickUnheld(std::mt19937_64* rng) {
    for (;;) {
      std::string name = PickAny(rng);
      if (!writers.count(name)) return name;
    }
  }
};

// A held-open writer: open, write a little, sync, write back out of order,
// close.
void WriterOp(std::mt19937_64* rng, Model* m) {
  auto& model = m->files;
  auto& writers = m->writers;
  int& next = m->next;
  if (writers.size() < 3 && (writers.empty() || (*rng)() % 8 == 0)) {
    std::string name = "w" + std::to_string(next++);
    int fd = open((dir + "/" + name).c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0) Fail("open writer " + name);
    writers[name] = {fd, name};
    model[name] = "";
    return;
  }
  auto it = writers.begin();
  std::advance(it, static_cast<long>((*rng)() % writers.size()));
  OpenWriter& w = it->second;
  std::string& content = model[w.name];
  int what = static_cast<int>((*rng)() % 20);
  if (what == 0) {
    if (close(w.fd) != 0) Fail("close writer " + w.name);
    writers.erase(it);
  } else if (what == 1) {
    if (fdatasync(w.fd) != 0) Fail("fdatasync " + w.name);
  } else if (what == 3 && !content.empty()) {  // rewrite bytes it wrote earlier
    // Inside the file: its next write() goes on at the fd's position, the end.
    size_t off = (*rng)() % content.size();
    std::string data = Bytes(rng, 1 + (*rng)() % std::min<size_t>(5000, content.size() - off));
    if (pwrite(w.fd, data.data(), data.size(), static_cast<off_t>(off)) != static_cast<ssize_t>(data.size())) {
      Fail("pwrite " + w.name);
    }
    content.replace(off, data.size(), data);
  } else if (what == 2 && content.size() > 3 * 4096) {
    // Write back a later range first: the page before it comes after.
    off_t from = static_cast<off_t>(content.size() / 4096 / 2 * 4096);
    if (sync_file_range(w.fd, from, 0, SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER) != 0) {
      Fail("sync_file_range " + w.name);
    }
  } else {
    std::string data = Bytes(rng, 1 + (*rng)() % ((*rng)() % 4 == 0 ? 9000 : 300));
    if (!WriteAll(w.fd, data)) Fail("write " + w.name);
    content += data;
  }
}

// Creates or appends (kind < 35), renames, unlinks, truncates or writes over
// stored bytes (68 <= kind < 86), keeping the model in step.
void MutatingOp(int kind, std::mt19937_64* rng, Model* m) {
  auto& model = m->files;
  auto pick = [&] { return m->PickUnheld(rng); };
  int& next = m->next;
  if (kind < 15) {  // create
    std::string name = "f" + std::to_string(next++);
    std::string data = Bytes(rng, (*rng)() % 70000);
    int fd = open((dir + "/" + name).c_str(), O_CREAT | O_EXCL | O_WRONLY, 0644);
    if (fd < 0 || !WriteAll(fd, data) || close(fd) != 0) Fail("create " + name);
    model[name] = data;
  } else if (kind < 35) {  // append (sometimes with fsync)
    std::string name = pick();
    std::string data = Bytes(rng, 1 + (*rng)() % 20000);
    int fd = open((dir + "/" + name).c_str(), O_WRONLY | O_APPEND);
    if (fd < 0 || !WriteAll(fd, data)) Fail("append " + name);
    if ((*rng)() % 3 == 0 && fsync(fd) != 0) Fail("fsync " + name);
    if (close(fd) != 0) Fail("close " + name);
    model[name] += data;
  } else if (kind < 68) {  // rename, replacing sometimes
    std::string from = pick();
    std::string to = (*rng)() % 2 ? pick() : "r" + std::to_string(next++);
    if (rename((dir + "/" + from).c_str(), (dir + "/" + to).c_str()) != 0) Fail("rename " + from + " " + to);
    if (from != to) {
      model[to] = model[from];
      model.erase(from);
      m->modes.erase(to);
      if (m->modes.count(from)) m->modes[to] = m->modes[from];
      m->modes.erase(from);
    }
  } else if (kind < 75) {  // unlink
    std::string name = pick();
    if (unlink((dir + "/" + name).c_str()) != 0) Fail("unlink " + name);
    model.erase(name);
    m->modes.erase(name);
  } else if (kind < 82) {  // truncate
    std::string name = pick();
    size_t to = (*rng)() % 2 ? 0 : (model[name].empty() ? 0 : (*rng)() % model[name].size());
    if (truncate((dir + "/" + name).c_str(), static_cast<off_t>(to)) != 0) Fail("truncate " + name);
    model[name].resize(to);
  } else if (kind < 84) {  // write anywhere (over stored bytes, or past the end leaving a hole)
    std::string name = pick();
    std::string& content = model[name];
    std::string data = Bytes(rng, 1 + (*rng)() % ((*rng)() % 4 == 0 ? 12000 : 200));
    size_t off = (*rng)() % (content.size() + ((*rng)() % 8 == 0 ? 9000 : 1));
    int fd = open((dir + "/" + name).c_str(), O_WRONLY);
    if (fd < 0) Fail("open " + name);
    if (pwrite(fd, data.data(), data.size(), static_cast<off_t>(off)) != static_cast<ssize_t>(data.size())) {
      Fail("overwrite " + name + " at " + std::to_string(off));
    }
    if ((*rng)() % 2 == 0 && fdatasync(fd) != 0) Fail("fdatasync " + name);
    if (close(fd) != 0) Fail("close " + name);
    if (content.size() < off + data.size()) content.resize(off + data.size(), '\0');
    content.replace(off, data.size(), data);
  } else if (kind < 86) {
    // Overwrite stored bytes through the handle that wrote them, after
    // they were synced: the file takes them.
    std::string name = "o" + std::to_string(next++);
    std::string data = Bytes(rng, 2 + (*rng)() % 10000);
    int fd = open((dir + "/" + name).c_str(), O_CREAT | O_EXCL | O_WRONLY, 0644);
    if (fd < 0 || !WriteAll(fd, data) || fsync(fd) != 0) Fail("create " + name);
    char changed[2] = {static_cast<char>(~data[0]), static_cast<char>(~data[1])};
    size_t off = (*rng)() % (data.size() - 1);
    if (pwrite(fd, changed, 2, static_cast<off_t>(off)) != 2 || fsync(fd) != 0) Fail("overwrite " + name);
    if (close(fd) != 0) Fail("close " + name);
    data.replace(off, 2, changed, 2);
    model[name] = data;
  }
}

// Reads a range (35 <= kind < 60), stats, lists the directory or reads a
// whole file (86 <= kind < 100), against the model.
void CheckingOp(int kind, std::mt19937_64* rng, Model* m) {
  auto& model = m->files;
  auto pick_any = [&] { return m->PickAny(rng); };
  if (kind < 60) {  // read a range
    std::string name = pick_any();
    const std::string& want = model[name];
    int fd = open((dir + "/" + name).c_str(), O_RDONLY);
    if (fd < 0) Fail("open " + name);
    size_t off = want.empty() ? 0 : (*rng)() % (want.size() + 1);
    std::string buf(1 + (*rng)() % 30000, '\0');
    ssize_t n = pread(fd, &buf[0], buf.size(), static_cast<off_t>(off));
    close(fd);
    size_t expect = off >= want.size() ? 0 : std::min(buf.size(), want.size() - off);
    if (n != static_cast<ssize_t>(expect) || buf.compare(0, expect, want, off, expect) != 0) {
      Fail("read " + name + " at " + std::to_string(off) + " got " + std::to_string(n) + " bytes, wanted " +
           std::to_string(expect));
    }
  } else if (kind < 92) {  // stat sizes
    std::string name = pick_any();
    struct stat st;
    if (stat((dir + "/" + name).c_str(), &st) != 0) Fail("stat " + name);
    if (static_cast<size_t>(st.st_size) != model[name].size()) Fail("size of " + name);
    if ((st.st_mode & 07777) != m->ModeOf(name) || !S_ISREG(st.st_mode)) Fail("mode of " + name);
  } else if (kind < 96) {  // the directory lists exactly the model
    std::set<std::string> seen;
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) Fail("opendir");
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != "..") seen.insert(n);
    }
    closedir(d);
    std::set<std::string> want;
    for (const auto& [n, c] : model) want.insert(n);
    for (const auto& [n, t] : m->links) want.insert(n);
    if (seen != want) Fail("directory listing differs from the model");
  } else if (kind < 100) {  // whole-file read
    std::string name = pick_any();
    if (ReadAll(dir + "/" + name) != model[name]) Fail("content of " + name);
  }
}

std::string ReadLinkOf(const std::string& name) {
  char buf[4096];
  ssize_t n = readlink((dir + "/" + name).c_str(), buf, sizeof(buf));
  if (n < 0) Fail("readlink " + name);
  return std::string(buf, static_cast<size_t>(n));
}

// Symbolic links (made, read, renamed, removed) and modes (110 <= kind < 120).
void LinkOrModeOp(int kind, std::mt19937_64* rng, Model* m) {
  auto pick_link = [&] {
    auto it = m->links.begin();
    std::advance(it, static_cast<long>((*rng)() % m->links.size()));
    return it->first;
  };
  if (kind < 114 || m->links.empty()) {  // a link to a file, a dangling one, or a long path
    std::string name = "l" + std::to_string(m->next++);
    std::string target = (*rng)() % 2 ? m->PickAny(rng) : "../no/such/" + std::to_string((*rng)());
    if ((*rng)() % 8 == 0) target = std::string(1 + (*rng)() % 3000, 'x');
    if (symlink(target.c_str(), (dir + "/" + name).c_str()) != 0) Fail("symlink " + name);
    m->links[name] = target;
  } else if (kind < 116) {
    std::string name = pick_link();
    if (ReadLinkOf(name) != m->links[name]) Fail("target of " + name);
  } else if (kind < 117) {
    std::string name = pick_link();
    if (unlink((dir + "/" + name).c_str()) != 0) Fail("unlink link " + name);
    m->links.erase(name);
  } else if (kind < 118) {
    std::string from = pick_link(), to = "l" + std::to_string(m->next++);
    if (rename((dir + "/" + from).c_str(), (dir + "/" + to).c_str()) != 0) Fail("rename link " + from);
    m->links[to] = m->links[from];
    m->links.erase(from);
  } else {
    std::string name = m->PickUnheld(rng);
    mode_t mode = static_cast<mode_t>(0400 + (*rng)() % 0400);
    if (chmod((dir + "/" + name).c_str(), mode) != 0) Fail("chmod " + name);
    m->modes[name] = mode;
  }
}

int RunOps(long count) {
  std::mt19937_64 rng(seed);
  Model m;
  for (op_no = 0; op_no < count; op_no++) {
    int kind = static_cast<int>(rng() % 120);
    if (m.files.size() <= m.writers.size() || kind < 15) kind = 0;
    if (kind >= 110) {
      LinkOrModeOp(kind, &rng, &m);
    } else if (kind >= 100) {
      WriterOp(&rng, &m);
    } else if (kind < 35 || (kind >= 60 && kind < 86)) {
      MutatingOp(kind, &rng, &m);
    } else {
      CheckingOp(kind, &rng, &m);
    }
  }
  for (auto& [name, w] : m.writers) {
    if (close(w.fd) != 0) Fail("close writer " + name);
  }
  for (const auto& [name, content] : m.files) {
    if (ReadAll(dir + "/" + name) != content) Fail("final content of " + name);
    struct stat st;
    if (stat((dir + "/" + name).c_str(), &st) != 0 || (st.st_mode & 07777) != m.ModeOf(name)) {
      Fail("final mode of " + name);
    }
  }
  for (const auto& [name, target] : m.links) {
    if (ReadLinkOf(name) != target) Fail("final target of " + name);
  }
  std::printf("fuse_checker: %ld operations on %zu files, seed %lu: ok\n", count, m.files.size(), seed);
  return 0;
}

// The bytes of file f at [offset, offset + n): a pure function, so a
// verifier knows them without the writer's state.
std::string CrashBytes(int f, uint64_t offset, size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; i++) {
    uint64_t x = (offset + i) * 0x9E3779B97F4A7C15ull ^ (static_cast<uint64_t>(f) << 32) ^ seed;
    x ^= x >> 29;
    s[i] = static_cast<char>(x * 0xBF58476D1CE4E5B9ull >> 56);
  }
  return s;
}

int RunCrash(const std::string& log_path, bool fsyncs) {
  std::mt19937_64 rng(seed);
  FILE* log = std::fopen(log_path.c_str(), "a");
  if (log == nullptr) Fail("open log");
  std::map<int, uint64_t> sizes;
  int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  for (op_no = 0;; op_no++) {
    int f = static_cast<int>(rng() % 8);
    std::string path = dir + "/c" + std::to_string(f);
    bool fresh = sizes.count(f) == 0;
    int fd = open(path.c_str(), O_CREAT | O_WRONLY | O_APPEND, 0644);
    if (fd < 0) return 0;  // the daemon is gone: done
    size_t n = 1 + rng() % 50000;
    if (!WriteAll(fd, CrashBytes(f, sizes[f], n))) return 0;
    if (fsyncs && fsync(fd) != 0) return 0;
    // Hands every dirty page to the daemon and waits for its answers.
    if (!fsyncs && sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
                                                 SYNC_FILE_RANGE_WAIT_AFTER) != 0) {
      return 0;
    }
    close(fd);
    if (fresh && fsyncs && fsync(dfd) != 0) return 0;  // the name is durable too
    sizes[f] += n;
    std::fprintf(log, "%d %llu\n", f, static_cast<unsigned long long>(sizes[f]));
    std::fflush(log);
    fsync(fileno(log));
  }
}

int RunVerify(const std::string& log_path) {
  FILE* log = std::fopen(log_path.c_str(), "r");
  if (log == nullptr) Fail("open log");
  std::map<int, uint64_t> synced;
  int f;
  unsigned long long len;
  while (std::fscanf(log, "%d %llu", &f, &len) == 2) synced[f] = len;
  std::fclose(log);
  for (const auto& [file, want] : synced) {
    std::string got = ReadAll(dir + "/c" + std::to_string(file));
    if (got.size() < want) Fail("c" + std::to_string(file) + " lost synced bytes: " + std::to_string(got.size()) +
                                " < " + std::to_string(want));
    if (got != CrashBytes(file, 0, got.size())) Fail("c" + std::to_string(file) + " holds bytes never written");
  }
  std::printf("fuse_checker: %zu files hold all %s bytes synced before the kill\n", synced.size(),
              synced.empty() ? "(no)" : "the");
  return synced.empty() ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: fuse_checker ops|crash|crash-nosync|verify DIR ...\n");
    return 2;
  }
  std::string mode = argv[1];
  dir = argv[2];
  if (mode == "ops" && argc == 5) {
    seed = std::strtoul(argv[3], nullptr, 10);
    return RunOps(std::strtol(argv[4], nullptr, 10));
  }
  if ((mode == "crash" || mode == "crash-nosync" || mode == "verify") && argc == 5) {
    seed = std::strtoul(argv[4], nullptr, 10);
    if (mode == "verify") return RunVerify(argv[3]);
    return RunCrash(argv[3], /*fsyncs=*/mode == "crash");
  }
  std::fprintf(stderr, "fuse_checker: bad arguments\n");
  return 2;
}
