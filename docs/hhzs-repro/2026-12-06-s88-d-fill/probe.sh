#!/usr/bin/env bash
# Session 88's probes of RocksDB's D (and C) under HINTFS variants, one load each, run from
# the repository's root: `bash probe.sh load` loads B3, HINTFS and the variants below (with
# session 85's rphase.sh), `bash probe.sh` runs
# ROUNDS rounds of the phases in PHASES from copies of the loads, schemes interleaved.
# B: the build to use (default build).
set -euo pipefail
R=$(dirname "$0")/../2026-12-06-s85-rocksdb-d  # its rphase.sh takes EXTRA for HINTFS too since session 88
# HINTFS and HINTFSL name fill=upper, the default of the binaries the probe ran (291a5ca).
declare -A EXTRA=([B3]="" [HINTFS]="fill=upper" [HINTFSF]="fill=tiering" [HINTFSL]="fill=upper,lifetime=hint"
                  [HINTFSFL]="fill=tiering,lifetime=hint")
SCHEMES=${SCHEMES:-B3 HINTFS HINTFSF HINTFSL HINTFSFL}
for s in $SCHEMES; do
  S=$s; [ $s != B3 ] && S=HINTFS
  if [ "${1:-}" = load ]; then
    echo "== load $s"; S=$S D=/tmp/r-$s EXTRA="${EXTRA[$s]}" bash $R/rphase.sh load
  fi
done
[ "${1:-}" = load ] && exit 0
for round in $(seq 1 ${ROUNDS:-2}); do
  for w in ${PHASES:-D C}; do
    for s in $SCHEMES; do
      S=$s; [ $s != B3 ] && S=HINTFS
      echo "== $s $w round $round"
      S=$S D=/tmp/r-$s W=$w bash $R/rphase.sh | grep -E "^run"
    done
  done
done
