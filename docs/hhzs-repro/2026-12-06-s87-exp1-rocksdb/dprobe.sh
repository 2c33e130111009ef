#!/usr/bin/env bash
# Session 87's probe of keeping tables deeper than the tiering level on the fast tier while it has
# free room (keep-deeper.patch): one RocksDB load each (B3 and HINTFS at main's binaries, HINTFS
# with the patch), then D, C, D from copies of each (rphase.sh of session 85).
set -u
R=docs/hhzs-repro/2026-12-06-s85-rocksdb-d/rphase.sh
# As run: main's binaries from a clone's build, the patched ones from another clone with
# keep-deeper.patch applied; MAIN= and PATCHED= name others.
MAIN=${MAIN:-/tmp/ci-87b/build}; PATCHED=${PATCHED:-/tmp/p87/build}
run() { local label=$1; shift; echo "== $label $*"; env "$@" bash $R ${PH:-} 2>&1 | grep -E "^(load|run|L[0-9])"; }
PH=load run B3 S=B3 B=$MAIN D=/tmp/r-B3
PH=load run HINTFS S=HINTFS B=$MAIN D=/tmp/r-HINTFS
PH=load run HINTFS-keep S=HINTFS B=$PATCHED D=/tmp/r-HINTFSk
for w in D C D; do
  run B3 S=B3 B=$MAIN D=/tmp/r-B3 W=$w
  run HINTFS S=HINTFS B=$MAIN D=/tmp/r-HINTFS W=$w
  run HINTFS-keep S=HINTFS B=$PATCHED D=/tmp/r-HINTFSk W=$w
done
