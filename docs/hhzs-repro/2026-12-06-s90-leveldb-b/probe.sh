#!/usr/bin/env bash
# Session 90: LevelDB through our Env, HINTFS with hhzs's WAL window (default 10 s) and without
# (wal_window_ms=0), one load each, then B (and C) from copies, interleaved; run from the repository's root.
#   B=BUILD bash probe.sh load; B=BUILD ROUNDS=2 bash probe.sh
set -euo pipefail
B=${B:-build}; H=$B/adapters/cli/hintfs; Y=$B/adapters/bench/hintfs-ycsb
P="hhzs:table_bytes=1969225,wal_budget=4MiB,migration_rate=4096KiB,cache=all,cache_room=free"
ycsb() { local d=$1; shift; $Y --uri "file:$d/ssd.img?blocks=32MiB&sync=0" --engine leveldb \
  --db-options "write_buffer_size=984612;max_file_size=1969225" --open-tables --block-cache 16384 --bloom-bits 10 \
  --records 400000 --threads 8 "$@" 2>&1 | grep -E "^(load|run|settle)" | cut -c1-300; }
state() { $H info --json "file:$1/ssd.img" | python3 -c "
import json,sys; d=json.load(sys.stdin); p=d['policy_state']; c=d['cache']
print('  capacity_slots', p['capacity_slots'], 'tiering_level', p['tiering_level'], 'reserved', p['reserved_for_tiering_level'],
      'wal_held_peak', p.get('wal_held_peak_bytes'), 'cache zones', c['zones'], 'cache budget', c['budget_bytes'], 'hits', c['hits'], 'lookups', c['lookups'])"; }
if [ "${1:-}" = load ]; then
  for w in 10000 0; do
    d=/tmp/s90-ldb-w$w; rm -rf $d; mkdir -p $d/saved
    $H mkfs --policy "$P,wal_window_ms=$w" --fast "file:$d/ssd.img?zone_size=2MiB&zones=26&profile=zn540&profile_scale=1" \
       --slow "file:$d/hdd.img?zone_size=2MiB&zones=2048&profile=st14000&profile_scale=1" --fast-data-zones 20 >/dev/null
    echo "== load, wal_window_ms=$w"; ycsb $d --load --settle 900; state $d
    cp --sparse=always $d/*.img $d/saved/
  done
  exit 0
fi
for r in $(seq ${ROUNDS:-2}); do
  for W in ${PHASES:-B C}; do
    for w in 10000 0; do
      d=/tmp/s90-ldb-w$w; cp --sparse=always $d/saved/*.img $d/
      echo "== round $r, $W, wal_window_ms=$w"; ycsb $d --workload $W --ops 1953 --zipf 0.9; state $d
    done
  done
done
