#!/usr/bin/env bash
# Two builds of hintfs against each other under LevelDB on FUSE mounts:
# the host filesystem, a mount by binary A and a mount by binary B, all on
# ext4 (/var/tmp), in an order that rotates every round; per build the median
# of the per-round mount/host ratios of fillrandom and readrandom.
#   bash tests/bench/fuse_leveldb_ab.sh NUM ROUNDS HINTFS_A HINTFS_B
# Build A from another checkout (git worktree add /tmp/a COMMIT; meson setup
# /tmp/a/build; ninja -C /tmp/a/build adapters/cli/hintfs).
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -eq 4 ] || { echo "usage: fuse_leveldb_ab.sh NUM ROUNDS HINTFS_A HINTFS_B" >&2; exit 2; }
NUM=$1 ROUNDS=$2
HA=$(readlink -f "$3") HB=$(readlink -f "$4")
[ -x "$HA" ] && [ -x "$HB" ] || { echo "fuse_leveldb_ab.sh: both hintfs binaries must exist" >&2; exit 2; }
bash scripts/run.sh build >/dev/null
B=$(readlink -f build/tests/bench/leveldb_bench)
D=$(mktemp -d /var/tmp/hintfs-ab.XXXXXX)
trap 'umount -l "$D/a" "$D/b" 2>/dev/null || true; rm -rf "$D"' EXIT
mount_with() {  # NAME HINTFS
  mkdir "$D/$1"
  "$2" mkfs --fast "file:$D/$1-ssd.img?zone_size=16MiB&zones=64" \
            --slow "file:$D/$1-hdd.img?zone_size=16MiB&zones=256" >/dev/null
  "$2" mount "file:$D/$1-ssd.img" "$D/$1"
}
mkdir "$D/host"
mount_with a "$HA"
mount_with b "$HB"
for r in $(seq "$ROUNDS"); do
  case $((r % 3)) in
    0) order="host a b" ;;
    1) order="a b host" ;;
    2) order="b host a" ;;
  esac
  for k in $order; do
    rm -rf "${D:?}/$k/bench"
    sync
    "$B" "$D/$k" "$NUM" 2>/dev/null | sed "s/^/$k $r /"
  done
  echo "round $r of $ROUNDS done" >&2
done | python3 -c '
import sys, statistics
res = {}
for line in sys.stdin:
    k, r, bench, ops = line.split()[:4]
    res.setdefault((k, bench), []).append(float(ops))
for b in ("fillrandom", "readrandom"):
    for k in ("a", "b"):
        ratios = [m / h for h, m in zip(res[("host", b)], res[(k, b)])]
        print("%s %s: median mount/host %.2f, per round %s" % (b, k, statistics.median(ratios), " ".join("%.2f" % x for x in ratios)))
'
echo "$NUM keys, $ROUNDS rounds; a = $HA, b = $HB"
