#!/bin/bash
# migration-rate.sh: sensitivity of W2/W3 to the migration rate. Loads B3 and P+M+C once each.
B=${BUILD:-build}; W=${WORK:-/dev/shm/rate}; OUT=${OUT:-migration-rate.csv}
S=20; T=table_bytes=1969225
OPTS="write_buffer_size=984612;max_write_buffer_number=4;min_write_buffer_number_to_merge=2;target_file_size_base=1969225;max_bytes_for_level_base=2097152;level0_file_num_compaction_trigger=2;compression=kNoCompression;max_background_jobs=4;compaction_readahead_size=2097152"
rm -f $OUT
load() { # name policy
  rm -rf $W/$1; mkdir -p $W/$1/dev $W/$1/saved
  $B/adapters/cli/hintfs mkfs --policy "$2" --fast "file:$W/$1/dev/ssd.img?zone_size=2MiB&zones=26&profile=zn540&profile_scale=$S" --slow "file:$W/$1/dev/hdd.img?zone_size=2MiB&zones=2048&profile=st14000&profile_scale=$S" --fast-data-zones 20 >/dev/null
  $B/adapters/bench/hintfs-ycsb --uri file:$W/$1/dev/ssd.img --db-options "$OPTS" --block-cache 16384 --records 400000 --load --settle 900 $3 --csv $OUT --label $1/load >/dev/null
  cp --sparse=always $W/$1/dev/*.img $W/$1/saved/
}
run() { # name policy label workload-args...
  n=$1; p=$2; l=$3; shift 3
  cp --sparse=always $W/$n/saved/*.img $W/$n/dev/
  $B/adapters/bench/hintfs-ycsb --uri "file:$W/$n/dev/ssd.img?policy=$p" --db-options "$OPTS" --block-cache 16384 --records 400000 --ops 80000 --csv $OUT --label $l "$@" >/dev/null
}
H="hhzs:$T,wal_budget=4MiB,cache=all"
load b3 "b3:$T"
load hz "$H,migration_rate=160KiB" --secondary-cache
for rep in 1 2; do
for w in "W2 --read 0.5 --update 0.5 --zipf 0.9" "W3 --read 0.5 --update 0.5 --zipf 1.2"; do
  set -- $w; wl=$1; shift
  run b3 "b3:$T" B3/$wl "$@"
  for r in 160KiB 1MiB 4MiB 16MiB 80MiB; do
    run hz "$H,migration_rate=$r" PMC-$r/$wl "$@" --secondary-cache
    run b3 "b3:$T,migration=on,migration_rate=$r" B3M-$r/$wl "$@"
  done
done
done
