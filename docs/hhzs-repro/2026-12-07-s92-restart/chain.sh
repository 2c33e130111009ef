#!/usr/bin/env bash
# Phases in sequence on one copy of a saved load (as the harness runs them): D=dir B=build PHASES="A B C"
set -euo pipefail
B=${B:-/work/main/build}; H=$B/adapters/cli/hintfs; Y=$B/adapters/bench/hintfs-ycsb
SQ="blocks=32MiB&sync=0"; [ "${S:-HINTFS}" = B3 ] && SQ="sync=0"
OPT="write_buffer_size=984612;max_write_buffer_number=4;min_write_buffer_number_to_merge=2;target_file_size_base=1969225;max_bytes_for_level_base=2097152;level0_file_num_compaction_trigger=2;compression=kNoCompression;max_background_jobs=4;compaction_readahead_size=2097152;level_compaction_dynamic_file_size=false"
cp --sparse=always $D/saved/*.img $D/
for w in ${PHASES:-A B C}; do
  $Y --uri "file:$D/ssd.img?$SQ${Q:+&$Q}" --db-options "$OPT" --block-cache 16384 --bloom-bits 10 --records 400000 --threads 8 --workload $w --ops 1953 --zipf 0.9 2>&1 | grep -E "^run" | sed "s/^/$w /" | cut -c1-220
  $H info --json "file:$D/ssd.img" | python3 -c "
import json,sys; c=json.load(sys.stdin)['cache']; print('   cache lookups', c['lookups'], 'hits', c['hits'], 'kept_blocks', c.get('kept_blocks'), 'zones', c['zones'], 'blocks', c['blocks'])"
done
