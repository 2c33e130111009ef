#!/usr/bin/env python3
"""HotRAP's YCSB workloads (HotRAP paper, section 4.1-4.2), scaled, under
stock RocksDB through hintfs-ycsb.

    bash tests/bench/hotrap_repro.sh [--runs 3] [--schemes FAT,HINTFS]
        [--workloads RO,RW,WH,UH] [--dists hotspot5,zipfian,uniform]
        [--records 1KiB,200B] [--devices main|hdd] [--speed 1] [--fresh]
        [--no-build] [--out DIR] [--save-state]
        [--extra-scheme NAME=POLICY[|QUERY]]...

The paper loads 110 GB of records and gives the fast disk (FD) a tenth of
the data (10 GB); here 400 MiB of records (--data-mib) and an FD of a tenth
of that in data zones of 2 MiB (20 zones, 40 MiB). Records of 1 KiB (a 24-byte key, 1,000-byte value) or 200 B
(176-byte value), as the paper's two sizes. Data blocks of 1 KiB, so that a
block holds one 1 KiB record (the paper's 16 KiB blocks keep index memory
small at 110 GB, which does not bind at this scale; block-granular tiering
moves blocks, and with a record per block it can keep exactly the hot
records). The run phase executes twice as many operations as there are
records (2.2x10^8 for 1.1x10^8 records in the paper) and, as the paper,
reports the last tenth: hintfs-ycsb --warmup runs the first nine tenths as
a phase of their own. A block cache of 128 MiB / 110 GB of the data, 10-bit
Bloom filters, 8 client threads (the paper: 16) and 8 background jobs.

Devices (--devices): "main" is the paper's main testbed (Table 1: a local
AWS Nitro SSD as FD, a gp3 volume as the slow disk, profiles hotrap-nitro
and hotrap-gp3); "hdd" its HDD test (Table 6, profiles hotrap-nvme and
hotrap-hdd). Both are zoned-free emulated images; --speed slows them down
(ratios kept).

Workloads (the paper's Table 2): RO 100% reads, RW 75% reads and 25%
inserts, WH 50/50 reads and inserts, UH 50% reads and 50% updates; keys
hotspot-5% (5% of the records take 95% of the operations), Zipfian (0.99)
or uniform.

Schemes: ALL-FAST (RocksDB(FD): everything on the fast disk, the upper
bound), FAT (RocksDB-fat: the levels that fit on FD there, policy b3),
SAS-CACHE (RocksDB's secondary cache on FD, fed through RocksDB's
SecondaryCache interface, in 60% of FD as the paper sizes it, the levels
that fit in the rest), HHZS (placement, migration and the SSD cache
admitting every block, as in hhzs_repro.py) and HINTFS (hhzs with its
defaults plus block-granular tiering). Each scheme loads once per run and
record size; each workload starts from a copy of the loaded devices, in a
new process. An interrupted run resumes (--fresh starts over).

--extra-scheme adds a scheme for a probe (a policy for mkfs and a mount query,
e.g. "NOBLK=hhzs:table_bytes=1969225,wal_budget=4MiB"); --save-state keeps,
for every cell, what `hintfs info --json`, `hintfs ls -l -R` and `hintfs dump`
show after it, in DIR/state/ (migration, block tiering and cache counters of
the cell's mount, where each file and zone ended up).

Writes results.csv (hintfs-ycsb --csv rows; the "run" phase is the
measured one), oracle.csv (hintfs-oracle on the first load of each record
size: the slow disk's least share of point reads when FD holds the hottest
tables, blocks or records that fit, chosen knowing each key distribution;
the hottest blocks that fit in the store's block cache are read from memory,
as in the runs, where they never reach a device)
and tables.md (throughput median and min-max, each scheme against ALL-FAST
and FAT run by run, read p99, the slow disk's share of point reads beside
the block oracle's) to --out.
"""
import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

