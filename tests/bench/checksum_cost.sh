#!/usr/bin/env bash
# What block checksums cost: Debian's db_bench (fillrandom, then readrandom
# with a 1 MiB block cache so most reads reach hintfs) on emulated file:
# images in tmpfs without timing profile: A (a build before checksums, its
# build directory), B (this build) with verify_reads=on and B with
# verify_reads=off; ROUNDS rounds interleaved; medians (min-max) of ops/s.
#   bash tests/bench/checksum_cost.sh BUILD_A BUILD_B [NUM] [ROUNDS]
set -euo pipefail
A=$(readlink -f "${1:?usage: checksum_cost.sh BUILD_A BUILD_B [NUM] [ROUNDS]}")
B=$(readlink -f "${2:?usage: checksum_cost.sh BUILD_A BUILD_B [NUM] [ROUNDS]}")
NUM=${3:-500000}
ROUNDS=${4:-5}
WORK=$(mktemp -d /dev/shm/hintfs-sumcost.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
results=$(mktemp)
run() {  # run LABEL BUILD QUERY
  rm -f "$WORK"/*.img
  "$2/adapters/cli/hintfs" mkfs --fast "file:$WORK/ssd.img?zone_size=64MiB&zones=32&sync=0" \
                               --slow "file:$WORK/hdd.img?zone_size=64MiB&zones=64&sync=0" >/dev/null
  LD_PRELOAD=$2/adapters/rocksdb/libhintfs_rocksdb.so db_bench --fs_uri="hintfs://file:$WORK/ssd.img$3" \
    --db=/db --num="$NUM" --reads="$NUM" --value_size=100 --compression_type=none --cache_size=1048576 \
    --benchmarks=fillrandom,readrandom 2>&1 | awk -v n="$1" '/^(fillrandom|readrandom) /{print n, $1, $5}' >> "$results"
}
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round/$ROUNDS" >&2
  run before "$A" ""
  run verify "$B" "?verify_reads=on"
  run noverify "$B" "?verify_reads=off"
done
python3 - "$results" <<'PY'
import collections, statistics, sys
ops = collections.defaultdict(list)
for line in open(sys.argv[1]):
    who, bench, n = line.split()
    ops[(who, bench)].append(float(n))
cell = lambda v: "%.0f (%.0f-%.0f)" % (statistics.median(v), min(v), max(v))
print("%-11s %24s %24s %24s %8s %8s" % ("benchmark", "before", "verify on", "verify off", "on/bef", "on/off"))
for b in ("fillrandom", "readrandom"):
    bef, on, off = ops[("before", b)], ops[("verify", b)], ops[("noverify", b)]
    print("%-11s %24s %24s %24s %8.2f %8.2f" % (b, cell(bef), cell(on), cell(off),
          statistics.median(on) / statistics.median(bef), statistics.median(on) / statistics.median(off)))
PY
rm -f "$results"
