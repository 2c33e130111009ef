#!/usr/bin/env bash
# Three fresh HINTFS loads (rphase.sh load), then restart.sh's four C runs on each, the cache kept and
# not (session 93, binaries of 2ade7cf). From the repository's root: B=BUILD D=SCRATCH bash restart-fresh-loads.sh
set -u; B=${B:-build}; D=${D:-/tmp/s93}
for i in 1 2 3; do
  S=HINTFS XOPT=level_compaction_dynamic_file_size=false B=$B D=$D/H$i bash docs/hhzs-repro/2026-12-06-s85-rocksdb-d/rphase.sh load 2>&1 | tail -3
done
for i in 1 2 3; do
  for q in "" "cache_keep=off"; do
    echo "== H$i keep=${q:-on}"
    Q=$q D=$D/H$i PHASES="C C C C" B=$B bash docs/hhzs-repro/2026-12-07-s92-restart/chain.sh
  done
done
