#!/usr/bin/env python3
"""HyperDB's setting (HyperDB paper, section 4), scaled: an NVMe SSD and a
SATA SSD, neither zoned, as blk: devices (preallocated files carved into
zones), under stock RocksDB through hintfs-ycsb.

    bash tests/bench/hyperdb_repro.sh [--runs 3] [--ops 100000] [--out DIR]
        [--schemes STATIC,HINTFS] [--workloads A,C] [--dists uniform,zipfian]
        [--speed 0.25] [--fresh] [--no-build]

The paper loads 100 GB and gives the NVMe a tenth of it; here 400,000
records of 1 KiB values (400 MiB) and an NVMe of 20 data zones of 2 MiB
(40 MiB), tables and memtables as in the HHZS reproduction (hhzs_repro.py:
tables of about a zone, L1 of a zone, x10 per level), a block cache of
64 MiB / 512, 8 client threads and 8 background jobs as the paper runs.
Devices take the pm9a3 and s4610 timing profiles (timing_profile.cc; the
s4610's figures are a stand-in from the S4500/S4600 series) slowed down
--speed times (0.25: four times slower, ratios kept): on a 2-core machine a
reader sleeping out a modelled device access wakes tens of microseconds late
(the device trace's "woken late", HINTFS_DEVICE_TRACE), as much as the 30 us
an NVMe read saves over a SATA read at full speed.

Schemes: ALL-SATA (every file on the SATA SSD), ALL-NVMe (an NVMe holding
everything), STATIC (RocksDB's db_paths: the WAL and the levels that fit on
the NVMe, L0-L2, there; policy b3), HHZS (placement, migration and the SSD
cache admitting every block), HINTFS (hhzs with its defaults, whose cache=auto
has its cache admit every block into the NVMe's empty zones, plus
block-granular tiering). Workloads: YCSB A-F, uniform and Zipfian (0.99).
Each scheme loads once per run (its load row); each workload starts from a
copy of loaded devices, in a new process. STATIC, HHZS and HINTFS start
every workload from the same load, STATIC's of that run, mounted with
their own policy (the URI's policy=): two loads of one scheme leave LSM
trees different enough to move a YCSB A phase by 15%, more than the
schemes differ (one policy, b3, over three STATIC and five hhzs loads:
15,300-18,800 ops/s A-zipfian as the phase wrote 59-88 L3 tables, loads
of one scheme as far apart as loads of two; docs/benchmarks.md). The
all-tier schemes, whose devices or placement differ, start from their
own load. Runs are interleaved scheme by scheme; an interrupted run
resumes (--fresh starts over).

Writes results.csv (one row per phase, hintfs-ycsb --csv) and tables.md
(throughput median and min-max per cell, each scheme's ratio to STATIC taken
run by run, read p99, background writes per tier) to --out.
"""
import argparse
import csv
import os
import shutil
import statistics
import subprocess
import sys
import time

