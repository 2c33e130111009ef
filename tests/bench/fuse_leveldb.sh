#!/usr/bin/env bash
# LevelDB (its default Env, unmodified) on a hintfs FUSE mount against the
# same LevelDB on the host filesystem the mount's device images live in:
# fillrandom and readrandom, ROUNDS rounds interleaved, medians, ratios.
#   bash tests/bench/fuse_leveldb.sh [NUM] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
NUM=${1:-300000}
ROUNDS=${2:-3}
bash scripts/run.sh build >/dev/null
H=$(readlink -f build/adapters/cli/hintfs)
B=$(readlink -f build/tests/bench/leveldb_bench)
WORK=$(mktemp -d /var/tmp/hintfs-fusebench.XXXXXX)
MNT=$WORK/mnt
mkdir "$MNT" "$WORK/host"
trap 'umount -l "$MNT" 2>/dev/null || true; rm -rf "$WORK"' EXIT
"$H" mkfs --fast "file:$WORK/ssd.img?zone_size=16MiB&zones=64" \
          --slow "file:$WORK/hdd.img?zone_size=16MiB&zones=256" >/dev/null
"$H" mount "file:$WORK/ssd.img" "$MNT"
for r in $(seq "$ROUNDS"); do
  rm -rf "$WORK/host/bench"
  "$B" "$WORK/host" "$NUM" | sed "s/^/host $r /"
  rm -rf "$MNT/bench"
  "$B" "$MNT" "$NUM" | sed "s/^/hintfs $r /"
done | python3 -c '
import sys, statistics
res = {}
for line in sys.stdin:
    f = line.split()
    res.setdefault((f[0], f[2]), []).append(float(f[3]))
print("%-12s %12s %12s %8s" % ("benchmark", "host ops/s", "mount ops/s", "ratio"))
for b in ("fillrandom", "readrandom"):
    h, m = statistics.median(res[("host", b)]), statistics.median(res[("hintfs", b)])
    print("%-12s %12.0f %12.0f %8.2f" % (b, h, m, m / h))
'
echo "$NUM keys of 16+100 bytes, $ROUNDS rounds; host: $(df --output=fstype "$WORK" | tail -1) under $WORK"
