#define FUSE_USE_VERSION 31
#include "adapters/fuse/fuse_args.h"

#include <fuse.h>
#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "adapters/fuse/dirty_limit.h"
#include "fs/uri.h"

namespace hintfs {

namespace {

// The options of one -o list ("a,b=c"), empty ones left out.
std::vector<std::string> SplitOptionList(const std::string& list) {
  std::vector<std::string> options;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    if (comma > start) options.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return options;
}

}  // namespace

std::vector<std::string> FuseArguments(const FuseMountOptions& o, bool* writeback) {
  std::vector<std::string> args = {"hintfs"};
  if (o.debug) args.push_back("-d");
  *writeback = true;
  bool named = false, typed = false;
  for (const std::string& list : o.fuse_options) {
    std::string rest;
    for (const std::string& opt : SplitOptionList(list)) {
      if (opt == "writeback_cache") {
        *writeback = true;
      } else if (opt == "no_writeback_cache") {
        *writeback = false;
      } else {
        named = named || opt.rfind("fsname=", 0) == 0;
        typed = typed || opt.rfind("subtype=", 0) == 0;
        rest += (rest.empty() ? "" : ",") + opt;
      }
    }
    if (!rest.empty()) {
      args.push_back("-o");
      args.push_back(rest);
    }
  }
  // The kernel checks permissions against the modes and owners the
  // filesystem keeps (SetOwnership).
  std::string ours = "default_permissions";
  if (!named) ours += ",fsname=hintfs";
  if (!typed) ours += ",subtype=hintfs";
  args.push_back("-o");
  args.push_back(ours);
  return args;
}

namespace {

std::string& CapturedMessages() {
  static std::string messages;
  return messages;
}

void KeepMessage(fuse_log_level, const char* format, va_list ap) {
  char buf[512];
  std::vsnprintf(buf, sizeof(buf), format, ap);
  CapturedMessages() += buf;
}

}  // namespace

FuseLogCapture::FuseLogCapture() {
  CapturedMessages().clear();
  fuse_set_log_func(&KeepMessage);
}

FuseLogCapture::~FuseLogCapture() { fuse_set_log_func(nullptr); }

std::string FuseLogCapture::Text() {
  std::string t = CapturedMessages();
  for (char& c : t) c = c == '\n' ? ' ' : c;
  while (!t.empty() && t.back() == ' ') t.pop_back();
  if (t.rfind("fuse: ", 0) == 0) t.erase(0, 6);
  return t;
}

void FuseLogCapture::Print() { std::fputs(CapturedMessages().c_str(), stderr); }

std::string MountSpec(const FuseMountOptions& o) {
  DeviceUri uri;
  if (!DeviceUri::Parse(o.spec, &uri).ok()) return o.spec;
  if (!uri.Has("cache")) uri.params["cache"] = "off";
  for (const std::string& list : o.fuse_options) {
    for (const std::string& opt : SplitOptionList(list)) {
      if (opt == "ro") uri.params["read_only"] = "on";
      if (opt == "rw") uri.params.erase("read_only");
    }
  }
  return uri.ToString();
}

Status CheckBeforeMounting(const FuseMountOptions& o) {
  DeviceUri uri;
  if (!o.foreground && DeviceUri::Parse(o.spec, &uri).ok()) {
    const std::string address = uri.GetString("metrics", "");
    if (address.size() >= 2 && address.compare(address.size() - 2, 2, ":0") == 0) {
      return Status::InvalidArgument("metrics=" + address + " needs -f (a detached mount cannot say which port it "
                                     "picked): give a port");
    }
  }
  const std::string& mountpoint = o.mountpoint;
  char real[PATH_MAX];
  struct stat st;
  if (realpath(mountpoint.c_str(), real) == nullptr || stat(real, &st) != 0) {
    return Status::NotFound("mountpoint " + mountpoint + ": " + std::strerror(errno));
  }
  if (!S_ISDIR(st.st_mode)) return Status::InvalidArgument("mountpoint " + mountpoint + " is not a directory");
  std::string bdi;
  if (MountDeviceName(real, &bdi).ok()) {
    return Status::Busy(mountpoint + " is already a mount point (umount it first)");
  }
  return Status::OK();
}

}  // namespace hintfs
