#!/usr/bin/env bash
# LevelDB (its default Env, unmodified) on a hintfs FUSE mount against the
# same LevelDB on the host filesystem the mount's device images live in:
# fillrandom and readrandom, ROUNDS rounds interleaved, medians, ratios.
# Two host filesystems, each with its own mount (file: images on it):
#   ext4  /var/tmp (disk): the images go through the host page cache too;
#   tmpfs /dev/shm (RAM): the daemon's device writes cost a memory copy.
# On ext4 a third mount runs with -o no_writeback_cache (every write a
# round trip to the daemon) for comparison.
#   bash tests/bench/fuse_leveldb.sh [NUM] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
NUM=${1:-1000000}
ROUNDS=${2:-5}
bash scripts/run.sh build >/dev/null
H=$(readlink -f build/adapters/cli/hintfs)
B=$(readlink -f build/tests/bench/leveldb_bench)
EXT4=$(mktemp -d /var/tmp/hintfs-fusebench.XXXXXX)
TMPFS=$(mktemp -d /dev/shm/hintfs-fusebench.XXXXXX)
trap 'umount -l "$EXT4/wb" "$EXT4/wt" "$TMPFS/wb" 2>/dev/null || true; rm -rf "$EXT4" "$TMPFS"' EXIT
mount_on() {  # DIR NAME [mount options...]
  local dir=$1 name=$2
  shift 2
  mkdir "$dir/$name"
  "$H" mkfs --fast "file:$dir/$name-ssd.img?zone_size=16MiB&zones=64" \
            --slow "file:$dir/$name-hdd.img?zone_size=16MiB&zones=256" >/dev/null
  "$H" mount "$@" "file:$dir/$name-ssd.img" "$dir/$name"
}
mkdir "$EXT4/host" "$TMPFS/host"
mount_on "$EXT4" wb
mount_on "$EXT4" wt -o no_writeback_cache
mount_on "$TMPFS" wb
for r in $(seq "$ROUNDS"); do
  for t in "ext4 host $EXT4/host" "ext4 wb $EXT4/wb" "ext4 wt $EXT4/wt" "tmpfs host $TMPFS/host" "tmpfs wb $TMPFS/wb"; do
    set -- $t
    rm -rf "${3:?}/bench"
    sync  # no run pays for the write-back of the one before
    "$B" "$3" "$NUM" 2>/dev/null | sed "s/^/$1 $2 $r /"
  done
  echo "round $r of $ROUNDS done" >&2
done | python3 -c '
import sys, statistics
res = {}
for line in sys.stdin:
    fs, kind, r, bench, ops = line.split()[:5]
    res.setdefault((fs, kind, bench), []).append(float(ops))
med = lambda *k: statistics.median(res[k])
# Paired: in each round the mount run against the host run next to it, so drifts
# of the speed of this machine between rounds cancel; the median of those.
paired = lambda fs, kind, b: statistics.median(m / h for h, m in zip(res[(fs, "host", b)], res[(fs, kind, b)]))
print("%-6s %-11s %11s %11s %6s %6s %13s %6s" % ("host", "benchmark", "host ops/s", "mount ops/s", "ratio", "paired", "no-wb ops/s", "ratio"))
for fs in ("ext4", "tmpfs"):
    for b in ("fillrandom", "readrandom"):
        h, m = med(fs, "host", b), med(fs, "wb", b)
        wt = ("%13.0f %6.2f" % (med(fs, "wt", b), med(fs, "wt", b) / h)) if (fs, "wt", b) in res else "%13s %6s" % ("-", "-")
        print("%-6s %-11s %11.0f %11.0f %6.2f %6.2f %s" % (fs, b, h, m, m / h, paired(fs, "wb", b), wt))
for fs in ("ext4", "tmpfs"):
    for b in ("fillrandom", "readrandom"):
        rounds = " ".join("%.2f" % (m / h) for h, m in zip(res[(fs, "host", b)], res[(fs, "wb", b)]))
        print("per round, %s %s mount/host: %s" % (fs, b, rounds))
'
echo "$NUM keys of 16+100 bytes, $ROUNDS rounds interleaved; ratio: of the medians; paired: median of the per-round ratios"
