#!/usr/bin/env bash
# B3, HHZS (steady room + swap margin: the new default) and HHZS's migration
# (steady_room_ms=0, swap_margin=1), 30% reads, 39,060 operations, 3 runs alternating.
cd /tmp/s74
export B=/tmp/ci-check-final/build
OLD="policy=hhzs:table_bytes=1969225,wal_budget=4MiB,migration_rate=4096KiB,cache=all,replace_inputs=off,steady_room_ms=0,swap_margin=1"
W=${W:-r3}
for r in 1 2 3; do
  echo "run=$r b3 $W $(bash rdb.sh phase "" /tmp/s73/R-b3 $W 39060 | grep '^run')"
  echo "run=$r hhzs-new $W $(bash rdb.sh phase "" /tmp/s73/R-hhzs $W 39060 | grep '^run')"
  echo "run=$r hhzs-old $W $(bash rdb.sh phase "$OLD" /tmp/s73/R-hhzs $W 39060 | grep '^run')"
done
