#!/usr/bin/env bash
# Writes the man page of a hintfs program with help2man, from its own --help
# and --version; for hintfs, every command's help (hintfs help COMMAND) goes
# in a COMMANDS section.
#   bash man_page.sh PROGRAM OUTPUT
set -euo pipefail
program=${1:?} output=${2:?}
name=$(basename "$program")
include=$(mktemp)
trap 'rm -f "$include"' EXIT
{
  echo "[EXIT STATUS]"
  echo "0 success; 1 failed (no such image or file, not a hintfs image, refused, in use, no space,"
  echo "an I/O error); 2 bad usage (nothing was touched); 3 damage found."
  if [ "$name" = hintfs ]; then
    echo "[COMMANDS]"
    commands=$("$program" --help | sed -n '/^Subcommands:/,/^$/p' | awk 'NR > 1 && NF {print $1}')
    for cmd in $commands; do
      echo ".SS $cmd"
      echo ".nf"
      "$program" help "$cmd" | sed 's/\\/\\\\/g; s/^\./\\\&./'
      echo ".fi"
    done
    echo "[SEE ALSO]"
    echo "hintfs-ycsb(1); the README and docs/ of the hintfs sources."
  else
    echo "[SEE ALSO]"
    echo "hintfs(1)"
  fi
} > "$include"
help2man --no-info --no-discard-stderr --section 1 --include "$include" \
  --name "$("$program" --help | head -1 | sed 's/^[^:]*: //')" --output "$output" "$program"
