#!/usr/bin/env bash
# hintfs-ycsb's closing cache line counts what `hintfs info` shows after the
# run: the whole mount's hits and lookups (its phase lines count only their
# own), so the two tools agree on the same run.
#   bash ycsb_test.sh hintfs hintfs-ycsb
set -euo pipefail
HINTFS=${1:?usage: ycsb_test.sh hintfs hintfs-ycsb}
YCSB=${2:?usage: ycsb_test.sh hintfs hintfs-ycsb}
WORK=$(mktemp -d /tmp/hintfs-ycsb.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# b1 keeps the tables on the slow tier; the cache gets 8 MiB of the fast one.
"$HINTFS" mkfs --policy "b1:cache=all,cache_budget=8MiB" \
  --fast "file:$WORK/ssd.img?zone_size=4MiB&zones=16" --slow "file:$WORK/hdd.img?zone_size=4MiB&zones=64" >/dev/null
"$YCSB" --uri "file:$WORK/ssd.img" --records 50000 --load --ops 30000 --workload C --block-cache 16384 \
  --db-options "write_buffer_size=1048576;target_file_size_base=1048576" > "$WORK/ycsb.txt"
read -r hits lookups < <(sed -nE 's/^cache since mount: ([0-9]+) hits of ([0-9]+) lookups .*/\1 \2/p' "$WORK/ycsb.txt")
[ -n "${lookups:-}" ] || { cat "$WORK/ycsb.txt"; fail "no 'cache since mount' line"; }
[ "$hits" -gt 0 ] || fail "the cache served nothing ($hits of $lookups): the check would prove little"
read -r info_hits info_lookups < <("$HINTFS" info --json "file:$WORK/ssd.img" |
  python3 -c 'import json, sys; c = json.load(sys.stdin)["cache"]; print(c["hits"], c["lookups"])')
[ "$hits $lookups" = "$info_hits $info_lookups" ] ||
  fail "hintfs-ycsb says $hits of $lookups, hintfs info $info_hits of $info_lookups"
echo "ycsb cache figures agree: $hits hits of $lookups lookups"
