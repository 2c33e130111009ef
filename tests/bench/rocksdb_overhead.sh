#!/usr/bin/env bash
# Overhead of hintfs under RocksDB: Debian's db_bench, unmodified, on hintfs
# (mem: devices, no timing profile) and on the host filesystem (a tmpfs
# directory, so both are RAM-backed), in one run, interleaved, several rounds.
# Prints ops/s per benchmark and the hintfs/host ratio of the medians.
#   bash tests/bench/rocksdb_overhead.sh [NUM_KEYS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
NUM=${1:-500000}
ROUNDS=${2:-3}
bash scripts/run.sh build >/dev/null
PLUGIN=$(readlink -f build/adapters/rocksdb/libhintfs_rocksdb.so)
HOST_DIR=$(mktemp -d /dev/shm/hintfs-bench.XXXXXX)
trap 'rm -rf "$HOST_DIR"' EXIT
COMMON=(--num="$NUM" --value_size=100 --compression_type=none --threads=1
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
  LD_PRELOAD=$PLUGIN run hintfs db_bench --fs_uri="hintfs://mem:bench$round" --db=/db >> "$results"
done
python3 - "$results" <<'PY'
import statistics, sys, collections
ops = collections.defaultdict(list)
for line in open(sys.argv[1]):
    who, bench, n = line.split()
    ops[(who, bench)].append(float(n))
print("%-18s %14s %14s %7s" % ("benchmark", "host ops/s", "hintfs ops/s", "ratio"))
for bench in ("fillrandom", "readrandom", "readwhilewriting"):
    h, f = statistics.median(ops[("host", bench)]), statistics.median(ops[("hintfs", bench)])
    print("%-18s %14.0f %14.0f %7.2f" % (bench, h, f, f / h))
PY
rm -f "$results"
