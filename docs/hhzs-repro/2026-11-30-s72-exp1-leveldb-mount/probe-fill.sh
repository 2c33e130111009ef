#!/usr/bin/env bash
# HHZS as the harness runs it (P) against HHZS with fill=tiering (PF), and B3
# (wb3, session 71's load): A and C phases from one saved load each, three
# runs alternating. Binaries of 9e65ca5.
cd /tmp/s72
export B=/tmp/s72/bin
HH="hhzs:table_bytes=1969225,wal_budget=4MiB,migration_rate=4096KiB,replace_inputs=off,cache=all"
bash ldm-s.sh load "$HH,fill=tiering" "" /tmp/s72/PF | grep -E "^(load|settle)"
for r in 1 2 3; do
  for d in /tmp/s71/wb3 /tmp/s72/P /tmp/s72/PF; do
    for w in A C; do
      echo "run=$r $(basename $d) $w $(bash ldm-s.sh phase "" $d $w 2>&1 | grep '^run')"
    done
  done
done
