"""What the scaled HHZS reproduction (hhzs_repro.py) runs: for each scheme,
its workloads as hintfs-ycsb arguments, and the URI keys a phase adds.

  Exp#1  load + YCSB A-F (1M operations each in the paper)
  Exp#2  W1-W4: 10/50/50/100% reads, zipf 0.9/0.9/1.2/1.2 (5M)
  Exp#3  50% reads, zipf 0.8-1.2 (5M)
  Exp#4  10-90% reads, zipf 0.9 (5M), B3, AUTO, HHZS and HINTFS (Fig. 8)
  Exp#5  50% reads, zipf 0.9, on SSDs of 20-80 data zones (1M in the paper's
         Fig. 9(b); 5M here, as before, so the phase is the other
         experiments' W2)
  Exp#6  50% reads, zipf 0.9 (5M), P+M with migration at 1-64 MiB/s,
         read latencies (Fig. 10)
"""
from hhzs_report import (BREAKDOWN, EXP1_SCHEMES, EXP3_SCHEMES, EXP4_SCHEMES, EXP5_SCHEMES, EXP5_ZONES,
                         EXP6_SCHEME, MIGRATION_RATES, READ_RATIOS, SCALE, SKEWS, YCSB, exp4_label, exp6_label)

# The paper's operation counts (1M per YCSB workload, 5M per workload of
# Exp#2-#6) scaled like every other size: a run must change the same share
# of the tree as the paper's. Unscaled, a run of A rewrote 10% of the
# records (the paper's: 0.25%) and its compactions rewrote L2 onto the SSD
# under every scheme, undoing the placement the load left.
YCSB_OPS = 1_000_000 // SCALE
WORKLOAD_OPS = 5_000_000 // SCALE


def mix_args(reads, zipf):
    """hintfs-ycsb's arguments for reads and updates of stored records."""
    return ["--read", str(reads), "--update", str(round(1 - reads, 2)), "--zipf", str(zipf)]


def plan(exps, ops=None):
    """(scheme -> [(workload label, hintfs-ycsb arguments)]) for the experiments
    asked; ops, if given, replaces the scaled operation counts."""
    runs = {}
    ycsb_ops = ["--ops", str(ops or YCSB_OPS)]
    workload_ops = ["--ops", str(ops or WORKLOAD_OPS)]

    def add(scheme, label, args):
        if label not in [l for l, _ in runs.setdefault(scheme, [])]:
            runs[scheme].append((label, args))

    if 1 in exps:
        for s in EXP1_SCHEMES:
            for w in YCSB:
                # A spelled as its mix, as W2 and zipf 0.9 are (the same workload at
                # the same count reuse one run).
                mix = mix_args(0.5, 0.9) if w == "A" else ["--workload", w, "--zipf", "0.9"]
                add(s, w, ycsb_ops + mix)
    if 2 in exps:
        for s in ["B3", "B3+M", "P", "P+M", "P+M+C", "HINTFS"]:
            for w, (reads, zipf) in BREAKDOWN.items():
                add(s, w, workload_ops + mix_args(reads, zipf))
    if 3 in exps:
        for s in EXP3_SCHEMES:
            for z in SKEWS:
                add(s, "zipf%.1f" % z, workload_ops + mix_args(0.5, z))
    if 4 in exps:
        for s in EXP4_SCHEMES:
            for reads in READ_RATIOS:
                add(s, exp4_label(reads), workload_ops + mix_args(reads, 0.9))
    if 5 in exps:
        # Each SSD size is a scheme of its own ("B3@40"): a load of its own.
        for zones in EXP5_ZONES:
            for s in EXP5_SCHEMES:
                add(f"{s}@{zones}", "W2", workload_ops + mix_args(0.5, 0.9))
    if 6 in exps:
        # One load; each phase runs migration at its own rate (phase_query).
        # The paper loads at each rate; the rate matters while reads run.
        for rate in MIGRATION_RATES:
            add(EXP6_SCHEME, exp6_label(rate), workload_ops + mix_args(0.5, 0.9))
    return runs


def phase_query(workload, speedup):
    """URI keys a phase adds to its scheme's: Exp#6's migration rate, a
    bandwidth, sped up with the devices as schemes() does."""
    for rate in MIGRATION_RATES:
        if workload == exp6_label(rate):
            return [f"migration_rate={rate * 1024 * speedup}KiB"]
    return []


def oracle_distribution(extra):
    """(distribution, zipf) of a workload's point reads from its hintfs-ycsb
    arguments, or None for scans (E: a scan reads runs of blocks in every
    level, which the point-read oracle does not model)."""
    zipf = float(extra[extra.index("--zipf") + 1]) if "--zipf" in extra else 0.9
    workload = extra[extra.index("--workload") + 1] if "--workload" in extra else None
    if workload == "E":
        return None
    return ("latest" if workload == "D" else "zipfian", zipf)


# YCSB's mixes as hintfs-ycsb runs them (adapters/bench/ycsb_main.cc):
# shares of reads, updates and read-modify-writes of stored records.
YCSB_MIXES = {"A": (0.5, 0.5, 0.0), "B": (0.95, 0.05, 0.0), "C": (1.0, 0.0, 0.0), "D": (0.95, 0.0, 0.0),
              "E": (0.0, 0.0, 0.0), "F": (0.5, 0.0, 0.5)}


def run_mix(extra):
    """(operations, read, update, read-modify-write) of a workload from its
    hintfs-ycsb arguments."""
    ops = int(extra[extra.index("--ops") + 1])
    if "--workload" in extra:
        return (ops,) + YCSB_MIXES[extra[extra.index("--workload") + 1]]
    read = float(extra[extra.index("--read") + 1])
    update = float(extra[extra.index("--update") + 1]) if "--update" in extra else 0.0
    return (ops, read, update, 0.0)
