#!/usr/bin/env bash
# HHZS (P, saved load of 9e65ca5) with the mount's policy query changing
# up_wait_ms: default 5000 against 0, A and C, three runs alternating; B3 beside.
cd /tmp/s73
export B=/tmp/s72/bin
HH="hhzs:table_bytes=1969225,wal_budget=4MiB,migration_rate=4096KiB,replace_inputs=off,cache=all"
for r in 1 2 3; do
  for v in b3 def w0; do
    for w in A C; do
      case $v in
        b3) out=$(bash ldm-s.sh phase "" /tmp/s71/wb3 $w 2>&1 | grep '^run');;
        def) out=$(bash ldm-s.sh phase "" /tmp/s72/P $w 2>&1 | grep '^run');;
        w0) out=$(bash ldm-s.sh phase "policy=$HH,up_wait_ms=0" /tmp/s72/P $w 2>&1 | grep '^run');;
      esac
      echo "run=$r $v $w $out"
    done
  done
done
