#!/usr/bin/env bash
# rdb.sh load POLICY DIR ; rdb.sh phase QUERY DIR W [OPS]   (W: a YCSB workload, or rN for N0% reads, the rest updates)
# RocksDB through the plugin as hhzs_repro.py runs it (store rocksdb, 8 threads,
# real speed); a load is saved in DIR/saved and every phase starts from it.
set -euo pipefail
B=${B:-/tmp/ci-s70/build}; H=$B/adapters/cli/hintfs; Y=$B/adapters/bench/hintfs-ycsb
DBO="write_buffer_size=984612;max_write_buffer_number=4;min_write_buffer_number_to_merge=2;target_file_size_base=1969225;max_bytes_for_level_base=2097152;level0_file_num_compaction_trigger=2;compression=kNoCompression;max_background_jobs=4;compaction_readahead_size=2097152"
ycsb() { local q=$1 d=$2; shift 2; $Y --uri "file:$d/ssd.img${q:+?$q}" --db-options "$DBO" --block-cache 16384 --bloom-bits 10 --records 400000 --threads 8 "$@" 2>&1 | grep -E "^(load|run|settle)" | cut -c1-240; }
if [ $1 = load ]; then
  P=$2 D=$3; rm -rf $D; mkdir -p $D/saved
  $H mkfs --policy "$P" --fast "file:$D/ssd.img?zone_size=2MiB&zones=26&profile=zn540&profile_scale=1" --slow "file:$D/hdd.img?zone_size=2MiB&zones=2048&profile=st14000&profile_scale=1" --fast-data-zones 20 >/dev/null
  ycsb "${LOADQ:-}" $D --load --settle 900
  cp --sparse=always $D/*.img $D/saved/
else
  Q=$2 D=$3 W=$4 OPS=${5:-1953}
  cp --sparse=always $D/saved/*.img $D/
  case $W in r*) R=${W#r}; MIX="--read 0.$R --update $(python3 -c "print(round(1-0.$R,2))")";; *) MIX="--workload $W";; esac
  ycsb "$Q" $D $MIX --ops $OPS --zipf 0.9 ${EXTRA:-}
  $H info --json "file:$D/ssd.img" > $D/info-$W.json
fi
