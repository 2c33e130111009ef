#!/usr/bin/env bash
# Three HINTFS loads and D from each with age-swap.patch applied to the build.
cd /work/main
R=docs/hhzs-repro/2026-12-06-s85-rocksdb-d/rphase.sh; X=level_compaction_dynamic_file_size=false
for i in 1 2 3; do echo "== load AGE$i"; XOPT=$X S=HINTFS B=build D=/tmp/s91/AGE$i bash $R load 2>&1 | grep -E "^(load|L)"; done
for i in 1 2 3; do echo "== D AGE$i"; XOPT=$X S=HINTFS OPS=1953 W=D B=build D=/tmp/s91/AGE$i bash $R 2>&1 | grep -E "^run"; done
