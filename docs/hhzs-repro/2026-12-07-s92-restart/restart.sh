#!/usr/bin/env bash
# Four YCSB C runs in a row on one copy of each saved load (a store restarted between runs), the SSD
# cache kept across the unmounts (default) or not (cache_keep=off); binaries of $B.
for t in HINTFS1 HINTFS2 HINTFS3; do
  for q in "" "cache_keep=off"; do
    echo "== $t keep=${q:-on}"
    Q=$q D=/tmp/s91/$t PHASES="C C C C" $(dirname $0)/chain.sh
  done
done
