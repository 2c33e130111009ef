#!/usr/bin/env bash
# B3 and HINTFS (hhzs with replace_inputs on, cache=all, blocks=32MiB), the
# new migration (default) and HHZS's (steady_room_ms=0,swap_margin=1):
# 39,060 operations per phase, workloads $WS, 3 runs alternating.
cd /tmp/s74
export B=/tmp/ci-check-final/build
P="hhzs:table_bytes=1969225,wal_budget=4MiB,migration_rate=4096KiB,cache=all"
for r in 1 2 3; do
  for W in ${WS:-r3 r1}; do
    echo "run=$r b3 $W $(bash rdb.sh phase "" /tmp/s73/R-b3 $W 39060 | grep '^run')"
    echo "run=$r hintfs-new $W $(bash rdb.sh phase "blocks=32MiB" /tmp/s74/R-hintfs $W 39060 | grep '^run')"
    echo "run=$r hintfs-old $W $(bash rdb.sh phase "blocks=32MiB&policy=$P,steady_room_ms=0,swap_margin=1" /tmp/s74/R-hintfs $W 39060 | grep '^run')"
  done
done
