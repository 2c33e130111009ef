#!/usr/bin/env bash
# HHZS LevelDB load with and without fill=tiering, then phases B, C, F from each (sync=0)
# Run from the source tree with B=BUILD_DIR (default build); the phases are session 78's script.
export B=${B:-build}
PHASE=$(dirname "$0")/../2026-12-01-s78-exp1-leveldb/ldb-phase.sh
export HINTFS_DEVICE_PARAMS=sync=0
for FILL in "" tiering; do
  D=/tmp/fp-${FILL:-upper}
  FILL=$FILL D=$D S=HHZS bash "$PHASE" load
  $B/adapters/cli/hintfs ls -l file:$D/saved/ssd.img?snapshot=1 /db --member 1=file:$D/saved/hdd.img 2>/dev/null | awk '{k=$5" "$6; n[k]++; b[k]+=$2} END {for (k in n) print "  ", k, n[k], b[k]/1048576}' | sort
  for W in B C F; do
    echo "== fill=${FILL:-upper} $W"
    FILL=$FILL D=$D S=HHZS W=$W bash "$PHASE" | grep -E "^run|compactions"
  done
done
