#!/usr/bin/env bash
# Two builds of hintfs against each other on the paths stores take: Debian's
# db_bench (fillrandom, then readrandom) through each build's RocksDB plugin
# on file: images in /dev/shm, and on a FUSE mount served by each build's
# hintfs (db_bench's own POSIX Env), A and B taking turns going first. Prints
# per path and benchmark each round's B/A throughput ratio and the median.
#   bash tests/bench/build_ab.sh BUILD_A BUILD_B [NUM] [ROUNDS]
# A build of another commit: git worktree add /tmp/a COMMIT; meson setup
# /tmp/a-build /tmp/a; ninja -C /tmp/a-build adapters/cli/hintfs
# adapters/rocksdb/libhintfs_rocksdb.so
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: build_ab.sh BUILD_A BUILD_B [NUM] [ROUNDS]" >&2; exit 2; }
A=$(readlink -f "$1") B=$(readlink -f "$2")
NUM=${3:-300000} ROUNDS=${4:-3}
for b in "$A" "$B"; do
  [ -x "$b/adapters/cli/hintfs" ] && [ -f "$b/adapters/rocksdb/libhintfs_rocksdb.so" ] ||
    { echo "build_ab.sh: $b lacks adapters/cli/hintfs or the RocksDB plugin" >&2; exit 2; }
done
D=$(mktemp -d /dev/shm/hintfs-ab.XXXXXX)
M=$(mktemp -d /tmp/hintfs-ab-mnt.XXXXXX)
trap 'umount -l "$M" 2>/dev/null || true; rm -rf "$D" "$M"' EXIT
BENCH=(--num="$NUM" --value_size=100 --compression_type=none --threads=1
       --benchmarks=fillrandom,readrandom --reads="$NUM")
ops() { awk -v p="$1" '/^(fillrandom|readrandom) /{print p, $1, $5}'; }
mkfs_in() {  # BUILD
  rm -f "$D"/*.img
  "$1/adapters/cli/hintfs" mkfs --fast "file:$D/ssd.img?zone_size=64MiB&zones=64" \
                                --slow "file:$D/hdd.img?zone_size=64MiB&zones=128" >/dev/null
}
run_build() {  # NAME BUILD ROUND
  mkfs_in "$2"
  LD_PRELOAD="$2/adapters/rocksdb/libhintfs_rocksdb.so" db_bench --fs_uri="hintfs://file:$D/ssd.img" \
    --db=/db "${BENCH[@]}" 2>&1 | ops "plugin $1 $3"
  mkfs_in "$2"
  "$2/adapters/cli/hintfs" mount "file:$D/ssd.img" "$M"
  db_bench --db="$M/db" "${BENCH[@]}" 2>&1 | ops "mount $1 $3"
  umount "$M"
  sleep 1  # the daemon's exit
}
for r in $(seq "$ROUNDS"); do
  if [ $((r % 2)) -eq 1 ]; then order="a b"; else order="b a"; fi
  for k in $order; do
    if [ "$k" = a ]; then run_build a "$A" "$r"; else run_build b "$B" "$r"; fi
  done
  echo "round $r of $ROUNDS done" >&2
done | python3 -c '
import sys, statistics, collections
res = collections.defaultdict(dict)
for line in sys.stdin:
    path, k, r, bench, ops = line.split()
    res[(path, bench)][(k, int(r))] = float(ops)
for (path, bench), v in sorted(res.items()):
    rounds = sorted({r for _, r in v})
    ratios = [v[("b", r)] / v[("a", r)] for r in rounds]
    a = statistics.median(v[("a", r)] for r in rounds)
    b = statistics.median(v[("b", r)] for r in rounds)
    print("%-7s %-11s A %9.0f ops/s  B %9.0f ops/s  B/A median %.2f (per round %s)" % (
        path, bench, a, b, statistics.median(ratios), " ".join("%.2f" % x for x in ratios)))
'
echo "$NUM keys, $ROUNDS rounds; A = $A, B = $B"
