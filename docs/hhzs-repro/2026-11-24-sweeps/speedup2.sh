#!/bin/bash
# speedup2.sh: B3 and HHZS (P+M+C) with the devices sped up only 2x (8 threads, Bloom 10):
# is the load HDD-bound then, do L0-L2 spill under B3 (the paper's O1), and what does W2 give?
B=${BUILD:-build}; W=${WORK:-/dev/shm/s2}; OUT=${OUT:-speedup2.csv}; S=2; T=table_bytes=1969225
OPTS="write_buffer_size=984612;max_write_buffer_number=4;min_write_buffer_number_to_merge=2;target_file_size_base=1969225;max_bytes_for_level_base=2097152;level0_file_num_compaction_trigger=2;compression=kNoCompression;max_background_jobs=4;compaction_readahead_size=2097152"
Y="--block-cache 16384 --bloom-bits 10 --records 400000 --threads 8"
H="hhzs:$T,wal_budget=4MiB,migration_rate=8MiB,cache=all"
one() { # label policy secondary
  rm -rf $W; mkdir -p $W
  $B/adapters/cli/hintfs mkfs --policy "$2" --fast "file:$W/ssd.img?zone_size=2MiB&zones=26&profile=zn540&profile_scale=$S" --slow "file:$W/hdd.img?zone_size=2MiB&zones=2048&profile=st14000&profile_scale=$S" --fast-data-zones 20 >/dev/null
  $B/adapters/bench/hintfs-ycsb --uri file:$W/ssd.img --db-options "$OPTS" $Y --load --settle 900 $3 --csv $OUT --label $1/load >/dev/null
  echo "$1 after load:"; $B/adapters/cli/hintfs ls -l file:$W/ssd.img /db | awk '/\.sst/ {t[$6]+=$2} END {for (k in t) print "  tables on", k, t[k]}'
  $B/adapters/bench/hintfs-ycsb --uri file:$W/ssd.img --db-options "$OPTS" $Y --ops 40000 --read 0.5 --update 0.5 --zipf 0.9 $3 --csv $OUT --label $1/W2 >/dev/null
}
rm -f $OUT
one B3 "b3:$T"
one HHZS "$H" --secondary-cache
