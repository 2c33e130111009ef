// hintfs fsck --repair: bring a damaged filesystem back to a mountable,
// consistent state, keeping every file whose data checks out.
#include <cstdio>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "adapters/cli/commands.h"
#include "adapters/cli/progress.h"

namespace hintfs {
namespace cli {

namespace {

// Reads every byte of path; the first error, if any.
Status ReadAll(Filesystem* fs, const std::string& path) {
  std::unique_ptr<FileReader> r;
  Status s = fs->OpenReader(path, &r);
  std::string buf(1 << 20, '\0');
  for (uint64_t off = 0; s.ok() && off < r->Size();) {
    size_t got = 0;
    s = r->Read(off, buf.size(), &buf[0], &got);
    if (got == 0) break;
    off += got;
  }
  return s;
}

// Moves the files whose data does not read back to /lost+found.
Status SetAsideUnreadable(Filesystem* fs, std::vector<std::string>* done) {
  std::vector<std::string> files;
  Status s = Walk(fs, "/", true, [&](const std::string& path, const DirEntry& e) {
    if (e.type == FileType::kFile && path.rfind(std::string(kLostAndFound) + "/", 0) != 0) files.push_back(path);
  });
  if (!s.ok()) return s;
  ProgressBar bar("fsck --repair: reading files", true);
  for (size_t i = 0; i < files.size(); i++) {
    bar.Update(i, files.size());
    Status bad = ReadAll(fs, files[i]);
    if (bad.ok()) continue;
    s = fs->Mkdir(kLostAndFound);
    if (!s.ok() && !s.IsAlreadyExists()) return s;
    FileStat st;
    s = fs->Stat(files[i], &st);
    std::string to = fmt::format("{}/{}-{}", kLostAndFound, st.inode, files[i].substr(files[i].rfind('/') + 1));
    if (s.ok()) s = fs->Rename(files[i], to);
    if (!s.ok()) return s;
    done->push_back(fmt::format("{} moved to {}: {}", files[i], to, bad.message()));
  }
  bar.Finish();
  return fs->SyncMetadata();
}

}  // namespace

int Repair(const std::string& uri, bool as_json) {
  std::vector<std::string> done;
  {
    std::unique_ptr<Filesystem> fs;
    Status s = MountForCli(uri, false, &fs, /*repair=*/true);
    if (!s.ok()) return Fail("fsck --repair", s);
    done = fs->Stats().repairs;
    s = SetAsideUnreadable(fs.get(), &done);
    if (s.ok()) s = fs->Unmount();
    if (!s.ok()) return Fail("fsck --repair", s);
  }
  std::unique_ptr<Filesystem> fs;
  Status s = MountForCli(uri, true, &fs);
  FsckReport report;
  if (s.ok()) s = fs->Check(/*deep=*/true, &report, nullptr);
  if (!s.ok()) return Fail("fsck --repair: checking the result", s);
  if (as_json) {
    std::cout << nlohmann::json{{"ok", report.ok()}, {"repairs", done}, {"errors", report.errors},
                                {"warnings", report.warnings}}
                     .dump(2)
              << "\n";
  } else {
    for (const auto& d : done) std::printf("repaired: %s\n", d.c_str());
    for (const auto& e : report.errors) std::printf("error: %s\n", e.c_str());
    std::printf("%s after repair: %llu files, %llu directories%s\n", report.ok() ? "clean" : "PROBLEMS REMAIN",
                static_cast<unsigned long long>(report.files), static_cast<unsigned long long>(report.directories),
                done.empty() ? ", nothing to repair" : "");
  }
  return report.ok() ? kExitOk : kExitDamage;
}

}  // namespace cli
}  // namespace hintfs
