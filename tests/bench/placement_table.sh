#!/usr/bin/env bash
# The placement table of issues 4 and 5: a RocksDB load (Debian's db_bench,
# with the HintfsEventListener from an OPTIONS file) recorded as a hint trace,
# then replayed under every policy with the SSD limited to about a tenth of
# the data. The RocksDB shape is HHZS's (§4: memtables of half a table, two
# merged per flush, at most four; L1 one table; x10 per level; tables 93.9%
# of a zone; SSD of 20 zones, 2 of them for the WAL) scaled from 1 GiB zones
# to 4 MiB, with compaction of L0 at 2 tables; the load is throttled (as in
# HHZS Fig. 2(d)-(f)) to 8 MB/s so compactions keep the levels near their
# targets. Prints, per policy, the share of WAL, L0, L1, L2 bytes written to
# the SSD, the share of each level's data on the SSD at the end, the SSD
# utilization and the bytes migrated.
#   bash tests/bench/placement_table.sh [KEYS] [SSD_ZONES]
#   KEEP_TRACE=FILE keeps the recorded trace; TRACE=FILE replays it instead
#   of recording; DB_BENCH_EXTRA adds db_bench flags (default: the throttle).
#   STORE picks what is recorded (issue 20: stores that send no hints):
#     rocksdb             db_bench through the plugin, listener attached (default)
#     rocksdb-nolistener  the same without the listener (hints inferred from I/O)
#     rocksdb-mount       db_bench with its default Env on a FUSE mount
#     leveldb             LevelDB through our Env (hintfs-ycsb's load, same
#                         records, throttle and table size)
#     leveldb-mount       LevelDB with its default Env on a FUSE mount
#   SHAPE=leveldb gives RocksDB LevelDB's level shape instead of HHZS's: L1
#   of 10 MiB (LevelDB's fixed size), L0 compacted at 4 tables, one memtable
#   per flush; what LevelDB's placement is compared with (issue 20).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/rocksdb_options.sh
KEYS=${1:-2000000}
SSD_ZONES=${2:-20}
bash scripts/run.sh build >/dev/null
H=build/adapters/cli/hintfs
PLUGIN=$(readlink -f build/adapters/rocksdb/libhintfs_rocksdb.so)
WORK=$(mktemp -d /tmp/hintfs-placement.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
"$H" mkfs --fast "file:$WORK/ssd.img?zone_size=4MiB&zones=256" \
          --slow "file:$WORK/hdd.img?zone_size=4MiB&zones=1024" >/dev/null
mkdir "$WORK/conf"
case ${SHAPE:-hhzs} in
  hhzs) LEVEL_BASE=4194304
        SHAPE_CF=(max_write_buffer_number=4 min_write_buffer_number_to_merge=2
                  ${EXTRA_CF:-level0_file_num_compaction_trigger=2}) ;;
  leveldb) LEVEL_BASE=10485760
           SHAPE_CF=(max_write_buffer_number=2 min_write_buffer_number_to_merge=1
                     level0_file_num_compaction_trigger=4) ;;
  *) echo "placement_table.sh: unknown SHAPE '$SHAPE' (hhzs or leveldb)" >&2; exit 2 ;;
esac
write_rocksdb_options "$WORK/conf/options.ini" 1969225 3938451 "$LEVEL_BASE" kNoCompression "${SHAPE_CF[@]}"
"$H" restore "file:$WORK/ssd.img" "$WORK/conf" >/dev/null
STORE=${STORE:-rocksdb}
SPEC="file:$WORK/ssd.img?trace=$WORK/load.trace"
DB_BENCH_ARGS=(--benchmarks=fillrandom --num="$KEYS" --key_size=24 --value_size=400
               ${DB_BENCH_EXTRA:---benchmark_write_rate_limit=8000000})
# hintfs-ycsb's load at the same 8 MB/s (424-byte records), LevelDB sized as
# RocksDB is above: memtables of half a table, tables 93.9% of a zone.
YCSB_LOAD=(--engine leveldb --records "$KEYS" --load --ops 0 --key-size 24 --value-size 400
           --target 18867 --db-options "write_buffer_size=1969225;max_file_size=3938451")
with_mount() {  # runs "$@" with $WORK/mnt served by a mount recording the trace
  mkdir -p "$WORK/mnt"
  "$H" mount -f "$SPEC" "$WORK/mnt" & local pid=$!
  for _ in $(seq 100); do mountpoint -q "$WORK/mnt" && break; sleep 0.1; done
  "$@"
  fusermount3 -u "$WORK/mnt"
  wait "$pid"  # the trace is complete once the daemon has unmounted
}
if [ -n "${TRACE:-}" ]; then
  cp "$TRACE" "$WORK/load.trace"
