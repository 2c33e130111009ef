#!/usr/bin/env bash
# The cost of the FUSE mount against ext4 for fio's jobs (fio-jobs/mount.fio:
# sequential write, random read, random 4 KiB overwrites, mixed), in one run:
# ROUNDS rounds, each on an ext4 directory and on a hintfs mount whose device
# images sit on the same ext4 filesystem (no timing profile: the software's
# cost). Prints each job's median bandwidth on both and the ratio, and what
# hintfs wrote for the overwrites: bytes overwritten, device bytes written,
# GC runs and bytes GC moved (the mount's stats.json before each unmount).
#   bash tests/bench/fio_mount_vs_ext4.sh [SIZE] [RUNTIME] [ROUNDS]
# FAST_ZONES and SLOW_ZONES (64 MiB zones; default 32 and 64) size the
# filesystem: a small one makes the overwrites' garbage need GC.
set -euo pipefail
cd "$(dirname "$0")/../.."
SIZE=${1:-256M} RUNTIME=${2:-20} ROUNDS=${3:-3}
bash scripts/run.sh build >/dev/null
HINTFS=$(readlink -f build/adapters/cli/hintfs)
W=$(mktemp -d /var/tmp/hintfs-fio.XXXXXX)
trap 'umount -l "$W/mnt" 2>/dev/null || true; rm -rf "$W"' EXIT
mkdir "$W/mnt" "$W/ext4"
for r in $(seq "$ROUNDS"); do
  rm -rf "${W:?}"/ext4/* && sync
  DIR=$W/ext4 SIZE=$SIZE RUNTIME=$RUNTIME bash fio-jobs/run.sh fio-jobs/mount.fio | sed "s/^/ext4 $r /"
  rm -f "$W"/*.img
  "$HINTFS" mkfs --fast "file:$W/ssd.img?zone_size=64MiB&zones=${FAST_ZONES:-32}" \
                 --slow "file:$W/hdd.img?zone_size=64MiB&zones=${SLOW_ZONES:-64}" >/dev/null
  "$HINTFS" mount "file:$W/ssd.img" "$W/mnt"
  DIR=$W/mnt SIZE=$SIZE RUNTIME=$RUNTIME bash fio-jobs/run.sh fio-jobs/mount.fio | sed "s/^/hintfs $r /"
  python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
print("stats %s overwritten %d written %d gc_runs %d gc_moved %d" % (sys.argv[2], j["overwritten_bytes"],
      j["bytes_written"]["fast"] + j["bytes_written"]["slow"], j["gc_runs"], j["gc_bytes_moved"]))
' "$W/mnt/.hintfs/stats.json" "$r"
  umount "$W/mnt"
  sleep 1
  echo "round $r of $ROUNDS done" >&2
done | tee "$W/out.txt" | grep '^stats'
python3 - "$W/out.txt" <<'PY'
import re, statistics, sys, collections
bw = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] not in ("ext4", "hintfs"):
        continue
    # run.sh: "JOB  read: X MiB/s ... write: Y MiB/s ..." or "-" for a side without I/O
    mb = [float(x) for x in re.findall(r"([0-9.]+) MiB/s", line)]
    bw[(f[0], f[2])].append(sum(mb))
for job in sorted({j for _, j in bw}):
    e, h = statistics.median(bw[("ext4", job)]), statistics.median(bw[("hintfs", job)])
    print("%-16s ext4 %8.1f MiB/s  hintfs %8.1f MiB/s  hintfs/ext4 %.2f  (hintfs runs %s)" % (
        job, e, h, h / e, " ".join("%.1f" % x for x in bw[("hintfs", job)])))
PY
