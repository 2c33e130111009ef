#!/usr/bin/env bash
# Loads of B3 and HINTFS into /tmp/s91/{B3,HINTFS}N (N in $I, default "1 2"), then D (1,953
# operations) from a copy of each: the native policy, and on HINTFS's loads also b3's policy
# (the phase's URI names it). Run from anywhere; binaries from /work/main/build.
cd /work/main
R=docs/hhzs-repro/2026-12-06-s85-rocksdb-d/rphase.sh; X=level_compaction_dynamic_file_size=false
for i in ${I:-1 2}; do for s in B3 HINTFS; do
  echo "== load $s $i"; XOPT=$X S=$s B=build D=/tmp/s91/$s$i bash $R load 2>&1 | grep -E "^(load|L)"
done; done
for i in ${I:-1 2}; do for s in B3 HINTFS; do
  echo "== D $s$i native"; XOPT=$X S=$s OPS=1953 W=D B=build D=/tmp/s91/$s$i bash $R 2>&1 | grep -E "^run"
  [ $s = HINTFS ] && { echo "== D $s$i b3-policy"; XOPT=$X S=$s Q="policy=b3:table_bytes=1969225" OPS=1953 W=D B=build D=/tmp/s91/$s$i bash $R 2>&1 | grep -E "^run"; }
done; done
