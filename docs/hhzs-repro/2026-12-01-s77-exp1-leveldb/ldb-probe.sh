#!/usr/bin/env bash
# LevelDB, session 76's HHZS load: phase W as the harness runs HHZS, against
# the same with replace_inputs=on (a compaction's fast inputs leave their
# slots to its outputs) and with the store quiet (--settle) before the phase.
set -euo pipefail
B=${B:-build}; H=$B/adapters/cli/hintfs; Y=$B/adapters/bench/hintfs-ycsb
D=${D:-/tmp/s76/ldb/R}  # a saved HHZS load: bash docs/hhzs-repro/2026-11-30-s76-exp1-leveldb/probe-steady-room.sh load
P="hhzs:table_bytes=1969225,wal_budget=4MiB,migration_rate=4096KiB,replace_inputs=off,cache=all"
tiers() { $H ls -l "file:$D/ssd.img" /db | awk '$4=="table" {k=$5" "$6; b[k]+=$2} END {for (t in b) printf "%s %.1f  ", t, b[t]/1048576; print ""}' | sed 's/^/   tables MiB: /'; }
for r in ${ROUNDS:-1 2}; do
  for v in ${VARIANTS:-as replace settle}; do
    cp --sparse=always $D/saved/*.img $D/
    q=""; extra=""
    case $v in replace) q="policy=${P/replace_inputs=off/replace_inputs=on}";; settle) extra="--settle 60";; esac
    rm -f $D/p.json
    echo "== $r $v"
    $Y --uri "file:$D/ssd.img${q:+?$q}" --engine leveldb --db-options "write_buffer_size=984612;max_file_size=1969225" \
      --block-cache 16384 --bloom-bits 10 --records 400000 --threads 8 --workload ${W:-C} --ops ${OPS:-1953} --zipf 0.9 \
      --json $D/p.json $extra 2>&1 | grep -E "^(run|settle)" | cut -c1-250
    python3 -c "import json,sys;j=[json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1];print('   point reads',j['point_reads'],'hdd share %.3f'%j['point_read_hdd_share'])" $D/p.json
    tiers
  done
done
