#!/bin/bash
# cache-budget.sh: what a bigger SSD cache gives (8 threads, bloom 10). One load per budget.
B=${BUILD:-build}; W=${WORK:-/dev/shm/cb}; OUT=${OUT:-cache-budget.csv}
S=20; T=table_bytes=1969225
OPTS="write_buffer_size=984612;max_write_buffer_number=4;min_write_buffer_number_to_merge=2;target_file_size_base=1969225;max_bytes_for_level_base=2097152;level0_file_num_compaction_trigger=2;compression=kNoCompression;max_background_jobs=4;compaction_readahead_size=2097152"
Y="--block-cache 16384 --bloom-bits 10 --records 400000 --threads 8"
rm -f $OUT
one() { # name policy secondary?
  rm -rf $W; mkdir -p $W/dev $W/saved
  $B/adapters/cli/hintfs mkfs --policy "$2" --fast "file:$W/dev/ssd.img?zone_size=2MiB&zones=26&profile=zn540&profile_scale=$S" --slow "file:$W/dev/hdd.img?zone_size=2MiB&zones=2048&profile=st14000&profile_scale=$S" --fast-data-zones 20 >/dev/null
  $B/adapters/bench/hintfs-ycsb --uri file:$W/dev/ssd.img --db-options "$OPTS" $Y --load --settle 900 $3 --csv $OUT --label $1/load >/dev/null
  cp --sparse=always $W/dev/*.img $W/saved/
  for w in "W2 0.5 0.9" "W3 0.5 1.2" "W4 1.0 1.2"; do
    set -- $1 "$2" "$3" $w
    cp --sparse=always $W/saved/*.img $W/dev/
    u=$(python3 -c "print(round(1-$5,2))")
    $B/adapters/bench/hintfs-ycsb --uri file:$W/dev/ssd.img --db-options "$OPTS" $Y --ops 80000 --read $5 --update $u --zipf $6 $3 --csv $OUT --label $1/$4 >/dev/null
  done
}
H="hhzs:$T,wal_budget=4MiB,migration_rate=80MiB,cache=all"
one B3 "b3:$T"
for cb in 0 4 8 16; do one PMC-cb$cb "$H,cache_budget=${cb}MiB" --secondary-cache; done
one B3b "b3:$T"
