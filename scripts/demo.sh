#!/usr/bin/env bash
# The main demo: unmodified RocksDB (Debian's db_bench) on hintfs over two
# emulated zoned devices in a temporary directory — a ZNS SSD modelled on the
# WD ZN540 and a host-managed SMR HDD modelled on the Seagate ST14000, both
# sped up 20x with their ratios kept. Loads data, runs a mixed read/write
# phase, then shows throughput, bytes per tier and which LSM levels live on
# which tier, and checks the filesystem.
set -euo pipefail
source "$(dirname "$0")/lib/rocksdb_options.sh"
HINTFS=${1:?usage: demo.sh path/to/hintfs path/to/libhintfs_rocksdb.so}
PLUGIN=$(readlink -f "${2:?}")
WORK=$(mktemp -d /tmp/hintfs-demo.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export HINTFS_DEVICE_PARAMS="profile_scale=20"
URI="hintfs://file:$WORK/ssd.img"

echo "== devices in $WORK: fast 12 x 32 MiB zones (zn540), slow 64 x 32 MiB zones (st14000)"
"$HINTFS" mkfs --fast "file:$WORK/ssd.img?zone_size=32MiB&zones=12&profile=zn540" \
               --slow "file:$WORK/hdd.img?zone_size=32MiB&zones=64&profile=st14000"
mkdir "$WORK/conf"
write_rocksdb_options "$WORK/conf/options.ini" 8388608 8388608 33554432
"$HINTFS" restore "file:$WORK/ssd.img" "$WORK/conf" >/dev/null

bench() {
  LD_PRELOAD=$PLUGIN db_bench --fs_uri="$URI" --options_file=/options.ini --db=/db \
    --value_size=400 --compression_type=none "$@" 2>&1 | grep -E "^(fillrandom|readrandomwriterandom) "
}
echo "== load: 800,000 random keys with 400-byte values (stock db_bench via LD_PRELOAD)"
bench --benchmarks=fillrandom --num=800000
echo "== mixed phase: 90% reads, 10% writes for 10 seconds"
bench --benchmarks=readrandomwriterandom --use_existing_db=1 --num=800000 --readwritepercent=90 --duration=10

echo "== bytes per tier"
"$HINTFS" df "file:$WORK/ssd.img"

echo "== LSM levels per tier (recorded by HintfsEventListener)"
"$HINTFS" ls --json "file:$WORK/ssd.img" /db | python3 -c '
import json, sys
rows = {}
for f in json.load(sys.stdin):
    if not f["path"].endswith(".sst"): continue
    key = ("L%d" % f["level"] if f["level"] >= 0 else "?", f["tier"])
    n, size = rows.get(key, (0, 0))
    rows[key] = (n + 1, size + f["size"])
print("%-6s %-6s %6s %10s" % ("level", "tier", "tables", "MiB"))
for (level, tier), (n, size) in sorted(rows.items()):
    print("%-6s %-6s %6d %10.1f" % (level, tier, n, size / 1048576))
'
echo "== fsck"
"$HINTFS" fsck "file:$WORK/ssd.img"
