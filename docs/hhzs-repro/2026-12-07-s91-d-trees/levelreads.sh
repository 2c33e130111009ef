#!/usr/bin/env bash
# D's small reads per level and tier on the loads named (directories), with binaries built with
# session 85's read-log.patch (docs/hhzs-repro/2026-12-06-s85-rocksdb-d/): an open-only run, then the phase.
cd /work/main
R=docs/hhzs-repro/2026-12-06-s85-rocksdb-d/rphase.sh; X=level_compaction_dynamic_file_size=false
for d in "$@"; do
  s=HINTFS; case $d in *B3*) s=B3;; esac
  rm -f $d/open.log $d/full.log
  HINTFS_READ_LOG=$d/open.log XOPT=$X S=$s OPS=1 W=D B=build D=$d bash $R > /dev/null 2>&1
  HINTFS_READ_LOG=$d/full.log XOPT=$X S=$s OPS=1953 W=D B=build D=$d bash $R 2>&1 | grep -E "^run" | cut -c1-40
  python3 docs/hhzs-repro/2026-12-06-s89-d-probe/phase_reads.py $d $d/full.log $d/open.log
done
