#!/usr/bin/env bash
# Exp#4's write-heavy mixes with phases four times as long (39,060 operations):
# B3 and HHZS, one load each (HHZS's is probe-room's), 10% and 30% reads, three
# runs alternating.
cd /tmp/s73
[ -f /tmp/s73/R-b3/saved/ssd.img ] || bash rdb.sh load "b3:table_bytes=1969225" /tmp/s73/R-b3 | grep -E "^(load|settle)"
for r in 1 2 3; do
  for d in R-b3 R-hhzs; do
    for w in r1 r3; do
      echo "run=$r $d $w $(bash rdb.sh phase "" /tmp/s73/$d $w 39060 | grep '^run')"
    done
  done
done
