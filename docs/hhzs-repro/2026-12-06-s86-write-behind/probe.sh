#!/bin/bash
cd /tmp/w86
for round in 1 2; do
for s in HHZS B3; do for wb in on off; do
  echo "== round $round $s wb=$wb $(date +%T)"
  SYNC=0 WB=$wb S=$s D=/tmp/s86/p-$s-$wb bash /tmp/s86/ldb.sh load 2>&1 | grep -E "^load|^settle"
done; done; done
