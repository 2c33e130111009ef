#!/usr/bin/env bash
# tests/bench/manifest_lifetimes.py on a MANIFEST dump whose lifetimes are
# known, and on bad input.
set -euo pipefail
SCRIPT=$(dirname "$0")/manifest_lifetimes.py
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Tables of 1 MiB (1048576 bytes). L1 #10 and #11 are added, then a
# compaction deletes #10 and writes #12 and #13 (#12 first), then #11 and
# #12 are deleted: #10 lived 2 MiB (#10, #11 written after its birth), #11 3
# MiB, #12 2 MiB; #13 never died.
add() { echo "  AddFile: $1 $2 1048576 '$3' seq:1, type:1 .. '$4' seq:2, type:1 file_checksum: Unknown"; }
{
  echo "VersionEdit {"; add 1 10 0000000000000000 00000000000000FF; echo "}"
  echo "VersionEdit {"; add 1 11 0000000000000100 00000000000001FF; echo "}"
  echo "VersionEdit {"; echo "  DeleteFile: 1 10"; add 1 12 0000000000000000 000000000000007F
  add 1 13 0000000000000080 00000000000000FF; echo "}"
  echo "VersionEdit {"; echo "  DeleteFile: 1 11"; echo "  DeleteFile: 1 12"; echo "}"
} >"$DIR/dump"

out=$(python3 "$SCRIPT" "$DIR/dump" 1)
grep -q "^4 MiB of tables written" <<<"$out" || fail "clock: $out"
grep -Eq "^ +1 +4 +1  \[2, 2, 2, 3, 3\]" <<<"$out" || fail "level 1 row: $out"
grep -Eq "^  first output +3 \[2, 2, 2, 3, 3\]" <<<"$out" || fail "first outputs: $out"
grep -Eq "^  last output +0 \[\]" <<<"$out" || fail "last outputs: $out"

status=0; python3 "$SCRIPT" "$DIR/missing" 1 2>"$DIR/err" || status=$?
[ "$status" = 1 ] && grep -q "cannot read" "$DIR/err" || fail "missing dump: status $status"
status=0; python3 "$SCRIPT" "$DIR/dump" one 2>"$DIR/err" || status=$?
[ "$status" = 2 ] && grep -q "^usage:" "$DIR/err" || fail "bad level: status $status"
status=0; python3 "$SCRIPT" "$DIR/dump" 2 >/dev/null 2>"$DIR/err" || status=$?
[ "$status" = 1 ] && grep -q "no table of level 2 died" "$DIR/err" || fail "empty level: status $status"
printf '\xff\xfe\n' >"$DIR/binary"
status=0; python3 "$SCRIPT" "$DIR/binary" 1 2>"$DIR/err" || status=$?
[ "$status" = 1 ] || fail "binary dump: status $status"
echo "manifest_lifetimes: ok"
