#!/usr/bin/env bash
# C phases from one saved load per scheme, schemes alternating, three runs,
# with the store's memory unbounded and bounded to 64 MiB (its page cache
# about 36 MiB above its 28 MiB of anonymous memory). Run from the
# repository's root after the loads README.md names; W is their directory.
W=${W:-/tmp/s71}
export B=${B:-build}
LDM=docs/hhzs-repro/2026-11-29-s68-leveldb-mount/ldm.sh
for r in 1 2 3; do
  for mem in "" 64; do
    for s in b3 hhzs hintfs; do
      q=""; [ $s = hintfs ] && q="blocks=32MiB"
      [ $s = hintfs ] && [ -n "$mem" ] && q="blocks=32MiB&cache=all"
      [ $s = hhzs ] && [ -n "$mem" ] && q="cache=all"
      line=$(MEM=$mem $LDM phase "$q" $W/$s C 2>&1 | grep "^run")
      echo "run=$r mem=${mem:-none} scheme=$s $line"
    done
  done
done
