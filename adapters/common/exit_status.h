// The exit statuses of every hintfs program (hintfs and its subcommands,
// hintfs-ycsb), one table for all of them (README, "Exit statuses"):
//
//   0  success
//   1  failed: not found, not a hintfs image, refused, in use, no space,
//      an I/O error; the one-line message says which and what to do
//   2  bad usage: an unknown command or option, a malformed URI, value or
//      mount option; nothing was touched
//   3  damage: a checksum or structure check failed, fsck found problems
//      (or a repair left some), backup --salvage met damaged data
#ifndef HINTFS_ADAPTERS_COMMON_EXIT_STATUS_H_
#define HINTFS_ADAPTERS_COMMON_EXIT_STATUS_H_

#include "fs/status.h"

namespace hintfs {

enum ExitStatus : int {
  kExitOk = 0,
  kExitFailed = 1,
  kExitUsage = 2,
  kExitDamage = 3,
};

// The status of a program whose operation ended with s: 0 if it is ok, 3 for
// Corruption, 1 for the rest (usage errors are found while parsing arguments,
// before any Status exists).
inline int ExitStatusFor(const Status& s) {
  if (s.ok()) return kExitOk;
  return s.IsCorruption() ? kExitDamage : kExitFailed;
}

}  // namespace hintfs

#endif  // HINTFS_ADAPTERS_COMMON_EXIT_STATUS_H_