from hhzs_report import split_label, spread
from repro_parts import SCALED_ROCKSDB_OPTIONS, copy_images, drop_rows, empty_dirs, scratch_dir, sh

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ZONE_MIB = 2
IMAGES = ("fast.img", "slow.img")
BLOCK = 512
OWN_FAST_ZONES = 6  # superblock, 3 journal zones, 2 kept empty (hhzs_repro.py)
KEY = 24
RECORD_SIZES = {"1KiB": 1000, "200B": 176}  # value bytes; the key makes up the rest
DB_OPTIONS = ";".join(SCALED_ROCKSDB_OPTIONS + ["max_background_jobs=8", "block_based_table_factory={block_size=1024}"])
TABLES = "table_bytes=1969225"
CACHE_SHARE = "cache_budget=24MiB,cache_room=budget"  # 60% of FD, as SAS-Cache's 6 of 10 GB
# (policy, mount query, RocksDB feeds the SSD cache through its secondary cache)
SCHEMES = {
    "ALL-FAST": ("all-fast:" + TABLES, "", False),
    "FAT": ("b3:" + TABLES, "", False),
    "SAS-CACHE": (f"b3:{TABLES},cache=all,{CACHE_SHARE}", "", True),
    "HHZS": (f"hhzs:{TABLES},wal_budget=4MiB,cache=all,replace_inputs=off,fill=upper,wal_window_ms=0,wal_peak=on,level_hold_ms=0", "", False),
    "HINTFS": (f"hhzs:{TABLES},wal_budget=4MiB", "blocks=32MiB", False),
}
WORKLOADS = {"RO": ["--read", "1"], "RW": ["--read", "0.75", "--insert", "0.25"],
             "WH": ["--read", "0.5", "--insert", "0.5"], "UH": ["--read", "0.5", "--update", "0.5"]}
# Key distributions, in flags hintfs-ycsb and hintfs-oracle both take.
DISTS = {"hotspot5": ["--distribution", "hotspot", "--hot-set", "0.05", "--hot-ops", "0.95"],
         "zipfian": ["--distribution", "zipfian", "--zipf", "0.99"],
         "uniform": ["--distribution", "uniform"]}
DEVICES = {"main": ("hotrap-nitro", "hotrap-gp3"), "hdd": ("hotrap-nvme", "hotrap-hdd")}
WAL_BUDGET = 4 << 20  # HINTFS's and HHZS's wal_budget


def records_of(size, data_mib):
    return (data_mib << 20) // (KEY + RECORD_SIZES[size])


