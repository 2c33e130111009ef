#!/usr/bin/env bash
# LevelDB, session 76's HHZS load: phase W of OPS operations with and without
# a warmup of the same mix first (the warmup opens the tables LevelDB opens
# lazily: footer, index and filter reads).
set -euo pipefail
B=${B:-build}; H=$B/adapters/cli/hintfs; Y=$B/adapters/bench/hintfs-ycsb
D=${D:-/tmp/s76/ldb/R}  # a saved HHZS load: bash docs/hhzs-repro/2026-11-30-s76-exp1-leveldb/probe-steady-room.sh load
for r in ${ROUNDS:-1 2}; do
  for v in ${VARIANTS:-cold warm}; do
    cp --sparse=always $D/saved/*.img $D/
    extra=""; [ $v = warm ] && extra="--warmup ${WARM:-1953}"
    rm -f $D/p.json
    echo "== $r $v"
    $Y --uri "file:$D/ssd.img" --engine leveldb --db-options "write_buffer_size=984612;max_file_size=1969225" \
      --block-cache 16384 --bloom-bits 10 --records 400000 --threads 8 --workload ${W:-C} --ops ${OPS:-1953} --zipf 0.9 \
      --json $D/p.json $extra 2>&1 | grep -E "^(warmup|run|settle)" | cut -c1-250
    python3 -c "
import json,sys
for j in [json.loads(l) for l in open(sys.argv[1]) if l.strip()]:
  print('  ', j.get('phase'), 'point reads', j.get('point_reads'), 'hdd share %.3f' % j.get('point_read_hdd_share', -1))" $D/p.json
  done
done
