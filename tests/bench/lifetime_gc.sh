#!/usr/bin/env bash
# Lifetime-aware zones (issue 22): how many bytes GC relocates per byte the
# store writes under three ways of choosing a new file's zone:
#   greedy   fast-first: files fill any open zone; GC takes the zone with the
#            most garbage
#   hint     fast-first:lifetime=hint: ZenFS's rule, a class per RocksDB
#            write-life-time hint
#   learned  fast-first:lifetime=learned: the classifier of file lifetimes
#            (placement/lifetime_policy.h)
# One emulated ZN540 (profile zn540 at 20x) of 40 x 16 MiB zones (640 MiB;
# 32 for "blob", on 40 of which no scheme relocated anything; $ZONES sets
# the number for every workload),
# Debian's db_bench through the plugin, tables of 1 MiB (1/16 of a zone,
# ZenFS's regime: RocksDB's 64 MiB tables in the ZN540's 1,077 MiB zones),
# 1,000-byte values, writes limited to 20 MB/s so that the machine's two
# cores are not the bottleneck (a busy CPU slows compaction and changes how
# full the device gets, which moves GC more than placement does).
# Workloads: "load" = fillrandom + overwrite of 300,000 keys; "rww" =
# fillrandom, then (a second mount: the learned model is the one saved)
# readwhilewriting for 30 s, whose figures are shown; "blob" = load with
# BlobDB (values of 512 bytes or more in blob files of at most 1 MiB, blob
# GC on at RocksDB's default age cutoff); "ycsba" = hintfs-ycsb loading
# 300,000 records, then YCSB-A (50% reads, 50% updates, Zipfian) for
# 300,000 operations at most 20,000 a second, one client thread (the same
# tables and memtables; $YCSB, else hintfs-ycsb beside HINTFS's build
# directory or on PATH). Runs interleave the schemes.
# Prints one line per run: workload scheme run rate GC-MiB written-MiB
# GC/written zones-freed-by-GC resets accuracy p99; the rate and p99 are of
# the last phase: db_bench's MB/s and microseconds per operation, YCSB's
# operations a second and update latency.
#
# PAIRED=1 compares the schemes on one file stream per run: the store runs
# once (under hint) with its hints and I/O traced, and the trace is written
# onto a fresh filesystem under each scheme (hintfs trace apply), so that
# how full the store's background jobs happened to leave the device, which
# moves GC more than placement does, is the same for all. The scheme
# "oracle" (on by default there) is hint with every file's hint taken from
# its real lifetime in the trace (--oracle-lifetimes 64MiB: under 64 MiB of
# writes, 64-128, 128-256, more, never deleted): what a perfect lifetime
# predictor would give. Lines lack the rate and p99 (nothing is timed). A
# trace applied relocates less than the live run did (docs/benchmarks.md):
# paired figures compare schemes, not GC levels.
#   [SCHEMES="hint learned"] [PAIRED=1] bash tests/bench/lifetime_gc.sh HINTFS PLUGIN [RUNS] [WORKLOADS...]
set -euo pipefail
HINTFS=$(readlink -f "${1:?usage: lifetime_gc.sh HINTFS PLUGIN [RUNS] [WORKLOADS...]}")
PLUGIN=$(readlink -f "${2:?usage: lifetime_gc.sh HINTFS PLUGIN [RUNS] [WORKLOADS...]}")
RUNS=${3:-3}
shift $(($# < 3 ? $# : 3))
WORKLOADS=("$@")
((${#WORKLOADS[@]})) || WORKLOADS=(load rww)
source "$(dirname "$0")/../../scripts/lib/rocksdb_options.sh"
WORK=$(mktemp -d /tmp/hintfs-lifetime.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$WORK"' EXIT
export HINTFS_DEVICE_PARAMS="profile_scale=20"
declare -A POLICY=([greedy]=fast-first [hint]=fast-first:lifetime=hint [learned]=fast-first:lifetime=learned
                   [oracle]=fast-first:lifetime=hint)
declare -A APPLY_ARGS=([oracle]="--oracle-lifetimes 64MiB")
YCSB=${YCSB:-$(dirname "$HINTFS")/../bench/hintfs-ycsb}
[ -x "$YCSB" ] || YCSB=$(command -v hintfs-ycsb || echo hintfs-ycsb)
# The store's sizes, the same for db_bench (an OPTIONS file) and hintfs-ycsb.
WRITE_BUFFER=1048576 TARGET_FILE=1048576 LEVEL_BASE=4194304
BLOB_OPTIONS=(enable_blob_files=true min_blob_size=512 blob_file_size=$TARGET_FILE enable_blob_garbage_collection=true)

report() {  # report WORKLOAD SCHEME RUN STATS-JSON DB_BENCH-OUTPUT (empty: nothing was timed)
  python3 - "$@" <<'EOF'
import json, re, sys
workload, scheme, run, stats, out = sys.argv[1:]
j = json.load(open(stats))
rate = p99 = "-"
if out:
    text = open(out).read()
    rates = re.findall(r"^(?:overwrite|readwhilewriting|fillrandom)\s*:.* ([\d.]+) MB/s", text, re.M)
    rates += re.findall(r"^run\s+([\d.]+) ops/s", text, re.M)
    rate = f"{float(rates[-1]) if rates else 0:.1f}"
    p99s = re.findall(r"^Percentiles:.* P99: ([\d.]+)", text, re.M)
    p99s += re.findall(r"^\s+update\s.* p99\s+([\d.]+)", text, re.M)
    p99 = f"{float(p99s[-1]):.0f}" if p99s else "-"
written = sum(j["bytes_written"].values())
state = j.get("policy_state") or {}
if isinstance(state, str):
    state = json.loads(state or "{}")
lt = state.get("lifetime", {})
acc = lt.get("accuracy") if lt.get("predicted_deaths") else None
print(f"{workload:5} {scheme:8} {run} {rate:>6} {j['gc_bytes_moved'] / 2**20:7.0f} "
      f"{written / 2**20:7.0f} {j['gc_bytes_moved'] / written:7.3f} {j['gc_zones_freed']:5} {j['zone_resets']:5} "
      f"{'-' if acc is None else f'{acc:.2f}':>4} {p99:>6}", flush=True)
EOF
}

zones() {  # zones WORKLOAD: the device's zone count
  if [ -n "${ZONES:-}" ]; then echo "$ZONES"; elif [ "$1" = blob ]; then echo 32; else echo 40; fi
}

run() {  # run WORKLOAD SCHEME RUN [TRACE-PREFIX]
  local dir="$WORK/$2"
  rm -rf "$dir"
  mkdir -p "$dir/conf"
  "$HINTFS" mkfs --policy "${POLICY[$2]}" --fast "file:$dir/ssd.img?zone_size=16MiB&zones=$(zones "$1")&profile=zn540" >/dev/null
  local extra=()
  [ "$1" = blob ] && extra=("${BLOB_OPTIONS[@]}")
  write_rocksdb_options "$dir/conf/options.ini" $WRITE_BUFFER $TARGET_FILE $LEVEL_BASE kNoCompression "${extra[@]}"
  "$HINTFS" restore "file:$dir/ssd.img" "$dir/conf" >/dev/null
  local uri="hintfs://file:$dir/ssd.img?stats=$dir/stats.json"
  local bench=(db_bench --options_file=/options.ini
               --db=/db --value_size=1000 --compression_type=none --num=300000 --seed=$((1000 + $3))
               --benchmark_write_rate_limit=20000000 --histogram=1)
  # Each mount traces to a file of its own (a second mount would replace the first's).
  local trace1="" trace2=""
  if [ -n "${4:-}" ]; then trace1="&trace=$4.1" trace2="&trace=$4.2"; fi
  # A run whose store fails (a write refused for lack of space) is reported
  # as such, and the others go on.
  local failed=""
  case $1 in
    load|blob) LD_PRELOAD=$PLUGIN "${bench[@]}" --fs_uri="$uri$trace1" --benchmarks=fillrandom,overwrite \
                 >"$dir/out.txt" 2>&1 || failed=1 ;;
    rww) { LD_PRELOAD=$PLUGIN "${bench[@]}" --fs_uri="$uri$trace1" --benchmarks=fillrandom >"$dir/fill.txt" 2>&1 &&
           LD_PRELOAD=$PLUGIN "${bench[@]}" --fs_uri="$uri$trace2" --benchmarks=readwhilewriting \
             --use_existing_db=1 --duration=30 --threads=1 >"$dir/out.txt" 2>&1; } || failed=1 ;;
    ycsba) "$YCSB" --uri "file:$dir/ssd.img?stats=$dir/stats.json$trace1" --value-size 1000 --records 300000 \
             --db-options "write_buffer_size=$WRITE_BUFFER;target_file_size_base=$TARGET_FILE;max_bytes_for_level_base=$LEVEL_BASE;compression=kNoCompression" \
             --load --ops 300000 --workload A --distribution zipfian --target 20000 >"$dir/out.txt" 2>&1 || failed=1 ;;
    *) echo "unknown workload $1 (load, rww, blob, ycsba)" >&2; exit 2 ;;
  esac
  if [ -n "$failed" ]; then
    local why
    why=$(grep -ho "error: .*" "$dir"/fill.txt "$dir"/out.txt 2>/dev/null | head -1 | cut -c1-400 || true)
    echo "$1 $2 $3 FAILED: ${why:-db_bench exited with an error}"
    return 0
  fi
  report "$1" "$2" "$3" "$dir/stats.json" "$dir/out.txt"
}

apply() {  # apply WORKLOAD SCHEME RUN TRACE-PREFIX: the traced mounts, one after another
  local img="$WORK/apply.img" trace stats="$WORK/apply.json"
  rm -f "$img" "$stats"
  "$HINTFS" mkfs --policy "${POLICY[$2]}" --fast "file:$img?zone_size=16MiB&zones=$(zones "$1")" >/dev/null
  for trace in "$4".*; do
    # shellcheck disable=SC2086  # the scheme's options are words
    if ! "$HINTFS" trace apply ${APPLY_ARGS[$2]:-} "$trace" "file:$img?stats=$stats" >"$WORK/apply.txt" 2>&1; then
      echo "$1 $2 $3 FAILED: $(tail -1 "$WORK/apply.txt" | cut -c1-400)"
      return 0
    fi
  done
  report "$1" "$2" "$3" "$stats" ""
}

echo "workload scheme run rate GC-MiB written-MiB GC/written gc-freed resets accuracy p99-us"
for workload in "${WORKLOADS[@]}"; do
  for r in $(seq 1 "$RUNS"); do
    if [ -n "${PAIRED:-}" ]; then
      recorded=$(run "$workload" hint "$r" "$WORK/trace")
      if [[ $recorded == *FAILED* ]]; then echo "$recorded (while tracing)"; continue; fi
      for scheme in ${SCHEMES:-greedy hint learned oracle}; do apply "$workload" "$scheme" "$r" "$WORK/trace"; done
      rm -f "$WORK"/trace.*
    else
      for scheme in ${SCHEMES:-greedy hint learned}; do run "$workload" "$scheme" "$r"; done
    fi
  done
done
