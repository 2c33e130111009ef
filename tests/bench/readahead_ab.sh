#!/usr/bin/env bash
# Readahead's effect on a store's load (fs/readahead.h): hintfs-ycsb loads
# under b3 on the HHZS reproduction's devices (20 data zones of 2 MiB on a
# zn540, an st14000, both sped up 20x) and table sizes, with readahead on and
# off (readahead=off in the URI), interleaved, RUNS pairs. RocksDB runs
# without compaction_readahead_size, as stock db_bench does. Prints each
# run's throughput line.
#   bash tests/bench/readahead_ab.sh leveldb|rocksdb [RECORDS] [RUNS]
#   BUILD=DIR picks the build (default build/); WORK=DIR the scratch directory.
set -euo pipefail
engine=${1:?usage: readahead_ab.sh leveldb|rocksdb [RECORDS] [RUNS]}
records=${2:-100000}
runs=${3:-3}
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build}
work=${WORK:-/dev/shm/hintfs-readahead-ab}
devices=(--fast "file:$work/ssd.img?zone_size=2MiB&zones=26&profile=zn540&profile_scale=20"
         --slow "file:$work/hdd.img?zone_size=2MiB&zones=2048&profile=st14000&profile_scale=20")
case $engine in
  leveldb) store=(--engine leveldb --db-options "write_buffer_size=984612;max_file_size=1969225") ;;
  rocksdb) store=(--db-options "write_buffer_size=984612;max_write_buffer_number=4;min_write_buffer_number_to_merge=2;target_file_size_base=1969225;max_bytes_for_level_base=2097152;level0_file_num_compaction_trigger=2;compression=kNoCompression;max_background_jobs=4") ;;
  *) echo "readahead_ab.sh: unknown store '$engine' (leveldb or rocksdb)" >&2; exit 2 ;;
esac
for run in $(seq 1 "$runs"); do
  for query in "" "?readahead=off"; do
    rm -rf "$work" && mkdir -p "$work"
    "$build/adapters/cli/hintfs" mkfs --policy b3:table_bytes=1969225 "${devices[@]}" --fast-data-zones 20 >/dev/null
    out=$("$build/adapters/bench/hintfs-ycsb" --uri "file:$work/ssd.img$query" "${store[@]}" \
          --block-cache 16384 --bloom-bits 10 --records "$records" --threads 8 --load 2>&1 | grep '^load')
    echo "$engine run $run ${query:-readahead=on}: $out"
  done
done
rm -rf "$work"