from hhzs_report import split_label, spread
from repro_parts import SCALE, SCALED_ROCKSDB_OPTIONS, copy_images, drop_rows, empty_dirs, scratch_dir, sh

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ZONE_MIB = 2
IMAGES = ("nvme.img", "sata.img")
NVME_DATA_ZONES = 20
OWN_FAST_ZONES = 6  # superblock, 3 journal zones, 2 kept empty (hhzs_repro.py)
RECORDS = 400000
VALUE = 1024
DB_OPTIONS = ";".join(SCALED_ROCKSDB_OPTIONS + ["max_background_jobs=8"])
BLOCK_CACHE = (64 << 20) // SCALE
TABLES = "table_bytes=1969225"
HINTFS_POLICY = f"hhzs:{TABLES},wal_budget=4MiB"
# HHZS as the paper runs it (its cache admits every block, rule (iii) counts
# a compaction's inputs until they go: replace_inputs=off; the tiering
# level's room is popularity migration's: fill=upper; the WAL's budget is
# its largest size: wal_window_ms=0, wal_peak=on; L_t follows the claims at every
# decision: level_hold_ms=0); HINTFS as hintfs
# runs by default (cache=auto: every block read from the SATA, in fast zones
# nobody else uses, since block tiering does not take room from the tables
# here, where a read moved up saves little; migration=auto: off under block
# tiering here; wal_peak=auto: the WAL's budget stays at its two zones over
# these close tiers) with block-granular tiering.
SCHEMES = {
    "ALL-SATA": ("all-slow:" + TABLES, ""),
    "ALL-NVMe": ("all-fast:" + TABLES, ""),
    "STATIC": ("b3:" + TABLES, ""),
    "HHZS": (HINTFS_POLICY + ",cache=all,replace_inputs=off,fill=upper,wal_window_ms=0,wal_peak=on,level_hold_ms=0", ""),
    "HINTFS": (HINTFS_POLICY, "blocks=32MiB"),
}
# Schemes whose workloads start from the run's STATIC load (docstring).
SHARED_LOAD = ("STATIC", "HHZS", "HINTFS")
WORKLOADS = ["A", "B", "C", "D", "E", "F"]
DISTS = {"uniform": ["--distribution", "uniform"], "zipfian": ["--distribution", "zipfian", "--zipf", "0.99"]}