class Repro:
    def __init__(self, args):
        self.args = args
        self.hintfs = os.path.join(args.build_dir, "adapters/cli/hintfs")
        self.ycsb_bin = os.path.join(args.build_dir, "adapters/bench/hintfs-ycsb")
        self.oracle_bin = os.path.join(args.build_dir, "adapters/bench/hintfs-oracle")
        self.csv = os.path.join(args.out, "results.csv")
        self.oracle_csv = os.path.join(args.out, "oracle.csv")
        self.work = scratch_dir("hintfs-hotrap.")
        self.started = time.time()
        self.parts_done = 0
        self.parts_total = 0
        # The fast disk holds a tenth of the data; the block cache is the
        # paper's 128 MiB per 110 GB.
        self.fast_data_zones = args.data_mib // 10 // ZONE_MIB
        self.block_cache = (128 << 20) * (args.data_mib << 20) // (110 * 10**9)

    def progress(self, text):
        elapsed = time.time() - self.started
        left = ""
        if self.parts_done:
            left = ", about %.0f min left" % (elapsed / self.parts_done * (self.parts_total - self.parts_done) / 60)
        print("[%5.0f s%s] %s" % (elapsed, left, text), flush=True)

    def devices(self, scheme, where):
        """Image files of the two devices; their URIs."""
        fast_zones = self.slow_zones() if scheme == "ALL-FAST" else self.fast_data_zones + OWN_FAST_ZONES
        # 512-byte logical blocks, as NVMe SSDs, EBS volumes and 512e HDDs
        # expose by default: a 1 KiB table block moved up alone takes 1.5 KiB
        # of the fast tier on average, not a 4 KiB device block.
        common = f"zone_size={ZONE_MIB}MiB&block_size={BLOCK}&profile_scale={self.args.speed}"
        fast_profile, slow_profile = DEVICES[self.args.devices]
        return (f"file:{where}/fast.img?zones={fast_zones}&profile={fast_profile}&{common}",
                f"file:{where}/slow.img?zones={self.slow_zones()}&profile={slow_profile}&{common}")

    def slow_zones(self):
        """Room for ten times the data (the load's space amplification, GC)."""
        return max(2048, 10 * self.args.data_mib // ZONE_MIB)

    def run_ycsb(self, where, scheme, size, label, extra):
        # The images are not fdatasync'ed to the host's disk at a device
        # flush, as in hhzs_repro.py: the profiles charge a flush nothing,
        # and the host's fdatasync is time no modelled drive spends.
        query = "&".join(q for q in (SCHEMES[scheme][1], "sync=0") if q)
        uri = f"file:{where}/fast.img?{query}"
        secondary = ["--secondary-cache"] if SCHEMES[scheme][2] else []
        sh([self.ycsb_bin, "--uri", uri, "--db-options", DB_OPTIONS, "--block-cache", str(self.block_cache),
            "--bloom-bits", "10", "--records", str(records_of(size, self.args.data_mib)), "--key-size", str(KEY),
            "--value-size", str(RECORD_SIZES[size]), "--threads", "8", "--csv", self.csv, "--label", label]
           + secondary + extra, stdout=subprocess.DEVNULL)
        if self.args.save_state:
            self.save_state(where, label)

    def save_state(self, where, label):
        """DIR/state/<label>.{info.json,ls,dump}: the filesystem after a cell."""
        state = os.path.join(self.args.out, "state")
        os.makedirs(state, exist_ok=True)
        base = os.path.join(state, label.replace("/", "_").replace("#", "_"))
        for suffix, cmd in ((".info.json", ["info", "--json"]), (".ls", ["ls", "-l", "-R"]), (".dump", ["dump"])):
            with open(base + suffix, "w") as fh:
                sh([self.hintfs] + cmd + [f"file:{where}/fast.img"], stdout=fh)

    def run_part(self, scheme, size, run):
        dev, saved = os.path.join(self.work, "dev"), os.path.join(self.work, "saved")
        empty_dirs(dev, saved)
        fast, slow = self.devices(scheme, dev)
        zones = [] if scheme == "ALL-FAST" else ["--fast-data-zones", str(self.fast_data_zones)]
        sh([self.hintfs, "mkfs", "--policy", SCHEMES[scheme][0], "--fast", fast, "--slow", slow] + zones,
           stdout=subprocess.DEVNULL)
        self.progress(f"{scheme} {size} run {run}: load")
        self.run_ycsb(dev, scheme, size, f"{scheme}/load-{size}#{run}", ["--load", "--settle", "900"])
        copy_images(IMAGES, dev, saved)
        self.record_oracle(size, dev)
        ops = 2 * records_of(size, self.args.data_mib) // self.args.ops_divisor
        first = True
        for w in self.args.workloads:
            for dist in self.args.dists:
                if not first:
                    copy_images(IMAGES, saved, dev)
                first = False
                self.progress(f"{scheme} {size} run {run}: {w} {dist}")
                self.run_ycsb(dev, scheme, size, f"{scheme}/{w}-{dist}-{size}#{run}",
                              ["--warmup", str(ops - ops // 10), "--ops", str(ops // 10)] + WORKLOADS[w] + DISTS[dist])

    def record_oracle(self, size, where):
        """oracle.csv rows for record size `size`, once, from the store just
        loaded in `where`: per key distribution, the slow disk's least share
        of point reads with FD's data zones (and those less the WAL's budget)
        holding the hottest tables, blocks or records."""
        done = set()
        if os.path.exists(self.oracle_csv):
            with open(self.oracle_csv) as fh:
                done = {(r["records"], r["distribution"], r.get("new_keys") or "0") for r in csv.DictReader(fh)}
        fast = self.fast_data_zones * ZONE_MIB << 20
        wanted = sorted({(dist, new_keys_of(w, dist, size, self.args)) for dist in self.args.dists
                         for w in self.args.workloads})
        for dist, new_keys in wanted:
            if (size, dist, str(new_keys)) in done:
                continue
            js = os.path.join(self.work, "oracle.json")
            sh([self.oracle_bin, "--uri", f"file:{where}/fast.img", "--records", str(records_of(size, self.args.data_mib)),
                "--key-size", str(KEY), "--value-size", str(RECORD_SIZES[size]),
                "--fast-bytes", f"{fast - WAL_BUDGET},{fast}", "--block-cache", str(self.block_cache),
                "--json", js] + DISTS[dist] + (["--new-keys", str(new_keys)] if new_keys else []),
               stdout=subprocess.DEVNULL)
            with open(js) as fh:
                j = json.load(fh)
            fresh = not os.path.exists(self.oracle_csv)
            with open(self.oracle_csv, "a", newline="") as fh:
                w = csv.writer(fh)
                if fresh:
                    w.writerow(["records", "distribution", "fast_bytes", "tables", "blocks", "records_oracle",
                                "new_keys"])
                for o in j["slow_share"]:
                    w.writerow([size, dist, o["fast_bytes"], "%.4f" % o["tables"], "%.4f" % o["blocks"],
                                "%.4f" % o["records"], new_keys])

    def labels(self):
        if not os.path.exists(self.csv):
            return set()
        with open(self.csv) as fh:
            return {r["label"] for r in csv.DictReader(fh) if r["phase"] == "run"}

    def done(self, scheme, size, run, have):
        return all(f"{scheme}/{w}-{d}-{size}#{run}" in have for w in self.args.workloads for d in self.args.dists)

    def drop(self, scheme, size, run):
        """Removes the rows an interrupted part left."""
        def of_part(label):
            s, phase, r = split_label(label)
            return s == scheme and r == run and phase.endswith("-" + size)
        drop_rows(self.csv, of_part)

    def main(self):
        os.makedirs(self.args.out, exist_ok=True)
        if self.args.fresh and os.path.exists(self.csv):
            os.remove(self.csv)
        have = self.labels()
        parts = [(run, size, s) for size in self.args.records for run in range(1, self.args.runs + 1)
                 for s in self.args.schemes]
        todo = [p for p in parts if not self.done(p[2], p[1], p[0], have)]
        self.parts_total = len(todo)
        self.progress(f"{len(todo)} parts to run ({len(parts) - len(todo)} done before)")
        try:
            for run, size, scheme in todo:
                self.drop(scheme, size, run)
                self.run_part(scheme, size, run)
                self.parts_done += 1
        finally:
            shutil.rmtree(self.work, ignore_errors=True)
        report(self.args.out)
        self.progress("done: " + os.path.join(self.args.out, "tables.md"))


def report(out):
    """tables.md from results.csv: the measured ("run") phase of each cell."""
    cells = {}  # (scheme, cell) -> {run: row}
    with open(os.path.join(out, "results.csv")) as fh:
        for row in csv.DictReader(fh):
            if row["phase"] not in ("run", "load"):
                continue
            scheme, cell, run = split_label(row["label"])
            cells.setdefault((scheme, cell), {})[run] = row
    schemes = [s for s in SCHEMES if any(k[0] == s for k in cells)]
    order = [f"load-{z}" for z in RECORD_SIZES] + [f"{w}-{d}-{z}" for z in RECORD_SIZES for d in DISTS for w in WORKLOADS]
    phases = [p for p in order if any(k[1] == p for k in cells)]
    bases = [b for b in ("ALL-FAST", "FAT") if b in schemes]

    def ratios(scheme, base, phase):
        runs, under = cells.get((scheme, phase), {}), cells.get((base, phase), {})
        return [float(runs[i]["ops_per_s"]) / float(under[i]["ops_per_s"]) for i in runs if i in under]

    head = [f"{s}/{b}" for b in bases for s in schemes if s != b]
    lines = ["# HotRAP's workloads, scaled (tests/bench/hotrap_repro.py)", "",
             "Throughput of the measured last tenth of each run (ops/s; loads: the whole load): median",
             "(min-max) over the runs; ratios taken run by run.", "",
             "| cell | " + " | ".join(schemes + head) + " |", "|---|" + "---:|" * (len(schemes) + len(head))]
    for p in phases:
        row = [spread([float(r["ops_per_s"]) for r in cells.get((s, p), {}).values()], "%.0f") for s in schemes]
        row += [spread(ratios(s, b, p), "%.2f") for b in bases for s in schemes if s != b]
        lines.append(f"| {p} | " + " | ".join(row) + " |")
    oracle = oracle_blocks(out)
    lines += ["", "Read p99 (us) and the slow disk's share of point reads in the measured tenth, medians; the block",
              "oracle's least share (oracle.csv: FD's data zones less the WAL's budget holding the hottest data",
              "blocks, knowing the key distribution, the hottest that fit in the block cache read from memory;",
              "inserts and updates not modelled):", "",
              "| cell | " + " | ".join(f"{s} p99" for s in schemes) + " | "
              + " | ".join(f"{s} slow" for s in schemes) + " | block oracle |", "|---|" + "---:|" * (2 * len(schemes) + 1)]
    for p in phases:
        if p.startswith("load"):
            continue
        p99 = [spread([float(r["read_p99_us"]) for r in cells.get((s, p), {}).values() if r["read_p99_us"]], "%.0f")
               for s in schemes]
        slow = [spread([100 * float(r["point_read_hdd_share"]) for r in cells.get((s, p), {}).values()
                        if r["point_read_hdd_share"]], "%.1f%%") for s in schemes]
        w, dist, size = p.split("-")
        bound = oracle.get((size, dist, str(new_keys_of(w, dist, size, None))))
        lines.append(f"| {p} | " + " | ".join(p99 + slow) + " | " + ("%.1f%%" % (100 * bound) if bound is not None else "-") + " |")
    with open(os.path.join(out, "tables.md"), "w") as fh:
        fh.write("\n".join(lines) + "\n")


def new_keys_of(workload, dist, size, args):
    """The records hintfs-ycsb expects a run of workload to insert, twice
    (YCSB's key space for scrambled Zipfian ranks: the oracle must hash them
    over the same); 0 where the distribution does not use it. args None:
    the defaults (the report, which knows no arguments)."""
    flags = WORKLOADS[workload]
    insert = float(flags[flags.index("--insert") + 1]) if "--insert" in flags else 0.0
    if dist != "zipfian" or insert == 0:
        return 0
    data_mib, divisor = (args.data_mib, args.ops_divisor) if args else (400, 1)
    ops = 2 * records_of(size, data_mib) // divisor
    return int(2 * insert * ops)


def oracle_blocks(out):
    """(record size, distribution, new keys) -> the block oracle's slow share at the
    smaller FD size oracle.csv holds (the data zones less the WAL's budget)."""
    path = os.path.join(out, "oracle.csv")
    if not os.path.exists(path):
        return {}
    found = {}
    with open(path) as fh:
        for r in csv.DictReader(fh):
            key, fast = (r["records"], r["distribution"], r.get("new_keys") or "0"), int(r["fast_bytes"])
            if key not in found or fast < found[key][0]:
                found[key] = (fast, float(r["blocks"]))
    return {k: v[1] for k, v in found.items()}


def parse_args():
    p = argparse.ArgumentParser(description="HotRAP's YCSB workloads, scaled")
    p.add_argument("--out", default=os.path.join(ROOT, "build", "hotrap-repro"))
    p.add_argument("--runs", type=int, default=3, help="runs per cell (default 3)")
    p.add_argument("--schemes", default=",".join(SCHEMES), help="comma-separated: " + ", ".join(SCHEMES))
    p.add_argument("--workloads", default=",".join(WORKLOADS), help="comma-separated: " + ", ".join(WORKLOADS))
    p.add_argument("--dists", default=",".join(DISTS), help="comma-separated: " + ", ".join(DISTS))
    p.add_argument("--records", default="1KiB", help="record sizes, comma-separated: " + ", ".join(RECORD_SIZES))
    p.add_argument("--devices", default="main", choices=sorted(DEVICES),
                   help="main: Nitro SSD + gp3 (HotRAP Table 1); hdd: NVMe SSD + HDD (Table 6)")
    p.add_argument("--data-mib", type=int, default=400,
                   help="MiB of records loaded (default 400; the fast disk holds a tenth)")
    p.add_argument("--ops-divisor", type=int, default=1,
                   help="run 1/N of the paper's operations per record (default 1: twice the records)")
    p.add_argument("--speed", type=float, default=1.0, help="device speed relative to the real drives (default 1)")
    p.add_argument("--fresh", action="store_true", help="drop earlier results in --out")
    p.add_argument("--no-build", action="store_true", help="use the existing build")
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    p.add_argument("--report-only", action="store_true", help="redo tables.md from --out's results.csv")
    p.add_argument("--save-state", action="store_true",
                   help="keep hintfs info --json, ls -l -R and dump after every cell in OUT/state/")
    p.add_argument("--extra-scheme", action="append", default=[], metavar="NAME=POLICY[|QUERY]",
                   help="a scheme of one's own for a probe: mkfs policy and mount query (repeatable)")
    args = p.parse_args()
    for extra in args.extra_scheme:
        name, _, spec = extra.partition("=")
        policy, _, query = spec.partition("|")
        if not name or not policy or name in SCHEMES:
            print(f"hotrap_repro: bad --extra-scheme {extra!r} (NAME=POLICY[|QUERY], a new NAME)", file=sys.stderr)
            sys.exit(2)
        SCHEMES[name] = (policy, query, False)
    for name, known in (("schemes", SCHEMES), ("workloads", WORKLOADS), ("dists", DISTS), ("records", RECORD_SIZES)):
        values = getattr(args, name).split(",")
        bad = [v for v in values if v not in known]
        if bad:
            print(f"hotrap_repro: unknown {name[:-1]} {', '.join(bad)} (known: {', '.join(known)})", file=sys.stderr)
            sys.exit(2)
        setattr(args, name, values)
    if args.runs < 1 or args.ops_divisor < 1 or not args.speed > 0 or args.data_mib < 10 * ZONE_MIB:
        print(f"hotrap_repro: --runs, --ops-divisor and --speed must be positive, --data-mib at least {10 * ZONE_MIB}",
              file=sys.stderr)
        sys.exit(2)
    return args


if __name__ == "__main__":
    a = parse_args()
    if a.report_only:
        report(a.out)
        sys.exit(0)
    if not a.no_build:
        sh(["bash", os.path.join(ROOT, "scripts/run.sh"), "build"], stdout=subprocess.DEVNULL)
    Repro(a).main()
