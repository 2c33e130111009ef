#!/usr/bin/env bash
# What process-kill durability costs: Debian's db_bench with sync=false
# (fillseq and fillrandom, 100-byte values) on two builds of hintfs (A, B:
# build directories; each makes its own filesystem), each on emulated file: images in a tmpfs directory with the
# ZN540/ST14000 geometry and no timing profile, and on the host filesystem
# (tmpfs), interleaved, ROUNDS rounds; prints ops/s medians (min-max), each
# build's ratio to the host per round, and, from one strace'd run per build,
# the bytes written to the device images per byte the store wrote.
#   bash tests/bench/kill_durability_cost.sh BUILD_A BUILD_B [NUM] [ROUNDS]
set -euo pipefail
A=$(readlink -f "${1:?usage: kill_durability_cost.sh BUILD_A BUILD_B [NUM] [ROUNDS]}")
B=$(readlink -f "${2:?usage: kill_durability_cost.sh BUILD_A BUILD_B [NUM] [ROUNDS]}")
NUM=${3:-500000}
ROUNDS=${4:-5}
WORK=$(mktemp -d /dev/shm/hintfs-killcost.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
COMMON=(--num="$NUM" --value_size=100 --compression_type=none --threads=1 --sync=false
        --benchmarks=fillseq,fillrandom)

mkfs() {  # mkfs BUILD
  rm -f "$WORK"/*.img
  "$1/adapters/cli/hintfs" mkfs --fast "file:$WORK/ssd.img?zone_size=64MiB&zones=32&sync=0" \
                 --slow "file:$WORK/hdd.img?zone_size=64MiB&zones=64&sync=0" >/dev/null
}
on_hintfs() {  # on_hintfs BUILD ARGS...
  local build=$1; shift
  mkfs "$build"
  LD_PRELOAD=$build/adapters/rocksdb/libhintfs_rocksdb.so "$@" --fs_uri="hintfs://file:$WORK/ssd.img" --db=/db "${COMMON[@]}"
}
on_host() { rm -rf "$WORK/hostdb"; "$@" --db="$WORK/hostdb" "${COMMON[@]}"; }
ops() { awk -v n="$1" '/^(fillseq|fillrandom) /{print n, $1, $5}'; }

results=$(mktemp)
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round/$ROUNDS" >&2
  for who in host A B; do
    case $who in
      host) on_host db_bench 2>&1 | ops "$round host" >> "$results" ;;
      A) on_hintfs "$A" db_bench 2>&1 | ops "$round A" >> "$results" ;;
      B) on_hintfs "$B" db_bench 2>&1 | ops "$round B" >> "$results" ;;
    esac
  done
done
# Bytes written by pwrite(2) into the images (data, journal, zone state).
for who in A B; do
  build=$A; [ $who = B ] && build=$B
  mkfs "$build"
  strace -f -qq -e trace=pwrite64 -e signal=none -o "$WORK/strace.$who" \
    env LD_PRELOAD="$build/adapters/rocksdb/libhintfs_rocksdb.so" \
    db_bench --fs_uri="hintfs://file:$WORK/ssd.img" --db=/db "${COMMON[@]}" --benchmarks=fillseq >/dev/null 2>&1
  awk -v w=$who -v user=$((NUM * (100 + 16))) '/pwrite64/ && / = [0-9]+$/ {s += $NF}
       END {printf "%s: %.0f bytes written to the images for %d bytes of keys and values (%.2fx)\n", w, s, user, s / user}' \
    "$WORK/strace.$who"
done
python3 - "$results" <<'PY'
import collections, statistics, sys
ops = collections.defaultdict(list)
per_round = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    rnd, who, bench, n = line.split()
    ops[(who, bench)].append(float(n))
    per_round[(rnd, bench)][who] = float(n)
def cell(v):
    return "%.0f (%.0f-%.0f)" % (statistics.median(v), min(v), max(v))
print("%-11s %26s %26s %26s %16s %16s" % ("benchmark", "host ops/s", "A ops/s", "B ops/s", "A/host", "B/host"))
for bench in ("fillseq", "fillrandom"):
    ra = [r[bench]["A"] / r[bench]["host"] for k, r in [(k, {bench: v}) for k, v in per_round.items() if k[1] == bench]]
    rb = [r[bench]["B"] / r[bench]["host"] for k, r in [(k, {bench: v}) for k, v in per_round.items() if k[1] == bench]]
    fmt = lambda v: "%.2f (%.2f-%.2f)" % (statistics.median(v), min(v), max(v))
    print("%-11s %26s %26s %26s %16s %16s" % (bench, cell(ops[("host", bench)]), cell(ops[("A", bench)]),
                                             cell(ops[("B", bench)]), fmt(ra), fmt(rb)))
PY
rm -f "$results"
