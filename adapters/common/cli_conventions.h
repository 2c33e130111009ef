// What every hintfs program's command line does alike (README, "The hintfs
// tool"), for programs built on CLI11:
//   --help            each option with its default, then examples
//   --version         "NAME VERSION" on standard output, exit 0
//   help [COMMAND]    the same as [COMMAND] --help
//   bad usage         one line, "NAME: what is wrong (see NAME --help)",
//                     exit 2 (adapters/common/exit_status.h)
// Header-only: the programs that include it link CLI11 themselves.
#ifndef HINTFS_ADAPTERS_COMMON_CLI_CONVENTIONS_H_
#define HINTFS_ADAPTERS_COMMON_CLI_CONVENTIONS_H_

#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "adapters/common/exit_status.h"

#ifndef HINTFS_VERSION
#error "HINTFS_VERSION comes from meson.build"
#endif

namespace hintfs {

// Call before adding options and subcommands (they inherit the defaults).
inline void ApplyCliConventions(CLI::App* app, const std::string& name) {
  app->name(name);
  app->set_version_flag("--version", name + " " HINTFS_VERSION);
  app->option_defaults()->always_capture_default();
  app->get_formatter()->column_width(36);
}

// Parses argv into app. Returns -1 if the program should go on, else the
// status to exit with: 0 after printing help or the version, 2 after a
// one-line usage error on standard error.
inline int ParseCommandLine(CLI::App* app, int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "help") {  // "help CMD" is "CMD --help"
    args.erase(args.begin());
    args.push_back("--help");
  }
  std::string names;
  bool known = false;
  for (const CLI::App* sub : app->get_subcommands({})) {
    names += (names.empty() ? "" : ", ") + sub->get_name();
    known = known || (!args.empty() && args[0] == sub->get_name());
  }
  if (app->get_require_subcommand_min() > 0 && (args.empty() || (args[0][0] != '-' && !known))) {
    std::string what = args.empty() ? "a command is required" : "unknown command '" + args[0] + "'";
    std::fprintf(stderr, "%s: %s; the commands: %s (see %s help [COMMAND])\n", app->get_name().c_str(),
                 what.c_str(), names.c_str(), app->get_name().c_str());
    return kExitUsage;
  }
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    app->parse(reversed);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app->exit(e);  // --help, --version
    // Point at the help of the command that was being parsed.
    std::string command = app->get_name();
    for (const CLI::App* at = app; !at->get_subcommands().empty();) {
      at = at->get_subcommands().front();
      command += " " + at->get_name();
    }
    std::string hint = command == app->get_name() ? command + " --help" : app->get_name() + " help" + command.substr(app->get_name().size());
    std::fprintf(stderr, "%s: %s (see %s)\n", command.c_str(), e.what(), hint.c_str());
    return kExitUsage;
  }
  return -1;
}

}  // namespace hintfs

#endif  // HINTFS_ADAPTERS_COMMON_CLI_CONVENTIONS_H_
