#include "adapters/fuse/dirty_limit.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace hintfs {

namespace {

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string Unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); i++) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '3') {
      out.push_back(static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0')));
      i += 3;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

Status WriteSysfs(const std::string& path, const std::string& value) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return Status::IOError(fmt::format("{}: {}", path, std::strerror(errno)), errno);
  ssize_t n = ::write(fd, value.data(), value.size());
  int err = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(value.size())) {
    return Status::IOError(fmt::format("{}: {}", path, std::strerror(err)), err);
  }
  return Status::OK();
}

}  // namespace

Status MountDeviceName(const std::string& mountpoint, std::string* bdi) {
  char resolved[PATH_MAX];
  if (::realpath(mountpoint.c_str(), resolved) == nullptr) {
    return Status::IOError(fmt::format("{}: {}", mountpoint, std::strerror(errno)), errno);
  }
  std::ifstream in("/proc/self/mountinfo");
  std::string line, found;
  // Fields: id parent major:minor root mountpoint ...; the last match is the
  // mount on top.
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string id, parent, dev, root, point;
    if (!(fields >> id >> parent >> dev >> root >> point)) continue;
    if (Unescape(point) == resolved) found = dev;
  }
  if (found.empty()) return Status::NotFound(fmt::format("nothing is mounted on {}", resolved));
  *bdi = found;
  return Status::OK();
}

Status LiftDirtyLimit(const std::string& bdi) {
  std::string dir = "/sys/class/bdi/" + bdi;
  Status s = WriteSysfs(dir + "/strict_limit", "0");
  if (s.ok()) s = WriteSysfs(dir + "/max_ratio", "100");
  return s;
}

}  // namespace hintfs
