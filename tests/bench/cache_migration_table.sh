#!/usr/bin/env bash
# HHZS Exp#2 at a small scale (issue 5): P (write-guided placement), P+M
# (with workload-aware migration) and P+M+C (with the SSD block cache fed
# by RocksDB's secondary cache), each under two workloads run after a fresh
# load: W2 (50% reads, 50% updates, zipf 0.9) and W4 (reads only, zipf 1.2).
# Devices: emulated zn540 and st14000 timing, both sped up by PROFILE_SCALE
# (ratios kept). HHZS's shape scaled from 1 GiB zones to 2 MiB: tables just
# under a zone, memtables of half a table (two merged per flush, at most
# four), L1 one table, x10 per level, a WAL budget of two zones, the SSD
# about an eighth of the data. HHZS's cache lives in WAL zones the WAL does
# not use; since our run phase follows the load in the same process, with
# the WAL still holding its memtables, P+M+C adds two zones (cache_budget)
# for the cache, about 1% of the data as in HHZS. Prints throughput, the share of device
# reads that hit the HDD, the cache hit ratio and what migration moved.
#   bash tests/bench/cache_migration_table.sh [RECORDS] [OPS]
set -euo pipefail
cd "$(dirname "$0")/../.."
RECORDS=${1:-300000}
OPS=${2:-100000}
SCALE=${PROFILE_SCALE:-20}
bash scripts/run.sh build >/dev/null
H=build/adapters/cli/hintfs
Y=build/adapters/bench/hintfs-ycsb
WORK=$(mktemp -d /tmp/hintfs-exp2.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
DBOPTS="write_buffer_size=1048576;max_write_buffer_number=4;min_write_buffer_number_to_merge=2"
DBOPTS="$DBOPTS;target_file_size_base=1969225;max_bytes_for_level_base=2097152"
DBOPTS="$DBOPTS;level0_file_num_compaction_trigger=2;compression=kNoCompression"
BASE="hhzs:table_bytes=2MiB,wal_budget=4MiB,replace_inputs=off,fill=upper,wal_window_ms=0,wal_peak=on,level_hold_ms=0"
printf "%-6s %-4s %12s %10s %10s %11s %12s %12s\n" scheme load "run ops/s" "HDD reads" "of store" "cache hits" "to SSD" "to HDD"
for w in W2 W4; do
  case $w in
    W2) mix="--read 0.5 --update 0.5 --zipf 0.9" ;;
    W4) mix="--read 1.0 --zipf 1.2" ;;
  esac
  for scheme in P P+M P+M+C; do
    case $scheme in
      P) policy="$BASE,migration=off,cache=off"; extra="" ;;
      P+M) policy="$BASE,cache=off"; extra="" ;;
      P+M+C) policy="$BASE,cache=all,cache_budget=4MiB"; extra="--secondary-cache" ;;
    esac
    rm -f "$WORK"/*.img
    "$H" mkfs --policy "$policy" \
      --fast "file:$WORK/ssd.img?zone_size=2MiB&zones=24&profile=zn540&profile_scale=$SCALE" \
      --slow "file:$WORK/hdd.img?zone_size=2MiB&zones=1024&profile=st14000&profile_scale=$SCALE" >/dev/null
    # shellcheck disable=SC2086
    "$Y" --uri "file:$WORK/ssd.img" --db-options "$DBOPTS" --block-cache 524288 --records "$RECORDS" \
      --load --ops "$OPS" $mix $extra --json "$WORK/$w-$scheme.json" >/dev/null
    python3 - "$WORK/$w-$scheme.json" "$scheme" "$w" <<'PY'
import json, sys
phases = [json.loads(l) for l in open(sys.argv[1])]
load, run = phases[0], phases[1]
cache = run.get("cache", {})
hits = "%.1f%%" % (100 * cache["hit_ratio"]) if cache.get("lookups") else "-"
m = run["migrated"]
print("%-6s %-4s %12.0f %9.1f%% %9.1f%% %11s %8.0f MiB %8.0f MiB" % (sys.argv[2], sys.argv[3], run["ops_per_s"],
      100 * run["hdd_read_share"], 100 * run["hdd_read_share_store"], hits, m["to_fast_bytes"] / 1048576.0,
      m["to_slow_bytes"] / 1048576.0))
PY
  done
done
echo "records: $RECORDS of 1000 bytes, $OPS operations per workload, profile_scale $SCALE"
