#!/usr/bin/env python3
"""A scaled reproduction of the HHZS experiments (HHZS paper, section 4).

    bash tests/bench/hhzs_repro.sh [--quick] [--out DIR] [--exp 1,2,3,4,5,6] [--runs 3]
                                   [--schemes B3,HHZS] [--threads N] [--max-minutes M] [--fresh]

Every size of the paper's setting is divided by SCALE (512): 2 MiB zones for
its 1 GiB-class ZN540 zones, tables just under a zone, 1 MiB memtables (two
merged per flush, at most four), L0 and L1 targets of one zone and x10 per
level, a WAL+cache budget of two zones, an SSD of 20 data zones (the
filesystem's own zones on top, mkfs --fast-data-zones), 400 MiB of
1,000-byte values for its 200 GiB, RocksDB's limits of compaction work
pending before it slows and stops writes (128 and 512 MiB for its default 64
and 256 GiB), and the operations of a workload (1M for
YCSB A-F, 5M for the others: 1,953 and 9,765). Devices take the zn540 and
st14000 timing profiles at their real speed (--speedup 1): the paper's load
is bound by the HDD, and sped up 20x on two cores ours was bound by the CPU
(1.3-1.6 cores, the HDD 40% busy), so the compaction debt the paper's
observation O1 describes never built. --speedup N runs the devices N times
faster with their ratios kept (20 with --quick); migration's 4 MiB/s is a
bandwidth and is sped up with them (the same 1.9% of the HDD's sequential
bandwidth as in the paper; sizes shrink 512 times, so a table moves in the
same share of a run's time). The device images are not flushed to the
host's disk (sync=0): the profiles charge a device flush nothing, and the
host's fdatasync is the emulator's cost, not a drive's.

Each scheme loads once and lets its compactions finish and then its
migration come to rest (--settle: moves in flight finish, as in a store left
running after its load; the memtables stay unflushed, as the paper's YCSB
load leaves them for its run to recover); every
workload then starts from a copy of the freshly loaded devices (the same
state a fresh load gives, without paying for it again), in a new process,
as the paper clears and reloads.

  Exp#1  load + YCSB A-F, schemes B1-B4, AUTO, HHZS (P+M+C), ALL-FAST
  Exp#2  load + W1-W4 (10/50/50/100% reads, zipf 0.9/0.9/1.2/1.2),
         schemes B3, B3+M, P, P+M, P+M+C, HINTFS (P+M+C and block tiering)
  Exp#3  50% reads, zipf 0.8-1.2, schemes B3, AUTO, HHZS, HINTFS
  Exp#4  10, 30, 50, 70 and 90% reads (zipf 0.9), schemes B3, AUTO, HHZS,
         HINTFS
  Exp#5  SSD of 20, 40, 60 and 80 data zones: load + 50% reads (zipf 0.9),
         schemes B1-B4, AUTO, P, HHZS (not in the default --exp 1,2,3,4,6:
         a load per size and scheme)
  Exp#6  50% reads (zipf 0.9) under P+M with migration at 1-64 MiB/s, one
         load per run: throughput and read p99, p99.9, p99.99
(hhzs_plan.py has the workloads.)

Every cell runs --runs times (3; 1 with --quick). The work is cut into
parts, one scheme's load and workloads for one run, ordered run by run with
the schemes interleaved; a part whose rows are all in results.csv is not run
again, so an interrupted or --max-minutes-limited run resumes where it
stopped (--fresh starts over). Progress lines give an estimate of the time
left. Tables show medians with min-max; plots, error bars (hhzs_report.py).

Writes results.csv (one row per phase, from hintfs-ycsb --csv), levels.csv
(bytes per level and tier at the end of workload A), oracle.csv (after each
scheme's first load: the slow tier's least share of point reads if the SSD
held the hottest tables, blocks or records, from hintfs-oracle), tables.md and PNG plots
(fig5a.png, fig5b.png, fig6.png, fig7.png, fig8.png, fig9.png, fig10.png) to --out. --quick shrinks
everything and runs the devices 20x faster (about 4 minutes on 2 cores; a
smoke test, not a measurement).
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

from hhzs_plan import YCSB_OPS, WORKLOAD_OPS, oracle_distribution, phase_query, plan, run_mix
from hhzs_report import (BREAKDOWN, MIGRATION_RATES, PROFILE_SCALE, SCALE, SKEWS, YCSB, exp4_phases, exp5_phases,
                         exp6_row, report, split_label)
from repro_parts import SCALED_ROCKSDB_OPTIONS, copy_images, drop_rows, empty_dirs, scratch_dir, sh

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IMAGES = ("ssd.img", "hdd.img")
ZONE = 2 << 20

DB_OPTIONS = ";".join(SCALED_ROCKSDB_OPTIONS + ["max_background_jobs=4"])

# RocksDB's default 8 MiB block cache, scaled as everything else: against the
# paper's 200 GiB it is 0.004% of the data; unscaled, against our 400 MiB, it
# would be 2% and absorb the hottest reads.
BLOCK_CACHE = (8 << 20) // SCALE

# The stores the harness runs (hintfs-ycsb arguments). Without RocksDB's event
# listener, and under LevelDB, hintfs infers levels and compactions from the
# I/O and the MANIFEST (hints/level_inference.h). LevelDB takes only its own
# options: the same memtable and table sizes. It opens every table before a
# phase (--open-tables), as RocksDB does inside DB::Open: left to LevelDB,
# each table's first read in a phase also read its footer, index and filter,
# about a third of a 1,953-operation phase's HDD reads (docs/benchmarks.md,
# issue 20, session 77), where the paper's phases are 512 times longer.
STORES = {
    "rocksdb": ["--db-options", DB_OPTIONS],
    "rocksdb-nolistener": ["--db-options", DB_OPTIONS, "--no-listener"],
    "leveldb": ["--engine", "leveldb", "--db-options", "write_buffer_size=984612;max_file_size=1969225",
                "--open-tables"],
}
# LevelDB with its own default Env on the FUSE mount (hintfs mount -f around
# every phase): nothing but the I/O tells hintfs what the files are.
STORES["leveldb-mount"] = STORES["leveldb"]
# RocksDB with its own default Env on the mount, with direct I/O for its
# tables as the paper runs it (HHZS §4: "to reduce the impact of the page
# cache"): the kernel's page cache then takes none of the reads, as through
# the plugin, and each block read reaches the daemon, rounded out to pages.
# LevelDB has no direct I/O: it maps its tables, and on the mount the page
# cache keeps every page it has read (docs/benchmarks.md, issue 20).
STORES["rocksdb-mount"] = ["--db-options", DB_OPTIONS + ";use_direct_reads=true;use_direct_io_for_flush_and_compaction=true"]

# The paper configures RocksDB by its tuning guide, whose settings for point
# lookups include a 10-bit Bloom filter per table. Without one every Get reads
# a data block at every level whose key range covers the key, so a read of an
# L3 key also reads blocks of L0-L2 (from the HDD where they spilled).
BLOOM_BITS = 10



def schemes(speedup, migration_kib=None):
    """Scheme name -> policy. Migration's 4 MiB/s is a bandwidth, sped up like
    the devices' bandwidths (x speedup: 80 MiB/s at 20x) unless migration_kib
    (KiB/s, already scaled) says otherwise. An earlier version also divided it
    by SCALE, as if it were a size: at 160 KiB/s a table took 12 s to move and
    migration could not act within a run (docs/benchmarks.md, issue 19)."""
    rate = f"migration_rate={migration_kib or 4096 * speedup}KiB"
    # Every scheme knows the table size: tables then own their zones, as in
    # HHZS (LsmTablesOwnZones).
    tables = "table_bytes=1969225"
    # HHZS as the paper has it: rule (iii) counts a compaction's inputs until
    # they are deleted (replace_inputs=off), and the tiering level's reserved
    # room is popularity migration's (fill=upper), and the WAL's budget holds
    # its largest size for good (wal_window_ms=0, wal_peak=on), and the tiering level
    # follows the claims at every decision (level_hold_ms=0); HINTFS takes hintfs's
    # defaults. Both keep hhzs's other migration extensions: the fill of
    # free slots above the tiering level, the wait for moves up while
    # compactions write the upper levels (up_wait_ms), moves up only into the
    # room the tiering level kept (steady_room_ms) and swaps within a level
    # only for twice the reads (swap_margin).
    hintfs = f"hhzs:{tables},wal_budget=4MiB," + rate
    hhzs = hintfs + ",replace_inputs=off,fill=upper,wal_window_ms=0,wal_peak=on,level_hold_ms=0"
    s = {f"B{h}": f"b{h}:{tables}" for h in range(1, 5)}
    s.update({
        "B3+M": f"b3:{tables},migration=on," + rate,
        "AUTO": f"auto:{tables},wal_budget=4MiB",
        "P": hhzs + ",migration=off,cache=off",
        "P+M": hhzs + ",cache=off",
        "P+M+C": hhzs + ",cache=all",
        "ALL-FAST": f"all-fast:{tables}",
    })
    s["HHZS"] = s["P+M+C"]
    # HINTFS: HHZS's cache, but in every empty fast zone it can borrow, where
    # migration moves a table up only if it outreads a zone of the cache
    # (docs/benchmarks.md, issue 19, session 75); plus block tiering:
    # MOUNT_QUERY.
    s["HINTFS"] = hintfs + ",cache=all,cache_room=free"
    return s


# Mount options a scheme adds to the store's URI: HINTFS is HHZS with block
# tiering (issue 21), its budget free to grow over most of the SSD's 20
# zones of 2 MiB (it starts at one and follows the reads per byte).
MOUNT_QUERY = {"HINTFS": "blocks=32MiB"}
# The mount runs no SSD cache unless its URI asks (the kernel's cached reads
# are page-sized, no block's); under direct I/O they are blocks, so the
# schemes with the cache get it there too.
MOUNT_CACHE_STORES = {"rocksdb-mount"}


class Repro:
    def __init__(self, args):
        self.args = args
        self.build = args.build_dir
        self.hintfs = os.path.join(self.build, "adapters/cli/hintfs")
        self.ycsb = os.path.join(self.build, "adapters/bench/hintfs-ycsb")
        self.oracle = os.path.join(self.build, "adapters/bench/hintfs-oracle")
        self.out = args.out
        self.csv = os.path.join(self.out, "results.csv")
        self.work = scratch_dir("hintfs-repro.")
        if args.quick:
            self.records, self.ops, self.ssd_zones = 40000, args.ops or 3000, 20
        else:
            self.records, self.ops, self.ssd_zones = 400000, args.ops, 20
        self.schemes = schemes(args.speedup, args.migration_rate)
        self.runs = args.runs or (1 if args.quick else 3)
        self.started = time.time()

    # The filesystem's own fast zones (superblock, 3 journal zones) and the two
    # it keeps empty (GC, the reserve) come on top of the SSD's data zones.
    OWN_FAST_ZONES = 6

    def ssd_zones_of(self, scheme):
        """SSD data zones: the label's ("B3@40": 40) or the default."""
        _, _, zones = scheme.partition("@")
        return int(zones) if zones else self.ssd_zones

    def devices(self, scheme, where):
        fast_zones = 1024 if scheme == "ALL-FAST" else self.ssd_zones_of(scheme) + self.OWN_FAST_ZONES
        return (f"file:{where}/ssd.img?zone_size=2MiB&zones={fast_zones}&profile=zn540&profile_scale={self.args.speedup}",
                f"file:{where}/hdd.img?zone_size=2MiB&zones=2048&profile=st14000&profile_scale={self.args.speedup}")

    def ycsb_cmd(self, where, label, extra):
        target = ["--dir", os.path.join(where, "mnt", "db")] if self.on_mount() else ["--uri", self.uri(where, label)]
        cmd = [self.ycsb] + target + STORES[self.args.store] + [
               "--block-cache", str(BLOCK_CACHE), "--bloom-bits", str(BLOOM_BITS),
               "--records", str(self.records), "--csv", self.csv,
               "--threads", str(self.args.threads),
               "--label", label]
        return cmd + extra

    def uri(self, where, label):
        """The filesystem's URI for a phase of label's scheme, with the mount's keys."""
        scheme_label, _, workload = label.partition("/")
        scheme = scheme_label.partition("@")[0]
        query = [MOUNT_QUERY[scheme]] if scheme in MOUNT_QUERY else []
        # The images are not flushed to the host's disk at a device flush:
        # the profiles charge a flush nothing (their writes are complete when
        # they return), and the host's fdatasync of an image held LevelDB's
        # compaction thread 15% of a HHZS load (docs/benchmarks.md, session 84).
        query.append("sync=0")
        query += phase_query(workload.partition("#")[0], self.args.speedup)
        if self.args.store in MOUNT_CACHE_STORES and "cache=all" in self.schemes.get(scheme, ""):
            query.append("cache=all")
        return f"file:{where}/ssd.img?" + "&".join(query)

    def on_mount(self):
        return self.args.store.endswith("-mount")

    def run_ycsb(self, where, label, extra):
        """One hintfs-ycsb phase; on a mount store, with the filesystem mounted around it."""
        if not self.on_mount():
            sh(self.ycsb_cmd(where, label, extra), stdout=subprocess.DEVNULL)
            return
        mnt = os.path.join(where, "mnt")
        os.makedirs(mnt, exist_ok=True)
        daemon = subprocess.Popen([self.hintfs, "mount", "-f", self.uri(where, label), mnt],
                                  stdout=subprocess.DEVNULL)
        try:
            for _ in range(300):
                if os.path.ismount(mnt) or daemon.poll() is not None:
                    break
                time.sleep(0.1)
            if not os.path.ismount(mnt):
                raise RuntimeError(f"hintfs mount of {where} did not come up")
            sh(self.ycsb_cmd(where, label, extra), stdout=subprocess.DEVNULL)
        finally:
            if os.path.ismount(mnt):
                sh(["fusermount3", "-u", mnt])
            daemon.wait()  # the daemon unmounts the filesystem before it exits

    def progress(self, text):
        print("[%5.0f s] %s" % (time.time() - self.started, text), flush=True)

    def run_scheme(self, scheme, workloads, run):
        # Members find each other by the URIs in their superblocks, so the
        # devices always live in dev/; saved/ keeps the freshly loaded state.
        dev, saved = os.path.join(self.work, "dev"), os.path.join(self.work, "saved")
        empty_dirs(dev, saved)
        fast, slow = self.devices(scheme, dev)
        data_zones = [] if scheme == "ALL-FAST" else ["--fast-data-zones", str(self.ssd_zones_of(scheme))]
        policy = self.schemes[scheme.partition("@")[0]]
        sh([self.hintfs, "mkfs", "--policy", policy, "--fast", fast, "--slow", slow] + data_zones,
           stdout=subprocess.DEVNULL)
        self.progress(f"{scheme} run {run}: load {self.records} records")
        # The paper's long loads leave a settled tree; ours is over in seconds,
        # so let the compactions finish before the state is saved.
        # With the cache on, hintfs admits the blocks RocksDB reads from the
        # slow tier (file-level admission); --secondary-cache has RocksDB feed
        # it the blocks its block cache evicts instead, HHZS's cache hints.
        # Under the scaled 16 KiB block cache every block read is evicted
        # moments later, so both admit the same blocks, but RocksDB's
        # secondary-cache path ran the read phases about 10% slower
        # (docs/benchmarks.md, issue 19, session 54).
        secondary = (["--secondary-cache"] if self.args.secondary_cache and "cache=all" in policy
                     and self.args.store.startswith("rocksdb") and not self.on_mount() else [])
        settle = ["--settle", str(self.args.settle)] if self.args.settle > 0 else []
        self.run_ycsb(dev, f"{scheme}/load#{run}", ["--load"] + settle + secondary)
        copy_images(IMAGES, dev, saved)
        if run == 1 and scheme != "ALL-FAST":
            self.record_oracle(scheme, workloads, dev)
        done = {}  # arguments -> label: workload A, W2 and zipf 0.9 are one workload
        for i, (label, extra) in enumerate(workloads):
            same = (tuple(extra), tuple(phase_query(label, self.args.speedup)))
            if same in done:
                self.copy_row(f"{scheme}/{done[same]}#{run}", f"{scheme}/{label}#{run}")
                continue
            done[same] = label
            if i > 0:
                copy_images(IMAGES, saved, dev)
            self.progress(f"{scheme} run {run}: {label}")
            self.run_ycsb(dev, f"{scheme}/{label}#{run}", extra + secondary)
            if run == 1:
                self.record_levels(scheme, label, dev)
        for d in (dev, saved):
            shutil.rmtree(d, ignore_errors=True)

    def copy_row(self, source, label):
        """Records a workload identical to one already run under another name."""
        with open(self.csv) as fh:
            rows = list(csv.reader(fh))
        row = next(r for r in rows if r[0] == source and r[1] == "run")
        with open(self.csv, "a", newline="") as fh:
            csv.writer(fh).writerow([label] + row[1:])

    def record_levels(self, scheme, workload, where):
        """Bytes of tables per level and tier at the end of a workload, from hintfs ls -l."""
        out = subprocess.run([self.hintfs, "ls", "-l", f"file:{where}/ssd.img", "/db"], check=True,
                             capture_output=True, text=True).stdout
        sizes = {}
        for line in out.splitlines():
            f = line.split()
            if len(f) < 7 or not f[6].endswith((".sst", ".ldb")) or not f[4].startswith("L"):
                continue
            key = (f[4], f[5])
            sizes[key] = sizes.get(key, 0) + int(f[1])
        path = os.path.join(self.out, "levels.csv")
        fresh = not os.path.exists(path)
        with open(path, "a", newline="") as fh:
            w = csv.writer(fh)
            if fresh:
                w.writerow(["scheme", "workload", "level", "tier", "bytes"])
            for (level, tier), b in sorted(sizes.items()):
                w.writerow([scheme, workload, level, tier, b])

    def record_oracle(self, scheme, workloads, where):
        """oracle.csv: for each workload with point reads, on the store the
        scheme's load left (hintfs-oracle): the HDD's least share of them if
        the SSD's data zones held the hottest tables, blocks or records; its
        share with the placement left as it is; the online bound (a policy
        promoting every block at its first read in the run); and the share
        of the reads per level."""
        wanted = {}
        for label, extra in workloads:
            dist = oracle_distribution(extra)
            if dist:
                wanted.setdefault(dist, []).append((label, run_mix(extra)))
        data = self.ssd_zones_of(scheme) * ZONE
        # All the data zones, and the tables' share of them (the WAL and cache
        # budget of two zones kept back).
        sizes = [data - 2 * ZONE, data]
        path = os.path.join(self.out, "oracle.csv")
        fresh = not os.path.exists(path)
        with open(path, "a", newline="") as fh:
            w = csv.writer(fh)
            if fresh:
                w.writerow(["scheme", "workload", "distribution", "zipf", "fast_bytes", "tables", "blocks",
                            "records", "start", "reads", "online", "memory_share", "level_read_shares"])
            for (dist, zipf), labels in wanted.items():
                js = os.path.join(self.work, "oracle.json")
                mixes = sorted({m for _, m in labels})
                runs = [a for m in mixes for a in ("--run", ":".join(map(str, m)))]
                sh([self.oracle, "--uri", f"file:{where}/ssd.img", "--records", str(self.records),
                    "--distribution", dist, "--zipf", str(zipf), "--fast-bytes", ",".join(map(str, sizes)),
                    "--json", js] + runs, stdout=subprocess.DEVNULL)
                with open(js) as jf:
                    j = json.load(jf)
                levels = ";".join("L%d:%.4f" % (l["level"], l["read_share"]) for l in j["levels"])
                # Start and online shares of the run's own mix: the reads of
                # records it wrote before are served from memory. "reads" is
                # the run's point reads (reads and read-modify-writes).
                online = {m: j["online"][i] for i, m in enumerate(mixes)}
                for label, m in labels:
                    run = online[m]
                    for o in j["slow_share"]:
                        w.writerow([scheme, label, dist, zipf, o["fast_bytes"], "%.4f" % o["tables"],
                                    "%.4f" % o["blocks"], "%.4f" % o["records"], "%.4f" % run["placed_share"],
                                    run["reads"], "%.4f" % run["slow_share"], "%.4f" % j["memory_share"], levels])

    def prepare(self):
        """Keeps the results of an earlier run with the same settings (resume)."""
        os.makedirs(self.out, exist_ok=True)
        meta = {"records": self.records, "ops": self.ops, "quick": self.args.quick,
                "speedup": self.args.speedup, "threads": self.args.threads, "store": self.args.store,
                "settle": self.args.settle, "secondary_cache": self.args.secondary_cache,
                "migration_kib": self.args.migration_rate or 4096 * self.args.speedup}
        meta_path = os.path.join(self.out, "meta.json")
        if not self.args.fresh and os.path.exists(meta_path):
            with open(meta_path) as fh:
                old = json.load(fh)
            old.setdefault("store", "rocksdb")  # results from before --store
            old.setdefault("settle", 900)  # and before --settle
            old.setdefault("secondary_cache", True)  # and before --secondary-cache was optional
            if {k: old.get(k) for k in meta} != meta:
                print(f"hhzs_repro: {self.out} holds results of other settings ({old}); use --fresh",
                      file=sys.stderr)
                sys.exit(2)
            return
        for f in ("results.csv", "levels.csv", "oracle.csv"):
            if os.path.exists(os.path.join(self.out, f)):
                os.remove(os.path.join(self.out, f))
        with open(meta_path, "w") as fh:
            json.dump(meta, fh)

    def rows(self):
        if not os.path.exists(self.csv):
            return []
        with open(self.csv) as fh:
            return list(csv.reader(fh))

    def part_done(self, scheme, workloads, run):
        have = {(r[0], r[1]) for r in self.rows()[1:]}
        return (f"{scheme}/load#{run}", "load") in have and all(
            (f"{scheme}/{label}#{run}", "run") in have for label, _ in workloads)

    def drop_part(self, scheme, run):
        """Removes the rows an interrupted part left."""
        drop_rows(self.csv, lambda label: split_label(label)[0] == scheme and split_label(label)[2] == run)

    def parts(self):
        """(run, scheme, workloads), run by run with the schemes interleaved."""
        plan_ = plan(self.args.exp, self.ops)
        if self.args.quick:
            # Fewer schemes: enough to exercise every table and plot.
            keep = {"B3", "AUTO", "HHZS", "P", "P+M", "P+M+C"}
            plan_ = {s: w for s, w in plan_.items() if s in keep}
        if self.args.schemes:
            wanted = set(self.args.schemes.split(","))
            plan_ = {s: w for s, w in plan_.items() if s.partition("@")[0] in wanted}
        # HHZS and P+M+C are the same scheme: load it once.
        if "HHZS" in plan_ and "P+M+C" in plan_:
            plan_["HHZS"] += [w for w in plan_.pop("P+M+C") if w[0] not in [l for l, _ in plan_["HHZS"]]]
        return [(run, s, w) for run in range(1, self.runs + 1) for s, w in plan_.items()]

    def main(self):
        self.prepare()
        todo = [p for p in self.parts() if not self.part_done(p[1], p[2], p[0])]
        self.progress(f"{len(todo)} parts to run ({len(self.parts()) - len(todo)} done before)")
        durations, stopped = [], False
        try:
            for i, (run, scheme, workloads) in enumerate(todo):
                if self.args.max_minutes and time.time() - self.started > 60 * self.args.max_minutes:
                    stopped = True
                    break
                if durations:
                    left = statistics.mean(durations) * (len(todo) - i)
                    self.progress(f"part {i + 1} of {len(todo)}; about {left / 60:.0f} min left")
                began = time.time()
                self.drop_part(scheme, run)
                self.run_scheme(scheme, workloads, run)
                durations.append(time.time() - began)
        finally:
            shutil.rmtree(self.work, ignore_errors=True)
        report(self.out, self.args)
        if stopped:
            self.progress(f"stopped after {self.args.max_minutes} min; run the same command again to resume")
            sys.exit(3)
        self.progress("done: " + os.path.join(self.out, "tables.md"))


