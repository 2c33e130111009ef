#!/usr/bin/env bash
# The stock RocksDB tools of Debian's rocksdb-tools run unmodified on hintfs:
# db_bench fillrandom/readrandom/verifychecksum with the listener set in an
# OPTIONS file, ldb scan and checkconsistency, sst_dump verify; then fsck.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib/rocksdb_options.sh"
HINTFS=${1:?usage: db_tools_test.sh hintfs libhintfs_rocksdb.so}
PLUGIN=$(readlink -f "${2:?}")
WORK=$(mktemp -d /tmp/hintfs-tools.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
URI="hintfs://file:$WORK/ssd.img"

"$HINTFS" mkfs --fast "file:$WORK/ssd.img?zone_size=16MiB&zones=16" \
               --slow "file:$WORK/hdd.img?zone_size=16MiB&zones=32" >/dev/null
mkdir "$WORK/conf"
write_rocksdb_options "$WORK/conf/options.ini" 1048576 1048576 4194304
"$HINTFS" restore "file:$WORK/ssd.img" "$WORK/conf" >/dev/null  # the tools read it through hintfs

LD_PRELOAD=$PLUGIN db_bench --fs_uri="$URI" --options_file=/options.ini --db=/db --num=100000 \
  --benchmarks=fillrandom,readrandom,verifychecksum > "$WORK/bench.txt" 2>&1 || { cat "$WORK/bench.txt"; fail "db_bench"; }
for b in fillrandom readrandom verifychecksum; do
  grep -q "^$b " "$WORK/bench.txt" || fail "db_bench printed no $b result"
done

"$HINTFS" ls -l "file:$WORK/ssd.img" /db > "$WORK/ls.txt"
grep -qE ' L[0-9]+ .*\.sst' "$WORK/ls.txt" || fail "no table has a recorded level"

keys=$(LD_PRELOAD=$PLUGIN ldb --fs_uri="$URI" --db=/db scan 2>/dev/null | wc -l)
[ "$keys" -gt 50000 ] || fail "ldb scan found $keys keys"
LD_PRELOAD=$PLUGIN ldb --fs_uri="$URI" --db=/db checkconsistency >/dev/null 2>&1 || fail "ldb checkconsistency"

sst=$(grep -oE '/db/[0-9]+\.sst' "$WORK/ls.txt" | head -1)
LD_PRELOAD=$PLUGIN sst_dump --fs_uri="$URI" --file="$sst" --command=verify > "$WORK/sst.txt" 2>&1 \
  || { cat "$WORK/sst.txt"; fail "sst_dump verify"; }
grep -qi "verified\|ok" "$WORK/sst.txt" || { cat "$WORK/sst.txt"; fail "sst_dump did not verify $sst"; }

"$HINTFS" fsck --deep "file:$WORK/ssd.img" >/dev/null || fail "fsck after the tools"

# A trace recorded by stock db_bench (trace= in the URI), dumped and replayed.
LD_PRELOAD=$PLUGIN db_bench --fs_uri="$URI?trace=$WORK/load.trace" --options_file=/options.ini --db=/db2 \
  --num=30000 --benchmarks=fillrandom > "$WORK/bench2.txt" 2>&1 || { cat "$WORK/bench2.txt"; fail "db_bench with a trace"; }
"$HINTFS" trace dump "$WORK/load.trace" > "$WORK/dump.txt"
grep -q "table-file-creation" "$WORK/dump.txt" || fail "trace has no table creation hint"
"$HINTFS" trace dump --json "$WORK/load.trace" | python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin]' \
  || fail "trace dump --json"
"$HINTFS" replay "$WORK/load.trace" --policy hhzs --ssd-zones 8 --zone-size 4MiB --json > "$WORK/r1.json"
"$HINTFS" replay "$WORK/load.trace" --policy hhzs --ssd-zones 8 --zone-size 4MiB --json > "$WORK/r2.json"
cmp -s "$WORK/r1.json" "$WORK/r2.json" || fail "replay is not deterministic"
python3 - "$WORK/r1.json" <<'PY' || fail "replay --json fields"
import json, sys
j = json.load(open(sys.argv[1]))
assert 0 <= j["ssd_utilization"] <= 1 and j["modeled_seconds"] > 0
for level in ("wal", "L0"):
    assert {"fast_bytes", "slow_bytes"} <= set(j["per_level"][level]), level
