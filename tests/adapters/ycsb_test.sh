#!/usr/bin/env bash
# hintfs-ycsb's closing cache line counts what `hintfs info` shows after the
# run: the whole mount's hits and lookups (its phase lines count only their
# own), so the two tools agree on the same run.
# Then hintfs-oracle on the store the run left: finer grains never need the
# slow tier more, and its errors have their exit statuses.
#   bash ycsb_test.sh hintfs hintfs-ycsb hintfs-oracle
set -euo pipefail
USAGE="usage: ycsb_test.sh hintfs hintfs-ycsb hintfs-oracle"
HINTFS=${1:?$USAGE}
YCSB=${2:?$USAGE}
ORACLE=${3:?$USAGE}
WORK=$(mktemp -d /tmp/hintfs-ycsb.XXXXXX)
trap 'umount -l "$WORK/m/mnt" 2>/dev/null || true; rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# b1 keeps the tables on the slow tier; the cache gets 8 MiB of the fast one.
"$HINTFS" mkfs --policy "b1:cache=all,cache_budget=8MiB" \
  --fast "file:$WORK/ssd.img?zone_size=4MiB&zones=16" --slow "file:$WORK/hdd.img?zone_size=4MiB&zones=64" >/dev/null
"$YCSB" --uri "file:$WORK/ssd.img" --records 50000 --load --ops 30000 --workload C --block-cache 16384 \
  --db-options "write_buffer_size=1048576;target_file_size_base=1048576" > "$WORK/ycsb.txt"
read -r hits lookups < <(sed -nE 's/^cache since mount: ([0-9]+) hits of ([0-9]+) lookups .*/\1 \2/p' "$WORK/ycsb.txt")
[ -n "${lookups:-}" ] || { cat "$WORK/ycsb.txt"; fail "no 'cache since mount' line"; }
[ "$hits" -gt 0 ] || fail "the cache served nothing ($hits of $lookups): the check would prove little"
read -r info_hits info_lookups < <("$HINTFS" info --json "file:$WORK/ssd.img" |
  python3 -c 'import json, sys; c = json.load(sys.stdin)["cache"]; print(c["hits"], c["lookups"])')
[ "$hits $lookups" = "$info_hits $info_lookups" ] ||
  fail "hintfs-ycsb says $hits of $lookups, hintfs info $info_hits of $info_lookups"
echo "ycsb cache figures agree: $hits hits of $lookups lookups"

"$ORACLE" --uri "file:$WORK/ssd.img" --records 50000 --zipf 0.9 --fast-bytes 0,4MiB,8MiB,1GiB --reads 100,100000 \
  --run 100000:0.5:0.5:0 --run 100000:0.5:0:0.5 \
  --json "$WORK/oracle.json" > "$WORK/oracle.txt" || { cat "$WORK/oracle.txt"; fail "hintfs-oracle failed"; }
python3 - "$WORK/oracle.json" <<'PY' || fail "hintfs-oracle's figures are inconsistent: $(cat "$WORK/oracle.txt")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["tables"] > 5, j["tables"]
assert abs(sum(l["read_share"] for l in j["levels"]) - 1) < 1e-6, j["levels"]
none, small, mid, everything = j["slow_share"]
assert none["tables"] == none["blocks"] == none["records"] == 1, none
for s in (small, mid):
    assert 0 < s["records"] <= s["blocks"] <= s["tables"] <= 1, s
assert mid["blocks"] < small["blocks"], (small, mid)
assert everything["tables"] < 1e-9 and everything["records"] < 1e-9, everything
# b1 keeps L1 and deeper on the slow tier (L0 on the fast one): their reads
# are slow as they lie, and how many L0 tables the run left varies; promoting
# at first reads helps a long run more than a short one.
deep = sum(l["read_share"] for l in j["levels"] if l["level"] >= 1)
assert deep > 0.5, j["levels"]
assert abs(j["start_slow_share"] - deep) < 1e-6, (j["start_slow_share"], j["levels"])
short, long, updates, rmw = j["online"]
assert long["slow_share"] < short["slow_share"] <= j["start_slow_share"] + 1e-9, j["online"]
assert abs(short["placed_share"] - j["start_slow_share"]) < 1e-9, short
# Reads of records the run wrote are memory's: fewer device reads, and the
# hot records' repeated reads, which promotion turns fast, are the ones
# writes take away, so the bound is nearer the placement than a read-only run's.
assert updates["reads"] == rmw["reads"] / 2 == 50000, j["online"]
for run in (updates, rmw):
    assert run["device_reads"] < run["reads"], run
    assert long["slow_share"] < run["slow_share"] <= run["placed_share"] + 1e-9, (long, run)