def validate(out, args):
    """Problems with the output: a missing table row or figure, a missing B3 base."""
    problems = []
    text = open(os.path.join(out, "tables.md")).read()
    expected = {1: ["load"] + YCSB, 2: ["load"] + list(BREAKDOWN), 3: ["zipf%.1f" % z for z in SKEWS],
                4: exp4_phases(), 5: exp5_phases(), 6: [exp6_row(r) for r in MIGRATION_RATES]}
    figures = {1: ["fig5a.png", "fig5b.png"], 2: ["fig6.png"], 3: ["fig7.png"], 4: ["fig8.png"], 5: ["fig9.png"],
               6: ["fig10.png"]}
    for e in args.exp:
        section = text.split(f"### Exp#{e}:", 1)
        if len(section) < 2:
            problems.append(f"no Exp#{e} table")
            continue
        table_text = section[1].split("\n### ", 1)[0]  # this section's table only
        rows = {line.split("|")[1].strip(): line for line in table_text.splitlines() if line.startswith("| ")}
        for w in expected[e]:
            cells = [c.strip() for c in rows.get(w, "").split("|")[2:-1]]
            # The first cell is a count of ops/s (Exp#6's with its spread after it).
            first = cells[0].split()[:1] if cells else []
            if not first or not first[0].replace(",", "").isdigit() or any(c == "-" for c in cells):
                problems.append(f"Exp#{e}: row {w} is missing or incomplete")
        for f in figures[e]:
            if not os.path.getsize(os.path.join(out, f)) if os.path.exists(os.path.join(out, f)) else True:
                problems.append(f"no plot {f}")
    return problems


