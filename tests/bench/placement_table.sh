#!/usr/bin/env bash
# The placement table of issue 4: a RocksDB load (Debian's db_bench, with the
# HintfsEventListener from an OPTIONS file) recorded as a hint trace, then
# replayed under every policy with the SSD limited to about a tenth of the
# data written. Prints, per policy, the share of WAL, L0, L1, L2 bytes
# written to the SSD and the SSD utilization.
#   bash tests/bench/placement_table.sh [KEYS] [SSD_ZONES]
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/rocksdb_options.sh
KEYS=${1:-1000000}
SSD_ZONES=${2:-11}
bash scripts/run.sh build >/dev/null
H=build/adapters/cli/hintfs
PLUGIN=$(readlink -f build/adapters/rocksdb/libhintfs_rocksdb.so)
WORK=$(mktemp -d /tmp/hintfs-placement.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
"$H" mkfs --fast "file:$WORK/ssd.img?zone_size=4MiB&zones=128" \
          --slow "file:$WORK/hdd.img?zone_size=4MiB&zones=1024" >/dev/null
mkdir "$WORK/conf"
write_rocksdb_options "$WORK/conf/options.ini" 4194304 3932160 16777216 kNoCompression
"$H" restore "file:$WORK/ssd.img" "$WORK/conf" >/dev/null
echo "recording: db_bench fillrandom, $KEYS keys of 24+400 bytes" >&2
LD_PRELOAD=$PLUGIN db_bench --fs_uri="hintfs://file:$WORK/ssd.img?trace=$WORK/load.trace" \
  --options_file=/options.ini --db=/db --benchmarks=fillrandom --num="$KEYS" --key_size=24 \
  --value_size=400 >/dev/null 2>&1
printf "%-34s %6s %6s %6s %6s %8s %9s\n" policy wal L0 L1 L2 "SSD use" "model s"
for p in "hhzs:table_bytes=4MiB,wal_budget=8MiB" "auto:wal_budget=8MiB" b1 b2 b3 b4 all-fast all-slow; do
  "$H" replay "$WORK/load.trace" --policy "$p" --ssd-zones "$SSD_ZONES" --zone-size 4MiB --json |
    python3 -c '
import json, sys
p = sys.argv[1]
j = json.load(sys.stdin)
def share(level):
    b = j["per_level"].get(level, {"fast_bytes": 0, "slow_bytes": 0})
    total = b["fast_bytes"] + b["slow_bytes"]
    return "%5.1f%%" % (100.0 * b["fast_bytes"] / total) if total else "    -"
print("%-34s %6s %6s %6s %6s %7.1f%% %9.1f" % (p, share("wal"), share("L0"), share("L1"), share("L2"),
      100 * j["ssd_utilization"], j["modeled_seconds"]), file=sys.stdout)
' "$p"
done
python3 -c "import sys; k, z = int(sys.argv[1]), int(sys.argv[2]); print('SSD: %d zones of 4 MiB = %.1f%% of the %d MiB loaded' % (z, 100.0 * z * 4 * 1048576 / (k * 424), k * 424 // 1048576))" "$KEYS" "$SSD_ZONES"
