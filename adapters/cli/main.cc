// hintfs: the command-line tool. Argument parsing only; the work is in
// commands_*.cc. Bad usage prints one line and exits with status 2.
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "adapters/cli/commands.h"
#include "adapters/fuse/fuse_mount.h"
#include "fs/device/zoned_device.h"

using namespace hintfs;

int main(int argc, char** argv) {
  CLI::App app{"hintfs: a hint-aware tiered filesystem over zoned devices"};
  // A malformed device URI is bad usage (exit 2), found before any device is touched.
  CLI::Validator device_uri(
      [](std::string& text) {
        Status s = CheckDeviceUri(text);
        return s.ok() ? std::string() : s.message();
      },
      "DEVICE_URI");
  app.require_subcommand(1);
  app.set_version_flag("--version", "hintfs 0.1.0");

  cli::MkfsArgs mkfs;
  auto* mkfs_cmd = app.add_subcommand("mkfs", "create a filesystem over a fast and a slow tier");
  mkfs_cmd->add_option("--fast", mkfs.fast, "fast-tier device URI (repeatable)")->required()->check(device_uri);
  mkfs_cmd->add_option("--slow", mkfs.slow, "slow-tier device URI (repeatable)")->check(device_uri);
  mkfs_cmd->add_option("--meta-zones", mkfs.meta_zones, "metadata journal zones")->check(CLI::Range(2, 64));
  mkfs_cmd->add_option("--policy", mkfs.policy, "placement policy");
  mkfs_cmd->add_flag("--force", mkfs.force, "overwrite an existing filesystem or device image");

  std::string uri, path = "/", host_dir;
  bool json = false, long_format = false, recursive = false, deep = false;
  uint32_t gc_zones = 16;
  std::vector<std::string> member_args;
  auto add_uri = [&](CLI::App* cmd) {
    cmd->add_option("URI", uri, "device URI of any member, e.g. file:/tmp/ssd.img")->required()->check(device_uri);
    cmd->add_option("--member", member_args,
                    "N=URI: open member N there instead of where mkfs recorded it (moved or copied images)")
        ->check(CLI::Validator(
            [](std::string& text) {
              size_t eq = text.find('=');
              if (eq == 0 || eq == std::string::npos || eq > 6 || text.find_first_not_of("0123456789") != eq) {
                return std::string("expected N=URI, e.g. 1=file:/var/tmp/hdd.img");
              }
              Status s = CheckDeviceUri(text.substr(eq + 1));
              return s.ok() ? std::string() : s.message();
            },
            "N=URI"));
  };
  auto* info = app.add_subcommand("info", "show the superblock and members");
  add_uri(info);
  info->add_flag("--json", json, "JSON output");
  auto* df = app.add_subcommand("df", "space per tier: size, live, garbage, free, amplification");
  add_uri(df);
  df->add_flag("--json", json, "JSON output");
  auto* ls = app.add_subcommand("ls", "list files with tier and extents");
  add_uri(ls);
  ls->add_option("PATH", path, "directory or file (default /)");
  ls->add_flag("-l,--long", long_format, "long format: size, links, role, tier, extents");
  ls->add_flag("-R,--recursive", recursive, "descend into directories");
  ls->add_flag("--json", json, "JSON output");
  auto* dump = app.add_subcommand("dump", "zones, files and extents");
  add_uri(dump);
  dump->add_flag("--json", json, "JSON output");
  auto* fsck = app.add_subcommand("fsck", "check journal, extents, write pointers; exit 1 on any problem");
  add_uri(fsck);
  fsck->add_flag("--deep", deep, "also read back every extent");
  bool repair = false, salvage = false;
  fsck->add_flag("--repair", repair,
                 "bring a damaged filesystem back: journal replayed up to damage, files that do not "
                 "check out moved to /lost+found");
  fsck->add_flag("--json", json, "JSON output");
  auto* gc = app.add_subcommand("gc", "relocate live data out of mostly dead zones");
  add_uri(gc);
  gc->add_option("--zones", gc_zones, "at most this many zones")->check(CLI::Range(1, 1 << 20));
  auto* cat = app.add_subcommand("cat", "write a file to standard output");
  add_uri(cat);
  cat->add_option("PATH", path, "file")->required();
  auto* backup = app.add_subcommand("backup", "copy the whole tree to a host directory");
  add_uri(backup);
  backup->add_option("HOSTDIR", host_dir, "destination directory")->required();
  auto* restore = app.add_subcommand("restore", "copy a host directory tree into the filesystem");
  add_uri(restore);
  restore->add_option("HOSTDIR", host_dir, "source directory")->required();
  backup->add_flag("--salvage", salvage,
                   "copy what checks out of a damaged filesystem (read-only; zeros for damaged blocks)");
  auto* profiles = app.add_subcommand("profiles", "list the device timing profiles");

  std::string trace_path;
  auto* trace = app.add_subcommand("trace", "hint traces");
  trace->require_subcommand(1);
  auto* trace_dump = trace->add_subcommand("dump", "print a trace's events (text, or one JSON object a line)");
  trace_dump->add_option("TRACE", trace_path, "trace file")->required();
  trace_dump->add_flag("--json", json, "JSON lines");
  cli::ReplayArgs replay_args;
  auto* replay = app.add_subcommand("replay", "run a placement policy over a trace on modelled devices");
  replay->add_option("TRACE", trace_path, "trace file")->required();
  replay->add_option("--policy", replay_args.policy, "placement policy (hhzs, b1..b4, all-fast, ...)");
  replay->add_option("--ssd-zones", replay_args.ssd_zones, "fast-tier zones")->check(CLI::Range(1, 1 << 24));
  replay->add_option("--hdd-zones", replay_args.hdd_zones, "slow-tier zones")->check(CLI::Range(1, 1 << 24));
  replay->add_option("--zone-size", replay_args.zone_size, "zone capacity of both tiers");
  replay->add_option("--fast-profile", replay_args.fast_profile, "timing profile of the fast tier");
  replay->add_option("--slow-profile", replay_args.slow_profile, "timing profile of the slow tier");
  replay->add_flag("--json", replay_args.json, "one JSON object");

  FuseMountOptions mount_opts;
  auto* mount = app.add_subcommand("mount", "serve the filesystem as a directory through FUSE");
  mount->add_option("URI", mount_opts.spec, "member device, with mount options in its query")->required();
  mount->add_option("MOUNTPOINT", mount_opts.mountpoint, "an existing directory")->required()->check(CLI::ExistingDirectory);
  mount->add_flag("-f,--foreground", mount_opts.foreground, "stay in the foreground");
  mount->add_flag("-d,--debug", mount_opts.debug, "FUSE debug output (implies -f)");
  mount->add_option("-o", mount_opts.fuse_options, "mount options: no_writeback_cache, and FUSE's (allow_other, ...)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string msg = e.what();
    std::fprintf(stderr, "hintfs: %s (see hintfs --help)\n", msg.c_str());
    return 2;
  }

  std::map<uint32_t, std::string> member_uris;
  for (const std::string& m : member_args) {
    size_t eq = m.find('=');
    member_uris[static_cast<uint32_t>(std::stoul(m.substr(0, eq)))] = m.substr(eq + 1);
  }
  cli::SetMemberUris(member_uris);
  if (mkfs_cmd->parsed()) return cli::Mkfs(mkfs);
  if (info->parsed()) return cli::Info(uri, json);
  if (df->parsed()) return cli::Df(uri, json);
  if (ls->parsed()) return cli::Ls(uri, path, long_format, recursive, json);
  if (dump->parsed()) return cli::Dump(uri, json);
  if (fsck->parsed()) return repair ? cli::Repair(uri, json) : cli::Fsck(uri, deep, json);
  if (gc->parsed()) return cli::Gc(uri, gc_zones);
  if (cat->parsed()) return cli::Cat(uri, path);
  if (backup->parsed()) return cli::Backup(uri, host_dir, salvage);
  if (restore->parsed()) return cli::Restore(uri, host_dir);
  if (profiles->parsed()) return cli::Profiles();
  if (trace_dump->parsed()) return cli::TraceDump(trace_path, json);
  if (replay->parsed()) return cli::Replay(trace_path, replay_args);
  if (mount->parsed()) {
    if (mount_opts.debug) mount_opts.foreground = true;
    return RunFuseMount(mount_opts);
  }
  return 2;
}
