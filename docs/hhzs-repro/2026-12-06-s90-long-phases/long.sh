#!/usr/bin/env bash
# Session 90: YCSB phases ten times as long as the reproduction's (OPS, default 19,530 against
# 1,953), B3 and HINTFS from copies of one load each (session 85's rphase.sh), interleaved;
# run from the repository's root.
#   B=BUILD ROUNDS=1 PHASES="A B C" bash long.sh
# Loads: /tmp/r89-B3d (B3, session 89's load.sh with level_compaction_dynamic_file_size=false)
# and /tmp/r90-H (HINTFS, `S=HINTFS D=/tmp/r90-H XOPT=... rphase.sh load` at this session's code).
set -euo pipefail
H=$(cd "$(dirname "$0")" && pwd)
X=level_compaction_dynamic_file_size=false
for r in $(seq ${ROUNDS:-1}); do
  for W in ${PHASES:-A B C}; do
    for s in B3:/tmp/r89-B3d HINTFS:/tmp/r90-H; do
      echo "== round $r, $W, ${s%%:*}, ${OPS:-19530} operations"
      S=${s%%:*} D=${s#*:} W=$W OPS=${OPS:-19530} XOPT=$X bash $H/../2026-12-06-s85-rocksdb-d/rphase.sh | grep -E "^(run|before|after|L[0-9])"
      ${B:-build}/adapters/cli/hintfs info --json "file:${s#*:}/ssd.img" | python3 -c "
import json,sys; d=json.load(sys.stdin); c=d.get('cache',{}); m=d.get('migration',{}); b=d.get('block_tiering',{})
print('  cache hits', c.get('hits'), 'of', c.get('lookups'), '| moves', m.get('moves'), '| blocks promoted', b.get('promoted_blocks'), 'served', b.get('moved_block_reads'))"
    done
  done
done
