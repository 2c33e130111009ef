#!/usr/bin/env bash
# The main demo: Debian's unmodified db_bench, the same workload twice over two
# emulated zoned devices in a temporary directory — a ZNS SSD modelled on the
# WD ZN540 and a host-managed SMR HDD modelled on the Seagate ST14000, sped up
# 20x with their ratios kept — once under static tiering (b3: WAL and L0-L2 on
# the SSD, what RocksDB's db_paths gives) and once under hintfs's best design
# (hhzs placement and migration with block tiering). Each run loads 400,000
# keys, then reads skewed keys for 50 seconds; the demo prints the two
# throughputs and their ratio, the HDD's share of device reads, where each
# level lives, draws a plot, and checks both filesystems.
#
# Sizes are HHZS's setting divided by 512 (tests/bench/hhzs_repro.py): 2 MiB
# zones, an SSD of 20 data zones (a tenth of the data), tables just under a
# zone, a 16 KiB block cache.
#
# usage: demo.sh HINTFS PLUGIN [OUTPUT_DIR]   (the plot goes to OUTPUT_DIR,
# default the current directory, as hintfs-demo.png; without
# python3-matplotlib the demo says so and draws none)
set -euo pipefail
source "$(dirname "$0")/lib/rocksdb_options.sh"
HINTFS=${1:?usage: demo.sh path/to/hintfs path/to/libhintfs_rocksdb.so [output dir]}
PLUGIN=$(readlink -f "${2:?}")
OUT=$(readlink -f "${3:-.}")
WORK=$(mktemp -d /tmp/hintfs-demo.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export HINTFS_DEVICE_PARAMS="profile_scale=20"
# Smaller runs for the smoke test (tests/readme/demo_test.sh); the figures
# in docs/benchmarks.md are of the defaults.
KEYS=${HINTFS_DEMO_KEYS:-400000} READ_SECONDS=${HINTFS_DEMO_SECONDS:-50} TABLE=1969225

# run NAME POLICY [MOUNT_QUERY]: a fresh filesystem, the load, the read phase.
run() {
  local name=$1 policy=$2 query=${3:-} dir="$WORK/$1"
  mkdir -p "$dir/conf"
  "$HINTFS" mkfs --policy "$policy" --fast-data-zones 20 \
      --fast "file:$dir/ssd.img?zone_size=2MiB&zones=26&profile=zn540" \
      --slow "file:$dir/hdd.img?zone_size=2MiB&zones=2048&profile=st14000" >/dev/null
  write_rocksdb_options "$dir/conf/options.ini" 984612 $TABLE 2097152 kNoCompression \
      max_write_buffer_number=4 min_write_buffer_number_to_merge=2 level0_file_num_compaction_trigger=2
  sed -i 's/^\[DBOptions\]/&\n  max_background_jobs=4\n  compaction_readahead_size=2097152/' "$dir/conf/options.ini"
  printf '  block_cache={capacity=16384}\n  filter_policy=bloomfilter:10:false\n' >> "$dir/conf/options.ini"
  "$HINTFS" restore "file:$dir/ssd.img" "$dir/conf" >/dev/null
  local uri="hintfs://file:$dir/ssd.img${query:+?$query}"
  local bench=(db_bench --fs_uri="$uri" --options_file=/options.ini --db=/db --value_size=1000
               --compression_type=none)
  echo "== $name: load $KEYS keys with 1,000-byte values"
  LD_PRELOAD=$PLUGIN "${bench[@]}" --benchmarks=fillrandom,waitforcompaction --num=$KEYS 2>&1 |
    grep -E "^fillrandom" | tee "$dir/load.txt"
  echo "== $name: 8 threads read skewed keys for $READ_SECONDS s (the hottest 1% of keys take half the reads)"
  HINTFS_DEVICE_TRACE=1 LD_PRELOAD=$PLUGIN "${bench[@]}" --benchmarks=readrandom --use_existing_db=1 \
      --num=$KEYS --threads=8 --duration=$READ_SECONDS --read_random_exp_range=12 \
      --stats_interval_seconds=$(( READ_SECONDS < 20 ? 1 : 10 )) >"$dir/read.txt" 2>&1
  grep -E "^readrandom" "$dir/read.txt"
  "$HINTFS" ls --json "file:$dir/ssd.img" /db > "$dir/files.json"
  echo "== $name: fsck"
  "$HINTFS" fsck "file:$dir/ssd.img"
}

# Both know the table size (tables then own their zones, as in HHZS); hhzs
# gets HHZS's two-zone WAL budget and its 4 MiB/s migration sped up 20x.
run b3 "b3:table_bytes=$TABLE"
run hintfs "hhzs:table_bytes=$TABLE,wal_budget=4MiB,migration_rate=80MiB" "blocks=32MiB"

# Debian's python3, where python3-matplotlib is (a python3 earlier on PATH may lack it).
PYTHON=/usr/bin/python3
[ -x "$PYTHON" ] || PYTHON=python3
"$PYTHON" - "$WORK" "$OUT/hintfs-demo.png" <<'EOF'
import json, re, sys
work, png = sys.argv[1], sys.argv[2]
names = {"b3": "static (b3)", "hintfs": "hintfs"}
res = {}
for s in names:
    read = open(f"{work}/{s}/read.txt").read()
    ops = float(re.search(r"^readrandom .* (\d+) ops/sec", read, re.M).group(1))
    # Device reads of the read phase (HINTFS_DEVICE_TRACE, printed at close).
    dev = {"ssd": 0, "hdd": 0}
    for img, n in re.findall(r"device trace \S+/(ssd|hdd)\.img read [^:]*: (\d+) requests", read):
        dev[img] += int(n)
    # db_bench's interval lines: thread 0's rate and the seconds since the start.
    per_thread = [(float(t), float(r)) for r, t in re.findall(
        r"thread 0: \(\d+,\d+\) ops and \(([\d.]+),[\d.]+\) ops/second in \([\d.]+,([\d.]+)\) seconds", read)]
    levels = {}
    for f in json.load(open(f"{work}/{s}/files.json")):
        if not f["path"].endswith(".sst"):
            continue
        lv = levels.setdefault("L%d" % f["level"] if f["level"] >= 0 else "?", [0, 0])
        for e in f["extents"]:
            lv[0 if e["device"] == 0 else 1] += e["length"]
    res[s] = dict(ops=ops, hdd_share=dev["hdd"] / max(1, dev["ssd"] + dev["hdd"]), levels=levels, per_thread=per_thread)

b, h = res["b3"], res["hintfs"]
print("\n== side by side")
print(f"{'':34}{'static (b3)':>14}{'hintfs':>14}")
print(f"{'readrandom ops/s':34}{b['ops']:>14,.0f}{h['ops']:>14,.0f}   {h['ops'] / b['ops']:.2f}x")
print(f"{'HDD share of device reads':34}{b['hdd_share']:>14.0%}{h['hdd_share']:>14.0%}")
for lv in sorted(set(b["levels"]) | set(h["levels"])):
    cell = lambda r: "%.1f / %.1f" % tuple(x / 2**20 for x in r["levels"].get(lv, [0, 0]))
    print(f"{lv + ' tables MiB on SSD / HDD':34}{cell(b):>14}{cell(h):>14}")
print("(hintfs moves single hot blocks of HDD tables up: L3 tables live on both tiers)")
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("no plot: python3-matplotlib is not installed")
    sys.exit(0)
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
for s, r in res.items():
    ax1.plot([t for t, _ in r["per_thread"]], [8 * x for _, x in r["per_thread"]],
             marker="o", label=names[s])
ax1.set_xlabel("seconds into the read phase")
ax1.set_ylabel("reads/s (thread 0's x 8)")
ax1.set_ylim(bottom=0)
ax1.legend()
ax1.set_title("stock db_bench, skewed reads")
lvs = sorted(set(b["levels"]) | set(h["levels"]))
for i, (s, r) in enumerate(res.items()):
    share = [100 * r["levels"].get(lv, [0, 0])[0] / max(1, sum(r["levels"].get(lv, [0, 0]))) for lv in lvs]
    ax2.bar([p + (i - 0.5) * 0.4 for p in range(len(lvs))], share, 0.4, label=names[s])
ax2.set_xticks(list(range(len(lvs))), lvs)
ax2.set_ylabel("% of the level's table bytes on the SSD")
ax2.set_title("where each level lives")
ax2.legend()
fig.tight_layout()
fig.savefig(png, dpi=90)
print(f"plot: {png}")
EOF
