#!/usr/bin/env bash
# Usable capacity: Debian's db_bench (RocksDB defaults, values of 1000
# incompressible bytes) writes on fresh devices (SSD 16 x 16 MiB zones, HDD
# 32 x 16 MiB) until a write fails for lack of space; then the bytes in
# files, as a share of the raw capacity and of the data zones' capacity.
# Prints one line per run: workload, run, files MiB, files/raw, files/data.
# With HINTFS "tmpfs" (and any PLUGIN), the same runs go to a kernel tmpfs of
# the same raw size (768 MiB; needs root): what RocksDB itself leaves free.
#   bash tests/bench/usable_capacity.sh HINTFS PLUGIN [RUNS] [WORKLOADS...]
# WORKLOADS: fillseq fillrandom overwrite (default all three).
set -euo pipefail
HINTFS=${1:?usage: usable_capacity.sh HINTFS PLUGIN [RUNS] [WORKLOADS...]}
[ "$HINTFS" = tmpfs ] || HINTFS=$(readlink -f "$HINTFS")
PLUGIN=$(readlink -f "${2:?usage: usable_capacity.sh HINTFS PLUGIN [RUNS] [WORKLOADS...]}")
RUNS=${3:-3}
shift $(($# < 3 ? $# : 3))
WORKLOADS=("$@")
((${#WORKLOADS[@]})) || WORKLOADS=(fillseq fillrandom overwrite)
WORK=$(mktemp -d /tmp/hintfs-capacity.XXXXXX)
trap 'umount "$WORK/tmpfs" 2>/dev/null || true; rm -rf "$WORK"' EXIT
RAW=$((48 * 16 * 1024 * 1024))

# Runs db_bench on a fresh tmpfs of RAW bytes; prints its files' share.
run_on_tmpfs() {
  mkdir -p "$WORK/tmpfs"
  umount "$WORK/tmpfs" 2>/dev/null || true
  mount -t tmpfs -o size=$RAW tmpfs "$WORK/tmpfs"
  rc=0
  db_bench --db="$WORK/tmpfs/db" --benchmarks="$1" --num=$2 --writes=100000000 --value_size=1000 \
    --compression_type=none --seed=$4 >"$WORK/bench.log" 2>&1 || rc=$?
  local files
  files=$(du -sb "$WORK/tmpfs/db" | cut -f1)
  python3 -c 'import sys; f = int(sys.argv[3]); print(f"{sys.argv[1]} run {sys.argv[2]}: files {f / 2**20:.1f} MiB, of raw {f / int(sys.argv[4]):.3f} (tmpfs)")' \
    "$3" "$4" "$files" "$RAW"
}

for workload in "${WORKLOADS[@]}"; do
  case "$workload" in
    fillseq|fillrandom) benchmarks=$workload; num=100000000 ;;
    overwrite) benchmarks=fillrandom,overwrite; num=300000 ;;  # 300 MB loaded, then rewritten
    *) echo "unknown workload: $workload" >&2; exit 2 ;;
  esac
  for run in $(seq 1 "$RUNS"); do
    if [ "$HINTFS" = tmpfs ]; then run_on_tmpfs "$benchmarks" "$num" "$workload" "$run"; continue; fi
    rm -f "$WORK"/*.img
    "$HINTFS" mkfs --fast "file:$WORK/ssd.img?zone_size=16MiB&zones=16" \
                   --slow "file:$WORK/hdd.img?zone_size=16MiB&zones=32" >/dev/null
    printf '%s run %d: writing until full...\r' "$workload" "$run" >&2
    rc=0
    LD_PRELOAD=$PLUGIN db_bench --fs_uri="hintfs://file:$WORK/ssd.img" --db=/db --benchmarks="$benchmarks" \
      --num=$num --writes=100000000 --value_size=1000 --compression_type=none --seed=$run \
      >"$WORK/bench.log" 2>&1 || rc=$?
    if [ "$rc" -eq 0 ] || ! grep -q "No space left on device" "$WORK/bench.log"; then
      echo "$workload run $run: db_bench ended without running out of space (exit $rc)" >&2
      tail -3 "$WORK/bench.log" >&2
      exit 1
    fi
    "$HINTFS" df --json "file:$WORK/ssd.img" | python3 -c '
import json, sys
devices = json.load(sys.stdin)["devices"]
files = sum(d["file_bytes"] for d in devices)
raw = sum(d["raw_bytes"] for d in devices)
data = sum(d["data_zones"] * d["zone_capacity"] for d in devices)
print(f"{sys.argv[1]} run {sys.argv[2]}: files {files / 2**20:.1f} MiB, of raw {files / raw:.3f}, of data zones {files / data:.3f}")
' "$workload" "$run"
  done
done
