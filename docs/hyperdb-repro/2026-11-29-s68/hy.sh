#!/usr/bin/env bash
# hy.sh load SCHEME DIR     : mkfs + load, saved in DIR/saved-SCHEME
# hy.sh phase SCHEME DIR W DIST [PERF] : run one phase from a copy; prints ops/s and CPU
set -euo pipefail
B=${B:-/tmp/ci-s66b/build}
H=$B/adapters/cli/hintfs; Y=$B/adapters/bench/hintfs-ycsb
DBO="write_buffer_size=984612;max_write_buffer_number=4;min_write_buffer_number_to_merge=2;target_file_size_base=1969225;max_bytes_for_level_base=2097152;level0_file_num_compaction_trigger=2;compression=kNoCompression;max_background_jobs=8;compaction_readahead_size=2097152"
T="table_bytes=1969225"
pol() { case $1 in STATIC) echo "b3:$T";; HINTFS) echo "hhzs:$T,wal_budget=4MiB";; esac; }
qry() { case $1 in STATIC) echo "";; HINTFS) echo "?blocks=${BLK:-32MiB}";; esac; }
cmd=$1 S=$2 D=$3
dev=$D/dev-$S; saved=$D/saved-$S
ycsb() { $Y --uri "blk:$dev/nvme.img$(qry $S)" --db-options "$DBO" --block-cache 131072 --bloom-bits 10 --records 400000 --value-size 1024 --threads 8 "$@"; }
if [ $cmd = load ]; then
  rm -rf $dev $saved; mkdir -p $dev $saved
  truncate -s $(( (26*2+1) << 20 )) $dev/nvme.img; truncate -s $(( (4096+1) << 20 )) $dev/sata.img
  $H mkfs --policy "$(pol $S)" --fast "blk:$dev/nvme.img?zone_size=2MiB&profile=pm9a3&profile_scale=0.25" --slow "blk:$dev/sata.img?zone_size=2MiB&profile=s4610&profile_scale=0.25" --fast-data-zones 20 >/dev/null
  ycsb --load --settle 900 --csv $D/load.csv --label $S/load | tail -3
  cp --sparse=always $dev/*.img $saved/
else
  W=$4 DIST=$5; dd=(--distribution uniform); [ $DIST = zipfian ] && dd=(--distribution zipfian --zipf 0.99)
  cp --sparse=always $saved/*.img $dev/
  if [ "${6:-}" = perf ]; then
    perf record -F 499 -g -o $D/perf-$S-$W-$DIST.data -- $Y --uri "blk:$dev/nvme.img$(qry $S)" --db-options "$DBO" --block-cache 131072 --bloom-bits 10 --records 400000 --value-size 1024 --threads 8 --workload $W --ops ${OPS:-100000} "${dd[@]}" --csv $D/phase.csv --label $S/$W-$DIST 2>&1 | grep -E "ops/s|throughput" | head -3
  else
    /usr/bin/time -f "cpu user %U sys %S wall %e" $Y --uri "blk:$dev/nvme.img$(qry $S)" --db-options "$DBO" --block-cache 131072 --bloom-bits 10 --records 400000 --value-size 1024 --threads 8 --workload $W --ops ${OPS:-100000} "${dd[@]}" --csv $D/phase.csv --label $S/$W-$DIST 2>&1 | if [ -n "${RAW:-}" ]; then cat; else grep -E "ops/s|cpu user|throughput" | head -4; fi
  fi
fi