class Repro:
    def __init__(self, args):
        self.args = args
        self.hintfs = os.path.join(args.build_dir, "adapters/cli/hintfs")
        self.ycsb_bin = os.path.join(args.build_dir, "adapters/bench/hintfs-ycsb")
        self.csv = os.path.join(args.out, "results.csv")
        self.work = scratch_dir("hintfs-hyperdb.")
        self.started = time.time()
        self.shared_run = None  # the run whose STATIC load is in work/shared

    def progress(self, text):
        print("[%5.0f s] %s" % (time.time() - self.started, text), flush=True)

    def devices(self, scheme, where):
        """Preallocated files for the blk: devices; their URIs."""
        nvme_zones = 1024 if scheme == "ALL-NVMe" else NVME_DATA_ZONES + OWN_FAST_ZONES
        sizes = {"nvme.img": nvme_zones * ZONE_MIB + 1, "sata.img": 2048 * ZONE_MIB + 1}
        for name, mib in sizes.items():
            with open(os.path.join(where, name), "wb") as fh:
                fh.truncate(mib << 20)
        speed = f"profile_scale={self.args.speed}"
        return (f"blk:{where}/nvme.img?zone_size={ZONE_MIB}MiB&profile=pm9a3&{speed}",
                f"blk:{where}/sata.img?zone_size={ZONE_MIB}MiB&profile=s4610&{speed}")

    def run_ycsb(self, where, scheme, label, extra, policy=None, record=True):
        """One hintfs-ycsb process; policy: a policy to mount with instead
        of the one mkfs recorded; record: append its rows to results.csv."""
        query = "&".join(q for q in (SCHEMES[scheme][1], f"policy={policy}" if policy else "") if q)
        uri = f"blk:{where}/nvme.img" + (f"?{query}" if query else "")
        secondary = ["--secondary-cache"] if SCHEMES[scheme][0].endswith("cache=all") else []
        csv_args = ["--csv", self.csv, "--label", label] if record else []
        sh([self.ycsb_bin, "--uri", uri, "--db-options", DB_OPTIONS, "--block-cache", str(BLOCK_CACHE),
            "--bloom-bits", "10", "--records", str(RECORDS), "--value-size", str(VALUE),
            "--threads", "8"] + csv_args + secondary + extra, stdout=subprocess.DEVNULL)

    def load(self, scheme, run, saved=None, record=True):
        """mkfs and a load of scheme in the work directory's dev/, whose
        images are then copied to saved (if given)."""
        dev = os.path.join(self.work, "dev")
        empty_dirs(dev, *([saved] if saved else []))
        fast, slow = self.devices(scheme, dev)
        zones = [] if scheme == "ALL-NVMe" else ["--fast-data-zones", str(NVME_DATA_ZONES)]
        sh([self.hintfs, "mkfs", "--policy", SCHEMES[scheme][0], "--fast", fast, "--slow", slow] + zones,
           stdout=subprocess.DEVNULL)
        self.progress(f"{scheme} run {run}: load" + ("" if record else " (the run's shared load)"))
        self.run_ycsb(dev, scheme, f"{scheme}/load#{run}", ["--load", "--settle", "900"], record=record)
        if saved:
            copy_images(IMAGES, dev, saved)

    def shared_load(self, run):
        """The directory of run's STATIC load, made (unrecorded) if this
        process has not made it yet."""
        shared = os.path.join(self.work, "shared")
        if self.shared_run != run:
            self.load("STATIC", run, shared, record=False)
            self.shared_run = run
        return shared

    def run_scheme(self, scheme, run):
        dev = os.path.join(self.work, "dev")
        shared = scheme in SHARED_LOAD
        if scheme == "STATIC" and self.shared_run != run:
            self.load(scheme, run, os.path.join(self.work, "shared"))
            self.shared_run = run
        else:  # a load the run's shared one serves for: only its load row counts
            self.load(scheme, run, None if shared else os.path.join(self.work, "saved"))
        source = self.shared_load(run) if shared else os.path.join(self.work, "saved")
        policy = SCHEMES[scheme][0] if shared and scheme != "STATIC" else None
        for w in self.args.workloads:
            for dist in self.args.dists:
                copy_images(IMAGES, source, dev)
                self.progress(f"{scheme} run {run}: {w} {dist}")
                self.run_ycsb(dev, scheme, f"{scheme}/{w}-{dist}#{run}",
                              ["--workload", w, "--ops", str(self.args.ops)] + DISTS[dist], policy=policy)

    def done(self, scheme, run):
        if not os.path.exists(self.csv):
            return False
        with open(self.csv) as fh:
            have = {r["label"] for r in csv.DictReader(fh)}
        return all(f"{scheme}/{w}-{d}#{run}" in have for w in self.args.workloads for d in self.args.dists)

    def drop(self, scheme, run):
        """Removes the rows an interrupted part left."""
        drop_rows(self.csv, lambda label: split_label(label)[0] == scheme and split_label(label)[2] == run)

    def main(self):
        os.makedirs(self.args.out, exist_ok=True)
        if self.args.fresh and os.path.exists(self.csv):
            os.remove(self.csv)
        parts = [(run, s) for run in range(1, self.args.runs + 1) for s in self.args.schemes]
        todo = [p for p in parts if not self.done(p[1], p[0])]
        self.progress(f"{len(todo)} parts to run ({len(parts) - len(todo)} done before)")
        try:
            for i, (run, scheme) in enumerate(todo):
                self.drop(scheme, run)
                self.run_scheme(scheme, run)
        finally:
            shutil.rmtree(self.work, ignore_errors=True)
        report(self.args)
        self.progress("done: " + os.path.join(self.args.out, "tables.md"))