PY
status=0
"$ORACLE" --uri "file:$WORK/ssd.img" --fast-bytes 4XB 2>/dev/null || status=$?
[ "$status" = 2 ] || fail "a bad --fast-bytes exited $status, not 2"
status=0
"$ORACLE" --uri "file:$WORK/ssd.img" --run 100:0.7:0.7:0 2>/dev/null || status=$?
[ "$status" = 2 ] || fail "a --run whose shares pass 1 exited $status, not 2"
status=0
"$ORACLE" --uri "file:$WORK/ssd.img" --db /no-such-db 2>"$WORK/err" || status=$?
[ "$status" = 1 ] && [ "$(wc -l < "$WORK/err")" = 1 ] || fail "a missing store exited $status: $(cat "$WORK/err")"
echo "hintfs-oracle: $(sed -n 's/^ *fast *8.0 MiB: //p' "$WORK/oracle.txt") at 8 MiB"

# HotRAP's hotspot-5% after a warmup phase, with 1 KiB blocks from the
# options string: the warmup is a phase of its own, and the oracle puts the
# hot set's 95% of the reads in 4 MiB (2,500 records of about 1 KiB).
"$YCSB" --uri "file:$WORK/ssd.img" --records 50000 --warmup 3000 --ops 2000 --read 1 --distribution hotspot \
  --hot-set 0.05 --hot-ops 0.95 --db-options "block_based_table_factory={block_size=1024}" \
  --csv "$WORK/hot.csv" --label hot/RO > "$WORK/hot.txt" || { cat "$WORK/hot.txt"; fail "the hotspot run failed"; }
python3 - "$WORK/hot.csv" <<'PY' || fail "the warmup and run phases are not as asked: $(cat "$WORK/hot.csv")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [(r["phase"], r["ops"], r["errors"]) for r in rows] == [("warmup", "3000", "0"), ("run", "2000", "0")], rows
PY
"$ORACLE" --uri "file:$WORK/ssd.img" --records 50000 --distribution hotspot --fast-bytes 4MiB --json "$WORK/hot.json" \
  > /dev/null || fail "hintfs-oracle failed under hotspot"
python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); s = j["slow_share"][0]["records"]
assert j["hot_set"] == 0.05 and 0.03 < s < 0.055, j' "$WORK/hot.json" || fail "hotspot oracle: $(cat "$WORK/hot.json")"
status=0
"$YCSB" --uri "file:$WORK/ssd.img" --records 50000 --ops 10 --distribution hotspot --hot-set 1.5 2>/dev/null || status=$?
[ "$status" = 2 ] || fail "a --hot-set over 1 exited $status, not 2"

# On a FUSE mount (RocksDB's own Env, direct reads so that the kernel's page
# cache takes none), a phase's tier figures come from the mount's
# statistics: b1 keeps L1 and deeper on the slow tier, so a read phase finds
# most of its blocks there (L0 compacted away before it begins: every Get
# reads each L0 table's filter and index, which would outnumber L1's reads).
[ -c /dev/fuse ] || fail "no /dev/fuse"
M=$WORK/m
mkdir -p "$M/mnt"
"$HINTFS" mkfs --policy b1 --fast "file:$M/ssd.img?zone_size=4MiB&zones=16" \
  --slow "file:$M/hdd.img?zone_size=4MiB&zones=64" >/dev/null
"$HINTFS" mount -f "file:$M/ssd.img" "$M/mnt" 2>"$M/daemon.log" &
DAEMON=$!
for _ in $(seq 100); do mountpoint -q "$M/mnt" && break; sleep 0.1; done
mountpoint -q "$M/mnt" || fail "the mount did not come up: $(cat "$M/daemon.log")"
"$YCSB" --dir "$M/mnt/db" --records 20000 --load --settle 60 --ops 3000 --workload C --block-cache 16384 \
  --db-options "write_buffer_size=1048576;target_file_size_base=1048576;level0_file_num_compaction_trigger=1;use_direct_reads=true" \
  --json "$M/phases.json" > "$M/ycsb.txt" || fail "hintfs-ycsb on the mount: $(cat "$M/ycsb.txt")"
umount "$M/mnt"
wait "$DAEMON" || fail "the daemon exited with an error"
python3 - "$M/phases.json" <<'PY' || fail "the mount's tier figures are missing or wrong: $(cat "$M/ycsb.txt")"
import json, sys
text = open(sys.argv[1]).read()
phases = [json.loads(l) for l in text.splitlines() if l.strip()] if not text.lstrip().startswith("[") else json.loads(text)
run = [p for p in phases if p["phase"] != "load"][-1]
r, points = run["read_bytes"], run["point_reads"]
assert r["slow"] > 0 and points["slow"] > 0, run
assert points["slow"] > points["fast"], points
assert 0.5 < run["point_read_hdd_share"] <= 1, run["point_read_hdd_share"]
assert set(run["utilization"]) == {"fast", "slow"}, run  # busy time: 0 without a timing profile
assert run["policy_state"]["policy"].startswith("b1"), run["policy_state"]
PY
echo "hintfs-ycsb on the mount: $(grep -o 'read fast/slow [^)]*)' "$M/ycsb.txt" | tail -1)"
