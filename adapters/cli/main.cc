// hintfs: the command-line tool. Argument parsing only; the work is in
// commands_*.cc. The conventions (help, version, bad usage: one line and
// exit status 2) are adapters/common/cli_conventions.h's.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "adapters/cli/commands.h"
#include "adapters/common/cli_conventions.h"
#include "adapters/fuse/fuse_mount.h"
#include "fs/device/zoned_device.h"
#include "placement/policy_registry.h"

using namespace hintfs;

namespace {

// Everything the command line can set.
struct CliArgs {
  cli::MkfsArgs mkfs;
  std::string uri, path = "/", host_dir, trace_path, oracle_unit;
  bool json = false, long_format = false, recursive = false, deep = false, repair = false, salvage = false;
  uint32_t gc_zones = 16;
  std::string top_address;
  double top_interval = 1.0;
  uint32_t top_count = 0;
  std::vector<std::string> member_args;
  std::vector<int> oracle_levels;
  cli::ReplayArgs replay;
  FuseMountOptions mount;
};

// The subcommands, to tell which one was given.
struct Commands {
  CLI::App *mkfs, *info, *df, *ls, *dump, *fsck, *gc, *cat, *backup, *restore, *profiles, *trace_dump, *trace_apply,
      *replay, *mount, *top;
};

// A malformed device URI is bad usage (exit 2), found before any device is touched.
CLI::Validator DeviceUriValidator() {
  return CLI::Validator(
      [](std::string& text) {
        Status s = CheckDeviceUri(text);
        return s.ok() ? std::string() : s.message();
      },
      "DEVICE_URI");
}

// The placement policies, for --help.
std::string PolicyList() {
  std::string list;
  for (const std::string& name : AllocationPolicyNames()) list += (list.empty() ? "" : ", ") + name;
  return list;
}

// The URI of a command on an existing filesystem, and where its members are.
void AddUri(CLI::App* cmd, CliArgs* a) {
  cmd->add_option("URI", a->uri, "device URI of any member, e.g. file:/tmp/ssd.img")
      ->required()
      ->check(DeviceUriValidator());
  cmd->add_option("--member", a->member_args,
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
}

// mkfs and the commands that read or change a filesystem.
void AddFilesystemCommands(CLI::App* app, CliArgs* a, Commands* c) {
  c->mkfs = app->add_subcommand("mkfs", "create a filesystem over a fast and a slow tier");
  c->mkfs->add_option("--fast", a->mkfs.fast, "fast-tier device URI (repeatable)")->required()->check(DeviceUriValidator());
  c->mkfs->add_option("--slow", a->mkfs.slow, "slow-tier device URI (repeatable)")->check(DeviceUriValidator());
  c->mkfs->add_option("--meta-zones", a->mkfs.meta_zones, "metadata journal zones")->check(CLI::Range(2, 64));
  c->mkfs->add_option("--fast-data-zones", a->mkfs.fast_data_zones,
                      "zones of each fast device files may fill, the filesystem's own zones on top (0: all)")
      ->check(CLI::Range(0, 1 << 24));
  c->mkfs->add_option("--policy", a->mkfs.policy, "placement policy: " + PolicyList());
  c->mkfs->add_flag("--force", a->mkfs.force, "overwrite an existing filesystem or device image");
  c->mkfs->footer(
      "Examples (an emulated zoned SSD and HDD in image files, made if missing):\n"
      "  hintfs mkfs --fast 'file:/var/tmp/ssd.img?zone_size=64MiB&zones=64&profile=zn540' \\\n"
      "              --slow 'file:/var/tmp/hdd.img?zone_size=256MiB&zones=64&profile=st14000'\n"
      "  hintfs mkfs --policy hhzs --fast zbd:/dev/nvme0n2 --slow zbd:/dev/sdb");
  c->info = app->add_subcommand("info", "show the superblock and members");
  AddUri(c->info, a);
  c->info->add_flag("--json", a->json, "JSON output");
  c->info->footer("Example:\n  hintfs info file:/var/tmp/ssd.img");
  c->df = app->add_subcommand("df", "space per tier: size, live, garbage, free, amplification");
  AddUri(c->df, a);
  c->df->add_flag("--json", a->json, "JSON output");
  c->df->footer("Example:\n  hintfs df file:/var/tmp/ssd.img");
  c->ls = app->add_subcommand("ls", "list files with tier and extents");
  AddUri(c->ls, a);
  c->ls->add_option("PATH", a->path, "directory or file (default /)");
  c->ls->add_flag("-l,--long", a->long_format, "long format: size, links, role, LSM level (the store's MANIFEST's, else the level written at), tier, extents");
  c->ls->add_flag("-R,--recursive", a->recursive, "descend into directories");
  c->ls->add_flag("--json", a->json, "JSON output");
  c->ls->footer("Examples:\n  hintfs ls -l file:/var/tmp/ssd.img /db\n  hintfs ls -R --json file:/var/tmp/ssd.img");
  c->dump = app->add_subcommand("dump", "zones, files and extents");
  AddUri(c->dump, a);
  c->dump->add_flag("--json", a->json, "JSON output");
  c->dump->footer("Example:\n  hintfs dump --json file:/var/tmp/ssd.img");
  c->fsck = app->add_subcommand("fsck", "check journal, extents, write pointers; exit 3 on any problem");
  AddUri(c->fsck, a);
  c->fsck->add_flag("--deep", a->deep, "also read back every extent");
  c->fsck->add_flag("--repair", a->repair,
                    "bring a damaged filesystem back: journal replayed up to damage, files that do not "
                    "check out moved to /lost+found");
  c->fsck->add_flag("--json", a->json, "JSON output");
  c->fsck->footer("Examples:\n  hintfs fsck --deep file:/var/tmp/ssd.img\n  hintfs fsck --repair file:/var/tmp/ssd.img");
  c->gc = app->add_subcommand("gc", "relocate live data out of mostly dead zones");
  AddUri(c->gc, a);
  c->gc->add_option("--zones", a->gc_zones, "at most this many zones")->check(CLI::Range(1, 1 << 20));
  c->gc->footer("Example:\n  hintfs gc file:/var/tmp/ssd.img --zones 4");
  c->cat = app->add_subcommand("cat", "write a file to standard output");
  AddUri(c->cat, a);
  c->cat->add_option("PATH", a->path, "file")->required();
  c->cat->footer("Example:\n  hintfs cat file:/var/tmp/ssd.img /db/CURRENT");
  c->backup = app->add_subcommand("backup", "copy the whole tree to a host directory (the SSD cache's files left out)");
  AddUri(c->backup, a);
  c->backup->add_option("HOSTDIR", a->host_dir, "destination directory")->required();
  c->backup->add_flag("--salvage", a->salvage,
                      "copy what checks out of a damaged filesystem (read-only; zeros for damaged blocks)");
  c->backup->footer("Example:\n  hintfs backup file:/var/tmp/ssd.img /var/tmp/copy");
  c->restore = app->add_subcommand("restore", "copy a host directory tree into the filesystem");
  AddUri(c->restore, a);
  c->restore->add_option("HOSTDIR", a->host_dir, "source directory")->required();
  c->restore->footer("Example:\n  hintfs restore file:/var/tmp/ssd.img /var/tmp/copy");
}

// Profiles, traces, replay and the FUSE mount.
void AddToolCommands(CLI::App* app, CliArgs* a, Commands* c) {
  c->profiles = app->add_subcommand("profiles", "list the device timing profiles");
  auto* trace = app->add_subcommand("trace", "hint traces");
  trace->require_subcommand(1);
  c->trace_dump = trace->add_subcommand("dump", "print a trace's events (text, or one JSON object a line)");
  c->trace_dump->add_option("TRACE", a->trace_path, "trace file")->required();
  c->trace_dump->add_flag("--json", a->json, "JSON lines");
  c->trace_dump->footer("Example:\n  hintfs trace dump /tmp/db.trace | head");
  c->trace_apply = trace->add_subcommand("apply", "write a trace's files onto a filesystem, with its hints, as its store did");
  c->trace_apply->add_option("TRACE", a->trace_path, "trace file")->required();
  c->trace_apply->add_option("URI", a->uri, "device URI of any member, with mount options in its query")->required();
  c->trace_apply->add_option("--oracle-lifetimes", a->oracle_unit,
                             "UNIT: lifetime hints from each file's real lifetime (1 under UNIT, one more per "
                             "doubling up to 4, 5 never deleted) in place of the store's");
  c->trace_apply->add_option("--oracle-levels", a->oracle_levels,
                             "with --oracle-lifetimes: only tables of these levels get oracle hints")
      ->delimiter(',')
      ->check(CLI::Range(0, 63));
  c->trace_apply->add_flag("--json", a->json, "one JSON object");
  c->trace_apply->footer("Example:\n  hintfs mkfs --policy fast-first:lifetime=hint --fast 'file:/tmp/ssd.img?zones=40'\n"
                         "  hintfs trace apply /tmp/db.trace 'file:/tmp/ssd.img?stats=/tmp/stats.json'");
  c->replay = app->add_subcommand("replay", "run a placement policy over a trace on modelled devices");
  c->replay->add_option("TRACE", a->trace_path, "trace file")->required();
  c->replay->add_option("--policy", a->replay.policy, "placement policy: " + PolicyList())->required();
  c->replay->add_option("--ssd-zones", a->replay.ssd_zones, "fast-tier zones")->check(CLI::Range(1, 1 << 24));
  c->replay->add_option("--hdd-zones", a->replay.hdd_zones, "slow-tier zones")->check(CLI::Range(1, 1 << 24));
  c->replay->add_option("--zone-size", a->replay.zone_size, "zone capacity of both tiers");
  c->replay->add_option("--fast-profile", a->replay.fast_profile, "timing profile of the fast tier");
  c->replay->add_option("--slow-profile", a->replay.slow_profile, "timing profile of the slow tier");
  c->replay->add_flag("--json", a->replay.json, "one JSON object");
  c->replay->footer("Example:\n  hintfs replay /tmp/db.trace --policy hhzs --ssd-zones 20");
  c->mount = app->add_subcommand("mount", "serve the filesystem as a directory through FUSE");
  c->mount->add_option("URI", a->mount.spec, "member device, with mount options in its query")->required();
  c->mount->add_option("MOUNTPOINT", a->mount.mountpoint, "an existing directory")
      ->required()
      ->check(CLI::ExistingDirectory);
  c->mount->add_flag("-f,--foreground", a->mount.foreground, "stay in the foreground");
  c->mount->add_flag("-d,--debug", a->mount.debug, "FUSE debug output (implies -f)");
  c->mount->add_option("-o", a->mount.fuse_options,
                       "mount options: ro, no_writeback_cache, and FUSE's (allow_other, ...)");
  c->top = app->add_subcommand("top", "a live view of a mount's tiers, levels, migration and cache");
  c->top->add_option("ADDRESS", a->top_address, "HOST:PORT of the mount's metrics (?metrics=HOST:PORT in its URI)")
      ->required();
  c->top->add_option("--interval", a->top_interval, "seconds between frames")->check(CLI::Range(0.1, 3600.0));
  c->top->add_option("--count", a->top_count, "frames to show (0: until interrupted)");
  c->top->footer(
      "Example:\n  LD_PRELOAD=$LIB db_bench --fs_uri='hintfs://file:/tmp/x/ssd.img?metrics=127.0.0.1:9187' ... &\n"
      "  hintfs top 127.0.0.1:9187");
  c->mount->footer(
      "Examples:\n  hintfs mount 'file:/var/tmp/ssd.img?policy=hhzs' /mnt/hintfs\n"
      "  hintfs mount -o ro file:/var/tmp/ssd.img /mnt/hintfs\n  umount /mnt/hintfs");
}

int Run(const Commands& c, CliArgs& a) {
  std::map<uint32_t, std::string> member_uris;
  for (const std::string& m : a.member_args) {
    size_t eq = m.find('=');
    member_uris[static_cast<uint32_t>(std::stoul(m.substr(0, eq)))] = m.substr(eq + 1);
  }
  cli::SetMemberUris(member_uris);
  if (c.mkfs->parsed()) return cli::Mkfs(a.mkfs);
  if (c.info->parsed()) return cli::Info(a.uri, a.json);
  if (c.df->parsed()) return cli::Df(a.uri, a.json);
  if (c.ls->parsed()) return cli::Ls(a.uri, a.path, a.long_format, a.recursive, a.json);
  if (c.dump->parsed()) return cli::Dump(a.uri, a.json);
  if (c.fsck->parsed()) return a.repair ? cli::Repair(a.uri, a.json) : cli::Fsck(a.uri, a.deep, a.json);
  if (c.gc->parsed()) return cli::Gc(a.uri, a.gc_zones);
  if (c.cat->parsed()) return cli::Cat(a.uri, a.path);
  if (c.backup->parsed()) return cli::Backup(a.uri, a.host_dir, a.salvage);
  if (c.restore->parsed()) return cli::Restore(a.uri, a.host_dir);
  if (c.profiles->parsed()) return cli::Profiles();
  if (c.trace_dump->parsed()) return cli::TraceDump(a.trace_path, a.json);
  if (c.trace_apply->parsed()) return cli::TraceApply(a.trace_path, a.uri, a.oracle_unit, a.oracle_levels, a.json);
  if (c.replay->parsed()) return cli::Replay(a.trace_path, a.replay);
  if (c.top->parsed()) return cli::Top(a.top_address, a.top_interval, a.top_count);
  if (c.mount->parsed()) {
    if (a.mount.debug) a.mount.foreground = true;
    return RunFuseMount(a.mount);
  }
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"hintfs: a hint-aware tiered filesystem over zoned devices"};
  ApplyCliConventions(&app, "hintfs");
  app.require_subcommand(1);
  app.footer("Exit status: 0 success, 1 failure, 2 bad usage, 3 damage found.\n"
             "hintfs help COMMAND shows a command's options, defaults and examples.");
  CliArgs args;
  Commands commands;
  AddFilesystemCommands(&app, &args, &commands);
  AddToolCommands(&app, &args, &commands);
  int status = ParseCommandLine(&app, argc, argv);
  if (status >= 0) return status;
  return Run(commands, args);
}