def report(args):
    """tables.md from results.csv."""
    cells = {}  # (scheme, phase) -> {run: row}
    with open(os.path.join(args.out, "results.csv")) as fh:
        for row in csv.DictReader(fh):
            scheme, phase, run = split_label(row["label"])
            cells.setdefault((scheme, phase), {})[run] = row
    schemes = [s for s in SCHEMES if any(k[0] == s for k in cells)]
    phases = ["load"] + [f"{w}-{d}" for w in WORKLOADS for d in DISTS]
    phases = [p for p in phases if any(k[1] == p for k in cells)]
    lines = ["# HyperDB's setting, scaled (tests/bench/hyperdb_repro.py)", "",
             "Throughput, ops/s: median (min-max) over the runs; ratio to STATIC run by run.", "",
             "| phase | " + " | ".join(schemes) + " | " + " | ".join(f"{s}/STATIC" for s in schemes if s != "STATIC")
             + " |", "|---|" + "---:|" * (2 * len(schemes) - 1)]
    ratios_by_scheme = {}
    for p in phases:
        row = [spread([float(r["ops_per_s"]) for r in cells.get((s, p), {}).values()], "%.0f") for s in schemes]
        base = cells.get(("STATIC", p), {})
        for s in schemes:
            if s == "STATIC":
                continue
            runs = cells.get((s, p), {})
            ratios = [float(runs[i]["ops_per_s"]) / float(base[i]["ops_per_s"]) for i in runs if i in base]
            if p != "load":
                ratios_by_scheme.setdefault(s, []).extend(ratios)
            row.append(spread(ratios, "%.2f"))
        lines.append(f"| {p} | " + " | ".join(row) + " |")
    lines += ["", "Mean of the run-phase ratios to STATIC: " + ", ".join(
        f"{s} {statistics.mean(v):.2f}x" for s, v in ratios_by_scheme.items() if v) + ".", ""]
    lines += ["Read p99 (us) and background writes per tier (MiB written to NVMe / SATA in the phase), medians:", "",
              "| phase | " + " | ".join(f"{s} p99" for s in schemes) + " | "
              + " | ".join(f"{s} writes" for s in schemes) + " |", "|---|" + "---:|" * (2 * len(schemes))]
    for p in phases:
        p99 = [spread([float(r["read_p99_us"]) for r in cells.get((s, p), {}).values() if r["read_p99_us"]], "%.0f")
               for s in schemes]
        writes = []
        for s in schemes:
            rows = list(cells.get((s, p), {}).values())
            if not rows:
                writes.append("-")
                continue
            fast = statistics.median(float(r["fast_written_bytes"] or 0) for r in rows) / 2**20
            slow = statistics.median(float(r["slow_written_bytes"] or 0) for r in rows) / 2**20
            writes.append(f"{fast:.0f} / {slow:.0f}")
        lines.append(f"| {p} | " + " | ".join(p99 + writes) + " |")
    with open(os.path.join(args.out, "tables.md"), "w") as fh:
        fh.write("\n".join(lines) + "\n")


def parse_args():
    p = argparse.ArgumentParser(description="HyperDB's NVMe + SATA setting, scaled")
    p.add_argument("--out", default=os.path.join(ROOT, "build", "hyperdb-repro"))
    p.add_argument("--runs", type=int, default=3, help="runs per cell (default 3)")
    p.add_argument("--ops", type=int, default=100000, help="operations per workload (default 100000)")
    p.add_argument("--schemes", default=",".join(SCHEMES), help="comma-separated: " + ", ".join(SCHEMES))
    p.add_argument("--workloads", default=",".join(WORKLOADS), help="YCSB workloads, e.g. A,C")
    p.add_argument("--dists", default=",".join(DISTS), help="uniform, zipfian or both")
    p.add_argument("--speed", type=float, default=0.25,
                   help="device speed relative to the real drives (default 0.25: four times slower)")
    p.add_argument("--fresh", action="store_true", help="drop earlier results in --out")
    p.add_argument("--no-build", action="store_true", help="use the existing build")
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    p.add_argument("--report-only", action="store_true", help="redo tables.md from --out's results.csv")
    args = p.parse_args()
    args.schemes = args.schemes.split(",")
    args.workloads = args.workloads.split(",")
    args.dists = args.dists.split(",")
    bad = ([s for s in args.schemes if s not in SCHEMES] + [w for w in args.workloads if w not in WORKLOADS]
           + [d for d in args.dists if d not in DISTS])
    if bad or args.runs < 1 or args.ops < 1 or not args.speed > 0:
        print("hyperdb_repro: unknown " + ", ".join(bad) if bad else
              "hyperdb_repro: --runs, --ops and --speed must be positive", file=sys.stderr)
        sys.exit(2)
    return args


if __name__ == "__main__":
    a = parse_args()
    if a.report_only:
        report(a)
        sys.exit(0)
    if not a.no_build:
        sh(["bash", os.path.join(ROOT, "scripts/run.sh"), "build"], stdout=subprocess.DEVNULL)
    Repro(a).main()
