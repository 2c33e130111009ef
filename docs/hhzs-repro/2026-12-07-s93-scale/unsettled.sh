#!/usr/bin/env bash
# Issue 19's Exp#1 setting at the harness's sizes (rphase.sh), each load saved the moment its
# last record is written (SETTLE=0: the store closes with its compaction debt, which the phases
# then work off) instead of after its compactions and migration finish. From the repository's
# root: B=BUILD [N=loads] [PHASES="A C"] bash unsettled.sh
set -uo pipefail
R=docs/hhzs-repro/2026-12-06-s85-rocksdb-d/rphase.sh
export XOPT=level_compaction_dynamic_file_size=false SETTLE=0
for i in $(seq 1 ${N:-1}); do
  for s in B3 HINTFS; do echo "== $s load $i"; S=$s D=/tmp/s93/u-$s$i bash $R load | grep -E "^(load|settle)"; done
  for w in ${PHASES:-A C}; do
    for s in B3 HINTFS; do echo "== $s $w $i"; S=$s W=$w D=/tmp/s93/u-$s$i bash $R | grep -E "^(run|L[0-9])"; done
  done
done
