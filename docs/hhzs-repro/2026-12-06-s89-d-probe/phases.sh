#!/usr/bin/env bash
# Session 89: `phases.sh "NAME:S:XOPT:BUILD ..."` runs PHASES (default D C) from copies of each
# load of load.sh, ROUNDS rounds, the loads interleaved.
set -uo pipefail
H=$(cd "$(dirname "$0")" && pwd)
cd /work/main
for round in $(seq 1 ${ROUNDS:-1}); do
  for w in ${PHASES:-D C}; do
    for spec in $1; do
      IFS=: read -r N S X BB <<< "$spec"
      echo "== $N $w round $round"
      XOPT="$X" S=$S D=/tmp/r89-$N B=$BB W=$w bash $H/../2026-12-06-s85-rocksdb-d/rphase.sh | grep -E "^run|^L[0-9] fast"
    done
  done
done
