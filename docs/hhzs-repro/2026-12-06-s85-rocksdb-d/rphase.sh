#!/usr/bin/env bash
# RocksDB (plugin + listener) as hhzs_repro.py --store rocksdb runs it: `rphase.sh load` loads
# scheme S into D and saves the images; then `W=D rphase.sh` runs phase W from a copy and
# prints the tables per level and tier before and after, and the phase's figures.
# DZ: the SSD's data zones (default 20, as the harness); EXTRA: more hhzs keys (HHZS and HINTFS;
# HINTFS takes the build's hhzs defaults: fill=tiering from session 88 on, fill=upper before;
# HHZS names fill=upper and, from session 89 on, wal_window_ms=0, as the harness's HHZS does;
# binaries before ecd07a9 reject wal_window_ms: drop it to run them).
# With read-log.patch applied, HINTFS_READ_LOG=FILE logs every small read (lvl.py counts them).
# From session 89 on: XOPT adds RocksDB options (level_compaction_dynamic_file_size=false), and
# with HINTFS_DEVICE_TRACE=1 the HDD's device trace lines pass the filter.
# SETTLE: seconds the load waits for compactions and migration to finish (default 900; 0: none).
set -euo pipefail
B=${B:-build}; H=$B/adapters/cli/hintfs; Y=$B/adapters/bench/hintfs-ycsb
S=${S:-HHZS}; D=${D:-/tmp/r-$S}
T="table_bytes=1969225"; HINTFS="hhzs:$T,wal_budget=4MiB,migration_rate=4096KiB"
SQ="sync=0"; [ $S = HINTFS ] && SQ="blocks=32MiB&sync=0"
case $S in HHZS) P="$HINTFS,replace_inputs=off,fill=upper,wal_window_ms=0,cache=all${EXTRA:+,$EXTRA}";; HINTFS) P="$HINTFS,cache=all,cache_room=free${EXTRA:+,$EXTRA}";; B3) P="b3:$T";; esac
OPT="write_buffer_size=984612;max_write_buffer_number=4;min_write_buffer_number_to_merge=2;target_file_size_base=1969225;max_bytes_for_level_base=2097152;level0_file_num_compaction_trigger=2;compression=kNoCompression;max_background_jobs=4;compaction_readahead_size=2097152${XOPT:+;$XOPT}"
ycsb() { $Y --uri "file:$D/ssd.img?$SQ${Q:+&$Q}" --db-options "$OPT" --block-cache 16384 --bloom-bits 10 --records 400000 --threads 8 "$@" 2>&1 | grep -E "^(load|run|settle|device trace file:.*hdd)" | cut -c1-400; }
levels() { $H ls -l "file:$D/ssd.img" /db | awk '$7 ~ /\.sst$/ && $5 ~ /^L/ {b[$5" "$6]+=$2; n[$5" "$6]++} END {for (k in b) printf "%s %d tables %.1f MiB\n", k, n[k], b[k]/1048576}' | sort; }
if [ "${1:-}" = load ]; then
  rm -rf $D; mkdir -p $D/saved
  $H mkfs --policy "$P" --fast "file:$D/ssd.img?zone_size=2MiB&zones=$((${DZ:-20}+6))&profile=zn540&profile_scale=1" \
     --slow "file:$D/hdd.img?zone_size=2MiB&zones=2048&profile=st14000&profile_scale=1" --fast-data-zones ${DZ:-20} >/dev/null
  ycsb --load --settle ${SETTLE:-900}
  cp --sparse=always $D/*.img $D/saved/
  levels
  exit 0
fi
cp --sparse=always $D/saved/*.img $D/
echo "before:"; levels
$H info --json "file:$D/ssd.img" > $D/info.before.json
ycsb --workload ${W:-D} --ops ${OPS:-1953} --zipf 0.9 --json $D/p.json
$H info --json "file:$D/ssd.img" > $D/info.after.json
echo "after:"; levels
