#!/usr/bin/env bash
# Issue 19's Exp#1 setting (RocksDB, plugin and listener, 8 client threads, the drives' real speed)
# with every size K times larger than the harness's 1/512 of the paper (K=8: 1/64): zones,
# memtables, tables, level targets, block cache, WAL budget, block tiering's budget, records and
# operations; migration's 4 MiB/s is a bandwidth and stays. `sphase.sh load` loads scheme S into D
# and saves the images; `W=C sphase.sh` runs a phase from a copy of them. B: the build.
set -euo pipefail
K=${K:-8}; B=${B:-build}; H=$B/adapters/cli/hintfs; Y=$B/adapters/bench/hintfs-ycsb; O=$B/adapters/bench/hintfs-oracle
S=${S:-HINTFS}; D=${D:-/tmp/s93/scale-$S}
T="table_bytes=$((1969225 * K))"; HH="hhzs:$T,wal_budget=$((4 * K))MiB,migration_rate=4096KiB"
SQ="sync=0"; [ $S = HINTFS ] && SQ="blocks=$((32 * K))MiB&sync=0"
case $S in HHZS) P="$HH,replace_inputs=off,fill=upper,wal_window_ms=0,cache=all";; HINTFS) P="$HH,cache=all,cache_room=free";; B3) P="b3:$T";; esac
OPT="write_buffer_size=$((984612 * K));max_write_buffer_number=4;min_write_buffer_number_to_merge=2;target_file_size_base=$((1969225 * K));max_bytes_for_level_base=$((2097152 * K));level0_file_num_compaction_trigger=2;compression=kNoCompression;max_background_jobs=4;compaction_readahead_size=2097152;level_compaction_dynamic_file_size=false"
REC=$((400000 * K))
ycsb() { $Y --uri "file:$D/ssd.img?$SQ" --db-options "$OPT" --block-cache $((16384 * K)) --bloom-bits 10 --records $REC --threads 8 "$@" 2>&1 | grep -E "^(load|run|settle)" | cut -c1-300; }
if [ "${1:-}" = load ]; then
  rm -rf $D; mkdir -p $D/saved
  $H mkfs --policy "$P" --fast "file:$D/ssd.img?zone_size=$((2 * K))MiB&zones=26&profile=zn540&profile_scale=1" \
     --slow "file:$D/hdd.img?zone_size=$((2 * K))MiB&zones=2048&profile=st14000&profile_scale=1" --fast-data-zones 20 >/dev/null
  ycsb --load --settle 1800
  cp --sparse=always $D/*.img $D/saved/
  # The HDD's least share of zipfian point reads (hintfs-oracle): A's mix and C's.
  $O --uri "file:$D/ssd.img" --records $REC --distribution zipfian --zipf 0.9 \
     --fast-bytes $((36 * K))MiB --json $D/oracle.json --run $((1953 * K)):0.5:0.5:0.0 --run $((1953 * K)):1.0:0.0:0.0 >/dev/null
  python3 -c "
import json; j = json.load(open('$D/oracle.json'))
print('oracle: as loaded', [round(r['placed_share'], 3) for r in j['online']], 'online', [round(r['slow_share'], 3) for r in j['online']], 'blocks', [round(o['blocks'], 3) for o in j['slow_share']])"
  exit 0
fi
cp --sparse=always $D/saved/*.img $D/
ycsb --workload ${W:-C} --ops $((1953 * K)) --zipf 0.9
