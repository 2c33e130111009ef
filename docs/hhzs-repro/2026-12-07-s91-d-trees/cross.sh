#!/usr/bin/env bash
# D from B3's loads under hhzs's policy with HINTFS's defaults (the phase's URI names it).
cd /work/main
R=docs/hhzs-repro/2026-12-06-s85-rocksdb-d/rphase.sh; X=level_compaction_dynamic_file_size=false
P="hhzs:table_bytes=1969225,wal_budget=4MiB,migration_rate=4096KiB,cache=all,cache_room=free"
for i in 1 2 3 4 5 6; do echo "== D B3$i hintfs-policy"; XOPT=$X S=HINTFS Q="policy=$P" OPS=1953 W=D B=build D=/tmp/s91/B3$i bash $R 2>&1 | grep -E "^run"; done