else
  echo "recording ($STORE): a random load of $KEYS keys of 24+400 bytes" >&2
  case $STORE in
    rocksdb)
      LD_PRELOAD=$PLUGIN db_bench --fs_uri="hintfs://$SPEC" --options_file=/options.ini --db=/db \
        "${DB_BENCH_ARGS[@]}" >/dev/null 2>&1 ;;
    rocksdb-nolistener)
      grep -v listeners= "$WORK/conf/options.ini" > "$WORK/conf/bare.ini"
      "$H" restore "file:$WORK/ssd.img" "$WORK/conf" >/dev/null
      LD_PRELOAD=$PLUGIN db_bench --fs_uri="hintfs://$SPEC" --options_file=/bare.ini --db=/db \
        "${DB_BENCH_ARGS[@]}" >/dev/null 2>&1 ;;
    rocksdb-mount)
      grep -v listeners= "$WORK/conf/options.ini" > "$WORK/bare.ini"
      with_mount db_bench --options_file="$WORK/bare.ini" --db="$WORK/mnt/db" \
        "${DB_BENCH_ARGS[@]}" >/dev/null 2>&1 ;;
    leveldb)
      build/adapters/bench/hintfs-ycsb --uri "$SPEC" --db /db "${YCSB_LOAD[@]}" >/dev/null ;;
    leveldb-mount)
      with_mount build/adapters/bench/hintfs-ycsb --dir "$WORK/mnt/db" "${YCSB_LOAD[@]}" >/dev/null ;;
    *) echo "placement_table.sh: unknown STORE '$STORE'" >&2; exit 2 ;;
  esac
fi
if [ -n "${KEEP_TRACE:-}" ]; then cp "$WORK/load.trace" "$KEEP_TRACE"; fi
printf "%-10s | %6s %6s %6s %6s | %6s %6s %6s %6s | %7s | %8s %8s\n" policy \
  wal L0 L1 L2 L0 L1 L2 L3 "SSD use" "to SSD" "to HDD"
printf "%-10s | %-27s | %-27s |\n" "" "written to the SSD" "on the SSD at the end"
for p in hhzs hhzs-P hhzs-hold auto b1 b2 b3 b3m b4 all-fast all-slow; do
  case $p in
    hhzs) spec="hhzs:table_bytes=4MiB,wal_budget=8MiB,replace_inputs=off,fill=upper,wal_window_ms=0,wal_peak=on,level_hold_ms=0" ;;
    hhzs-P) spec="hhzs:table_bytes=4MiB,wal_budget=8MiB,migration=off,replace_inputs=off,wal_window_ms=0,wal_peak=on,level_hold_ms=0" ;;
    hhzs-hold) spec="hhzs:table_bytes=4MiB,wal_budget=8MiB,hold_ms=1000,replace_inputs=off,fill=upper,wal_window_ms=0,wal_peak=on,level_hold_ms=0" ;;
    auto) spec="auto:wal_budget=8MiB" ;;
    b3m) spec="b3:table_bytes=4MiB,migration=on" ;;  # HHZS Exp#2's B3+M
    *) spec=$p ;;
  esac
  "$H" replay "$WORK/load.trace" --policy "$spec" --ssd-zones "$SSD_ZONES" --zone-size 4MiB --json |
    python3 -c '
import json, sys
p = sys.argv[1]
j = json.load(sys.stdin)
def share(table, level):
    b = j[table].get(level, {"fast_bytes": 0, "slow_bytes": 0})
    total = b["fast_bytes"] + b["slow_bytes"]
    return "%5.1f%%" % (100.0 * b["fast_bytes"] / total) if total else "     -"
m = j["migration"]
print("%-10s | %6s %6s %6s %6s | %6s %6s %6s %6s | %6.1f%% | %5.0f MiB %5.0f MiB" % (p,
      share("per_level", "wal"), share("per_level", "L0"), share("per_level", "L1"), share("per_level", "L2"),
      share("resident", "L0"), share("resident", "L1"), share("resident", "L2"), share("resident", "L3"),
      100 * j["ssd_utilization"], m["to_fast_bytes"] / 1048576.0, m["to_slow_bytes"] / 1048576.0))
' "$p"
done
python3 -c "import sys; k, z = int(sys.argv[1]), int(sys.argv[2]); print('SSD: %d zones of 4 MiB = %.1f%% of the %d MiB loaded; hhzs-P: without migration; hhzs-hold: claims held 1 s' % (z, 100.0 * z * 4 * 1048576 / (k * 424), k * 424 // 1048576))" "$KEYS" "$SSD_ZONES"
