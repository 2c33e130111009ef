#!/bin/bash
cd "$(dirname "$0")/../../.."  # the repository, built with the patch applied
for round in 1 2; do
for s in HHZS B3; do for wb in on off; do
  echo "== round $round $s wb=$wb $(date +%T)"
  SYNC=0 WB=$wb S=$s D=/tmp/s86/p-$s-$wb bash docs/hhzs-repro/2026-12-01-s78-exp1-leveldb/ldb-phase.sh load 2>&1 | grep -E "^load|^settle"
done; done; done
