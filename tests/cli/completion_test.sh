#!/usr/bin/env bash
# The bash completion (adapters/cli/hintfs.bash) completes what the programs'
# help says: commands, a command's options, nested commands, hintfs-ycsb's
# options; and file names where it knows nothing better.
#   bash completion_test.sh HINTFS HINTFS_YCSB COMPLETION_SCRIPT
set -euo pipefail
HINTFS=$(readlink -f "${1:?}") YCSB=$(readlink -f "${2:?}")
source "${3:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }

# Completes the words given (the last one is the word at the cursor).
complete_words() {
  COMP_WORDS=("$@")
  COMP_CWORD=$(($# - 1))
  COMPREPLY=()
  _hintfs
  echo "${COMPREPLY[*]}"
}
[ "$(complete_words "$HINTFS" mk)" = mkfs ] || fail "mk -> $(complete_words "$HINTFS" mk)"
[ "$(complete_words "$HINTFS" f)" = fsck ] || fail "f -> $(complete_words "$HINTFS" f)"
all=$(complete_words "$HINTFS" "")
for cmd in mkfs info df ls dump fsck gc cat backup restore profiles trace replay mount top; do
  [[ " $all " == *" $cmd "* ]] || fail "the commands lack $cmd: $all"
done
[ "$(complete_words "$HINTFS" fsck --de)" = --deep ] || fail "fsck --de"
[ "$(complete_words "$HINTFS" fsck file:/x.img --rep)" = --repair ] || fail "fsck URI --rep"
[ "$(complete_words "$HINTFS" trace "")" = "dump apply" ] || fail "trace -> $(complete_words "$HINTFS" trace "")"
[[ " $(complete_words "$HINTFS" trace dump --) " == *" --json "* ]] || fail "trace dump --"
[[ " $(complete_words "$HINTFS" trace apply --) " == *" --oracle-lifetimes "* ]] || fail "trace apply --"
[ "$(complete_words "$YCSB" --work)" = --workload ] || fail "hintfs-ycsb --work"
[ -z "$(complete_words "$HINTFS" cat file:/x.img /d)" ] || fail "a path inside hintfs completed as a command"
echo "bash completion: ok"