PY
rc=0; "$HINTFS" replay "$WORK/load.trace" --policy hhzs --ssd-zones 0 >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "replay --ssd-zones 0 exited $rc, not 2"
head -c 5000 "$WORK/load.trace" > "$WORK/cut.trace"; printf 'junk' >> "$WORK/cut.trace"
err=$("$HINTFS" replay "$WORK/cut.trace" --policy hhzs 2>&1 >/dev/null) && fail "replay accepted a damaged trace"
echo "$err" | grep -q "at byte" || fail "damaged trace error names no offset: $err"
# Stock db_bench with the SSD block cache as RocksDB's secondary cache
# (tables on the slow tier, a block cache far smaller than the data); the
# counters it leaves show in `hintfs info --json`.
"$HINTFS" mkfs --force --policy all-slow --fast "file:$WORK/ssd.img?zone_size=16MiB&zones=16" \
               --slow "file:$WORK/hdd.img?zone_size=16MiB&zones=32" >/dev/null
"$HINTFS" restore "file:$WORK/ssd.img" "$WORK/conf" >/dev/null
LD_PRELOAD=$PLUGIN db_bench --fs_uri="$URI?cache=all&cache_budget=64MiB" --secondary_cache_uri="$URI" \
  --options_file=/options.ini --db=/db3 --num=50000 --cache_size=262144 \
  --benchmarks=fillrandom,compact,readrandom > "$WORK/bench3.txt" 2>&1 \
  || { cat "$WORK/bench3.txt"; fail "db_bench with the secondary cache"; }
"$HINTFS" info --json "file:$WORK/ssd.img" | python3 -c '
import json, sys
c = json.load(sys.stdin)["cache"]
assert c["admitted"] > 0 and c["hits"] > 0, c' || fail "the secondary cache was not used"
# The metrics endpoint of a running db_bench (metrics=127.0.0.1:0: the port
# is said on stderr) and `hintfs top` reading it; top fails once it is gone.
# The file exists before the background job opens it, or the first sed below
# may find none (and end the script under set -e).
: > "$WORK/metrics.err"
LD_PRELOAD=$PLUGIN db_bench --fs_uri="$URI?metrics=127.0.0.1:0&policy=hhzs" --options_file=/options.ini --db=/db4 \
  --num=20000 --benchmarks=fillrandom,readrandom --duration=8 > /dev/null 2> "$WORK/metrics.err" &
BENCH=$!
address=
for _ in $(seq 100); do
  address=$(sed -n 's|.*metrics at http://\([^/]*\)/metrics|\1|p' "$WORK/metrics.err")
  [ -n "$address" ] && break
  sleep 0.1
done
[ -n "$address" ] || { cat "$WORK/metrics.err"; fail "db_bench did not say where its metrics are"; }
"$HINTFS" top "$address" --count 2 --interval 0.5 > "$WORK/top.txt" || fail "hintfs top $address"
grep -q "^level " "$WORK/top.txt" && grep -q "^fast " "$WORK/top.txt" && grep -q "MiB/s" "$WORK/top.txt" ||
  { cat "$WORK/top.txt"; fail "hintfs top shows no tiers, levels or rates"; }
wait "$BENCH" || fail "db_bench with metrics"
rc=0; "$HINTFS" top "$address" --count 1 >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 1 ] || fail "hintfs top of a stopped endpoint exited $rc, not 1"
# info shows the policy's state as that run left it (saved when it stopped).
"$HINTFS" info --json "file:$WORK/ssd.img" | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["policy"] == "hhzs" and j["policy_state"]["fast_decisions"] > 0, j["policy_state"]' ||
  fail "info --json policy_state is not the last run's"
echo "db tools: ok"
