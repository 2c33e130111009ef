#!/usr/bin/env bash
# Exp#2's W1-W4 (10/50/50/100% reads, zipf 0.9/0.9/1.2/1.2, 9,765 operations)
# on one HHZS load (/tmp/s73/R-hhzs), paired: P (no migration), P+M with HHZS's
# migration (steady_room_ms=0,swap_margin=1) and P+M with the new default; 3 runs.
cd /tmp/s74
B=/tmp/ci-check-final/build; Y=$B/adapters/bench/hintfs-ycsb; H=$B/adapters/cli/hintfs
D=/tmp/s73/R-hhzs
DBO="write_buffer_size=984612;max_write_buffer_number=4;min_write_buffer_number_to_merge=2;target_file_size_base=1969225;max_bytes_for_level_base=2097152;level0_file_num_compaction_trigger=2;compression=kNoCompression;max_background_jobs=4;compaction_readahead_size=2097152"
P="hhzs:table_bytes=1969225,wal_budget=4MiB,migration_rate=4096KiB,replace_inputs=off,cache=off"
declare -A V=([P]="$P,migration=off" [PM-old]="$P,steady_room_ms=0,swap_margin=1" [PM-new]="$P")
declare -A MIX=([W1]="0.1 0.9 0.9" [W2]="0.5 0.5 0.9" [W3]="0.5 0.5 1.2" [W4]="1.0 0 1.2")
for r in 1 2 3; do
  for w in W1 W2 W3 W4; do
    set -- ${MIX[$w]}
    for v in P PM-old PM-new; do
      cp --sparse=always $D/saved/*.img $D/
      out=$($Y --uri "file:$D/ssd.img?policy=${V[$v]}" --db-options "$DBO" --block-cache 16384 --bloom-bits 10 --records 400000 --threads 8 --read $1 --update $2 --zipf $3 --ops 9765 2>&1 | grep '^run' | cut -c1-240)
      echo "run=$r $w $v $out"
    done
  done
done