def parse_args():
    p = argparse.ArgumentParser(description="Scaled reproduction of the HHZS experiments")
    p.add_argument("--quick", action="store_true", help="tiny sizes, fewer schemes: a smoke test")
    p.add_argument("--out", default=os.path.join(ROOT, "build", "hhzs-repro"), help="output directory")
    p.add_argument("--exp", default="1,2,3,4,6", help="experiments to run, e.g. 1,3 (5, the SSD size, is not a default)")
    p.add_argument("--schemes", default="", help="run only these schemes, e.g. B3,HHZS (default: all)")
    p.add_argument("--runs", type=int, default=0, help="runs per cell (default 3; 1 with --quick)")
    p.add_argument("--max-minutes", type=float, default=0,
                   help="start no new part after this long (exit 3; the same command resumes)")
    p.add_argument("--fresh", action="store_true", help="drop earlier results in --out instead of resuming")
    p.add_argument("--ops", type=int, default=None,
                   help=f"operations per workload (default: the paper's scaled, {YCSB_OPS} for YCSB A-F and "
                        f"{WORKLOAD_OPS} for the others)")
    p.add_argument("--threads", type=int, default=1, help="client threads (default 1)")
    p.add_argument("--settle", type=float, default=900,
                   help="seconds to let the load's compactions finish, and then migration come to rest (3 s "
                        "without a move), before its state is saved (0: none)")
    p.add_argument("--store", choices=sorted(STORES), default="rocksdb",
                   help="the store and what it tells hintfs: rocksdb (with its event listener), "
                        "rocksdb-nolistener (hints inferred from I/O and the MANIFEST), leveldb (our Env), "
                        "leveldb-mount (LevelDB's own Env on the FUSE mount), rocksdb-mount (RocksDB's own Env "
                        "on the mount, direct I/O)")
    p.add_argument("--migration-rate", type=int, default=None, metavar="KIB",
                   help="migration rate in KiB/s as run (default 4 MiB/s x --speedup)")
    p.add_argument("--speedup", type=int, default=None,
                   help=f"how many times faster than the real drives the devices run (default 1: the load is "
                        f"bound by the HDD, as the paper's is; {PROFILE_SCALE} with --quick)")
    p.add_argument("--secondary-cache", action="store_true",
                   help="RocksDB feeds the SSD cache through its secondary cache (HHZS's cache hints) "
                        "instead of hintfs admitting the blocks read from the slow tier")
    p.add_argument("--no-build", action="store_true", help="use the existing build")
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build"),
                   help="binaries to run (a copy keeps a long run independent of rebuilds)")
    p.add_argument("--report-only", action="store_true", help="redo tables and plots from --out's CSV files")
    try:
        args = p.parse_args()
        args.exp = sorted({int(x) for x in args.exp.split(",")})
        if args.speedup is None:
            args.speedup = PROFILE_SCALE if args.quick else 1
        if (not set(args.exp) <= {1, 2, 3, 4, 5, 6} or args.runs < 0 or args.max_minutes < 0 or (args.ops is not None and args.ops < 1)
                or args.threads < 1 or args.speedup < 1 or args.settle < 0
            or (args.migration_rate is not None and args.migration_rate < 1)):
            raise ValueError
    except ValueError:
        print("hhzs_repro: --exp takes experiment numbers 1 to 6 separated by commas; --runs and "
              "--max-minutes and --settle are not negative; --ops, --threads, --speedup and --migration-rate are positive", file=sys.stderr)
        sys.exit(2)
    return args


if __name__ == "__main__":
    a = parse_args()
    if a.report_only:
        report(a.out, a)
    else:
        if not a.no_build:
            sh(["bash", os.path.join(ROOT, "scripts/run.sh"), "build"], stdout=subprocess.DEVNULL)
        Repro(a).main()
    bad = validate(a.out, a)
    for p in bad:
        print("hhzs_repro: " + p, file=sys.stderr)
    sys.exit(1 if bad else 0)
