#!/usr/bin/env bash
# Overhead of hintfs under RocksDB: Debian's db_bench, unmodified, on hintfs
# over mem: devices and over file: images in /dev/shm (no timing profile;
# file: images make the system calls a real device needs) and on the host
# filesystem (a /dev/shm directory, so all three are RAM-backed), in one run,
# interleaved, several rounds. Prints ops/s per benchmark and each hintfs/host
# ratio of the medians.
#   bash tests/bench/rocksdb_overhead.sh [NUM_KEYS] [ROUNDS] [VALUE_SIZE]
set -euo pipefail
cd "$(dirname "$0")/../.."
NUM=${1:-500000}
ROUNDS=${2:-3}
VALUE=${3:-100}
bash scripts/run.sh build >/dev/null
PLUGIN=$(readlink -f build/adapters/rocksdb/libhintfs_rocksdb.so)
HINTFS=$(readlink -f build/adapters/cli/hintfs)
HOST_DIR=$(mktemp -d /dev/shm/hintfs-bench.XXXXXX)
IMG_DIR=$(mktemp -d /dev/shm/hintfs-img.XXXXXX)
trap 'rm -rf "$HOST_DIR" "$IMG_DIR"' EXIT
COMMON=(--num="$NUM" --value_size="$VALUE" --compression_type=none --threads=1
        --benchmarks=fillrandom,readrandom,readwhilewriting --duration=0 --reads="$NUM")

run() {  # run NAME ARGS... -> prints "NAME bench ops"
  local name=$1; shift
  "$@" "${COMMON[@]}" 2>&1 | awk -v n="$name" '/^(fillrandom|readrandom|readwhilewriting) /{print n, $1, $5}'
}
results=$(mktemp)
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round/$ROUNDS" >&2
  rm -rf "${HOST_DIR:?}"/*
  run host db_bench --db="$HOST_DIR/db" >> "$results"
  LD_PRELOAD=$PLUGIN run mem db_bench --fs_uri="hintfs://mem:bench$round" --db=/db >> "$results"
  rm -f "$IMG_DIR"/*.img
  "$HINTFS" mkfs --fast "file:$IMG_DIR/ssd.img?zone_size=64MiB&zones=64" \
                 --slow "file:$IMG_DIR/hdd.img?zone_size=64MiB&zones=128" >/dev/null
  LD_PRELOAD=$PLUGIN run file db_bench --fs_uri="hintfs://file:$IMG_DIR/ssd.img" --db=/db >> "$results"
done
python3 - "$results" <<'PY'
import statistics, sys, collections
ops = collections.defaultdict(list)
for line in open(sys.argv[1]):
    who, bench, n = line.split()
    ops[(who, bench)].append(float(n))
print("%-18s %12s %12s %12s %9s %9s" % ("benchmark", "host ops/s", "mem: ops/s", "file: ops/s",
                                          "mem/host", "file/host"))
for bench in ("fillrandom", "readrandom", "readwhilewriting"):
    h = statistics.median(ops[("host", bench)])
    m = statistics.median(ops[("mem", bench)])
    f = statistics.median(ops[("file", bench)])
    print("%-18s %12.0f %12.0f %12.0f %9.2f %9.2f" % (bench, h, m, f, m / h, f / h))
PY
rm -f "$results"
