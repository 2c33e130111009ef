#!/usr/bin/env bash
# Issue 16's check, as a user runs it: Debian's db_bench (default sync=false)
# loads 50,000 keys on hintfs and is killed with SIGKILL during the
# readrandom that follows; ldb must then scan all 50,000 and fsck be clean.
# RUNS kills for each zone size (1, 4, 16 and 64 MiB); prints the runs that
# kept every key per zone size and exits 1 if any run lost one.
#   bash tests/bench/dbbench_kill.sh HINTFS PLUGIN [RUNS]
set -euo pipefail
HINTFS=$(readlink -f "${1:?usage: dbbench_kill.sh HINTFS PLUGIN [RUNS]}")
PLUGIN=$(readlink -f "${2:?usage: dbbench_kill.sh HINTFS PLUGIN [RUNS]}")
RUNS=${3:-20}
WORK=$(mktemp -d /tmp/hintfs-dbkill.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
lost=0
for zone in 1 4 16 64; do
  kept=0
  for run in $(seq 1 "$RUNS"); do
    rm -f "$WORK"/*.img
    fast=$((256 / zone)); [ $fast -lt 8 ] && fast=8
    slow=$((1024 / zone)); [ $slow -lt 16 ] && slow=16
    "$HINTFS" mkfs --fast "file:$WORK/ssd.img?zone_size=${zone}MiB&zones=$fast" \
                   --slow "file:$WORK/hdd.img?zone_size=${zone}MiB&zones=$slow" >/dev/null
    LD_PRELOAD=$PLUGIN db_bench --fs_uri="hintfs://file:$WORK/ssd.img" --db=/db \
      --benchmarks=fillseq,readrandom --num=50000 --reads=100000000 --value_size=100 \
      --compression_type=none >"$WORK/bench.log" 2>&1 &
    pid=$!
    sleep "$(python3 -c "import random; print(round(random.uniform(1.0, 3.0), 2))")"
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    grep -q "^fillseq" "$WORK/bench.log" || { echo "zone ${zone}MiB run $run: killed before the load finished" >&2; exit 2; }
    keys=$(LD_PRELOAD=$PLUGIN ldb --fs_uri="hintfs://file:$WORK/ssd.img" --db=/db scan 2>/dev/null | wc -l)
    if [ "$keys" -eq 50000 ] && "$HINTFS" fsck "file:$WORK/ssd.img" >/dev/null 2>&1; then
      kept=$((kept + 1))
    else
      echo "zone ${zone}MiB run $run: $keys keys after the kill" >&2
      lost=1
    fi
    printf '\rzone %2d MiB: run %d/%d' "$zone" "$run" "$RUNS" >&2
  done
  printf '\r' >&2
  echo "zone ${zone} MiB: ${kept} of ${RUNS} kill runs kept all 50000 keys"
done
exit "$lost"
