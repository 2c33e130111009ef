#!/usr/bin/env bash
# LevelDB through our Env as hhzs_repro.py --store leveldb runs it: one HHZS
# load, then phase C from copies of it, HHZS as the harness has it against the
# same with steady_room_ms=0 (moves up not held to L_t's 30-s floor of room).
set -euo pipefail
B=${B:-/tmp/s76/build}; H=$B/adapters/cli/hintfs; Y=$B/adapters/bench/hintfs-ycsb
D=/tmp/s76/ldb/R
P="hhzs:table_bytes=1969225,wal_budget=4MiB,migration_rate=4096KiB,replace_inputs=off,cache=all"
ycsb() { local q=$1; shift; $Y --uri "file:$D/ssd.img${q:+?$q}" --engine leveldb --db-options "write_buffer_size=984612;max_file_size=1969225" \
  --block-cache 16384 --bloom-bits 10 --records 400000 --threads 8 "$@" 2>&1 | grep -E "^(load|run|settle)" | cut -c1-250; }
if [ "${1:-}" = load ]; then
  rm -rf $D; mkdir -p $D/saved
  $H mkfs --policy "$P" --fast "file:$D/ssd.img?zone_size=2MiB&zones=26&profile=zn540&profile_scale=1" \
     --slow "file:$D/hdd.img?zone_size=2MiB&zones=2048&profile=st14000&profile_scale=1" --fast-data-zones 20 >/dev/null
  ycsb "" --load --settle 900
  cp --sparse=always $D/*.img $D/saved/
  exit 0
fi
for r in ${ROUNDS:-1 2}; do
  for v in as noroom; do
    cp --sparse=always $D/saved/*.img $D/
    case $v in as) q="";; noroom) q="policy=$P,steady_room_ms=0";; esac
    echo "== $r $v $(ycsb "$q" --workload ${W:-C} --ops ${OPS:-1953} --zipf 0.9 | grep '^run')"
  done
done
