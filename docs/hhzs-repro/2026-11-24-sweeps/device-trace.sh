#!/bin/bash
# device-trace.sh: where the HDD time of W2 (8 threads) goes, B3 and HHZS at 80 and 20 SSD zones.
B=${BUILD:-build}; W=${WORK:-/dev/shm/tr}; S=20; T=table_bytes=1969225
OPTS="write_buffer_size=984612;max_write_buffer_number=4;min_write_buffer_number_to_merge=2;target_file_size_base=1969225;max_bytes_for_level_base=2097152;level0_file_num_compaction_trigger=2;compression=kNoCompression;max_background_jobs=4;compaction_readahead_size=2097152"
Y="--block-cache 16384 --bloom-bits 10 --records 400000 --threads 8"
H="hhzs:$T,wal_budget=4MiB,migration_rate=80MiB,cache=all"
one() { # label policy zones secondary
  rm -rf $W; mkdir -p $W
  $B/adapters/cli/hintfs mkfs --policy "$2" --fast "file:$W/ssd.img?zone_size=2MiB&zones=$(($3+6))&profile=zn540&profile_scale=$S" --slow "file:$W/hdd.img?zone_size=2MiB&zones=2048&profile=st14000&profile_scale=$S" --fast-data-zones $3 >/dev/null
  $B/adapters/bench/hintfs-ycsb --uri file:$W/ssd.img --db-options "$OPTS" $Y --load --settle 900 $4 >/dev/null 2>&1
  HINTFS_DEVICE_TRACE=1 $B/adapters/bench/hintfs-ycsb --uri file:$W/ssd.img --db-options "$OPTS" $Y --ops 80000 --read 0.5 --update 0.5 --zipf 0.9 $4 --csv ${OUT:-device-trace.csv} --label $1 2>&1 >/dev/null | grep "device trace" | sed "s#^#$1 #"
}
rm -f ${OUT:-device-trace.csv}
one B3@80 "b3:$T" 80
one HHZS@80 "$H" 80 --secondary-cache
one B3@20 "b3:$T" 20
one HHZS@20 "$H" 20 --secondary-cache
