"""Tables and plots of the scaled HHZS reproduction (hhzs_repro.py).

Every cell is a median over the runs present in results.csv, with the
spread (min-max) when there are several; a ratio to B3 is taken run by run
(run i of a scheme against run i of B3, which ran next to it), then the
median and spread of those ratios are shown.
"""
import csv
import json
import os
import statistics
import subprocess
import sys

from repro_parts import SCALE
# Where the project's scripts install python3-matplotlib (Debian's python3);
# the python3 first on PATH may be another one (pyenv's, say) without it.
DEBIAN_PYTHON = "/usr/bin/python3"
PROFILE_SCALE = 20
YCSB = ["A", "B", "C", "D", "E", "F"]
EXP1_SCHEMES = ["B1", "B2", "B3", "B4", "AUTO", "HHZS", "HINTFS", "ALL-FAST"]
EXP2_SCHEMES = ["B3", "B3+M", "P", "P+M", "P+M+C", "HINTFS"]
EXP3_SCHEMES = ["B3", "AUTO", "HHZS", "HINTFS"]
BREAKDOWN = {"W1": (0.1, 0.9), "W2": (0.5, 0.9), "W3": (0.5, 1.2), "W4": (1.0, 1.2)}
SKEWS = [0.8, 0.9, 1.0, 1.1, 1.2]
EXP5_SCHEMES = ["B1", "B2", "B3", "B4", "AUTO", "P", "HHZS"]
EXP5_ZONES = [20, 40, 60, 80]
EXP4_SCHEMES = ["B3", "AUTO", "HHZS", "HINTFS"]
READ_RATIOS = [0.1, 0.3, 0.5, 0.7, 0.9]
# Exp#6: P+M (no cache, as in the paper) with migration at these MiB/s.
EXP6_SCHEME = "P+M"
MIGRATION_RATES = [1, 2, 4, 8, 16, 32, 64]
READ_PERCENTILES = [("p99", "read_p99_us"), ("p99.9", "read_p999_us"), ("p99.99", "read_p9999_us")]


def exp4_label(reads):
    return "read%d" % round(100 * reads)


def exp4_phases():
    return [exp4_label(r) for r in READ_RATIOS]


def exp6_label(rate):
    return f"migrate{rate}"


def exp6_row(rate):
    return f"{rate} MiB/s"


def split_label(label):
    """'B3/A#2' -> ('B3', 'A', 2); labels of older runs have no '#run'."""
    rest, _, run = label.partition("#")
    scheme, _, workload = rest.partition("/")
    return scheme, workload, int(run) if run else 1


def load_results(out):
    """(scheme, phase[, 'hdd'|'hits']) -> {run: value}."""
    ops = {}
    with open(os.path.join(out, "results.csv")) as fh:
        for row in csv.DictReader(fh):
            scheme, label, run = split_label(row["label"])
            phase = "load" if row["phase"] == "load" else label
            # Exp#5's schemes carry their SSD size ("B3@40"): compared at the same size.
            scheme, _, zones = scheme.partition("@")
            phase += "@" + zones if zones else ""
            ops.setdefault((scheme, phase), {})[run] = float(row["ops_per_s"])
            if row["phase"] == "run":
                ops.setdefault((scheme, phase, "hdd"), {})[run] = float(row["hdd_read_share"] or 0)
                if row.get("point_read_hdd_share"):  # rows of older runs lack it
                    ops.setdefault((scheme, phase, "point_hdd"), {})[run] = float(row["point_read_hdd_share"])
                if row["cache_hit_ratio"]:
                    ops.setdefault((scheme, phase, "hits"), {})[run] = float(row["cache_hit_ratio"])
            # What bound the phase, and the reads' tail (rows of older runs
            # lack these columns).
            for column in ("fast_busy", "slow_busy", "cpu_cores") + tuple(c for _, c in READ_PERCENTILES):
                if row.get(column):
                    ops.setdefault((scheme, phase, column), {})[run] = float(row[column])
    return ops


def utilization_table(ops, schemes, workloads):
    """Median busy share of each device and CPU cores used per phase."""
    rows = []
    for s in schemes:
        for w in workloads:
            key = alias(s, ops)
            if (key, w, "slow_busy") not in ops:
                continue
            cells = [spread([100 * v for v in ops[(key, w, c)].values()], "%.0f") + "%"
                     for c in ("slow_busy", "fast_busy")]
            cells.append(spread(list(ops[(key, w, "cpu_cores")].values()), "%.2f"))
            rows.append(f"| {s} | {w} | " + " | ".join(cells) + " |")
    if not rows:
        return []
    return ["### What bound each phase: device busy time and CPU", "",
            "Busy: the share of the phase's wall time the modelled device had a request in service "
            "(near 100%: bound by it); CPU: cores the whole process used (the machine has 2).", "",
            "| scheme | phase | HDD busy | SSD busy | CPU cores |", "|---|---|---:|---:|---:|"] + rows


def alias(scheme, have):
    """HHZS and P+M+C name one run."""
    if any((k[0] if isinstance(k, tuple) else k) == scheme for k in have):
        return scheme
    return {"P+M+C": "HHZS", "HHZS": "P+M+C"}.get(scheme, scheme)


def ratios(ops, scheme, workload):
    """The run-by-run ratios of scheme to B3 on workload."""
    base, runs = ops.get(("B3", workload), {}), ops.get((alias(scheme, ops), workload), {})
    return [runs[r] / base[r] for r in sorted(runs) if r in base and base[r] > 0]


def spread(values, fmt):
    """'median' or 'median (min-max)'."""
    if not values:
        return "-"
    text = fmt % statistics.median(values)
    if len(values) > 1:
        text += (" (" + fmt + "-" + fmt + ")") % (min(values), max(values))
    return text


def median(values):
    return statistics.median(values) if values else None


def table(ops, schemes, workloads, title):
    lines = [f"### {title}", "",
             "| workload | B3 ops/s | " + " | ".join(schemes) + " |",
             "|---|---:|" + "---:|" * len(schemes)]
    for w in workloads:
        base = median(list(ops.get(("B3", w), {}).values()))
        cells = [spread(ratios(ops, s, w), "%.2f") for s in schemes]
        lines.append((f"| {w} | {base:,.0f} | " if base else f"| {w} | - | ") + " | ".join(cells) + " |")
    return lines


def exp5_phases():
    return [f"{p}@{z}" for p in ("load", "W2") for z in EXP5_ZONES]


def report(out, args):
    with open(os.path.join(out, "meta.json")) as fh:
        meta = json.load(fh)
    ops = load_results(out)
    runs = max((max(v) for v in ops.values() if v), default=0)
    ops_text = (f"{meta['ops']:,} operations per workload" if meta.get("ops") else
                "the paper's operation counts scaled (1M / 512 per YCSB workload, 5M / 512 for the others)")
    md = [f"Records: {meta['records']:,} of 24+1000 bytes; {ops_text}; scale "
          f"1/{SCALE}, devices sped up {meta.get('speedup', PROFILE_SCALE)}x, "
          f"{meta.get('threads', 1)} client thread(s); throughput normalized to B3 (B3's median ops/s shown); "
          f"up to {runs} run(s) per cell: median (min-max) of the run-by-run ratios.", ""]
    present = {k[0] for k in ops}
    if 1 in args.exp:
        schemes = [s for s in EXP1_SCHEMES if alias(s, ops) in present]
        md += table(ops, schemes, ["load"] + YCSB, "Exp#1: YCSB (HHZS Fig. 5(a))") + [""]
        md += levels_table(out) + [""]
    if 2 in args.exp:
        schemes = [s for s in EXP2_SCHEMES if alias(s, ops) in present]
        md += table(ops, schemes, ["load"] + list(BREAKDOWN), "Exp#2: breakdown (HHZS Fig. 6)") + [""]
        hits = [f"{w}: {spread([100 * v for v in ops[(alias('P+M+C', ops), w, 'hits')].values()], '%.1f')}%"
                for w in BREAKDOWN if (alias("P+M+C", ops), w, "hits") in ops]
        if hits:
            md += ["SSD cache hit ratio of P+M+C: " + ", ".join(hits), ""]
        md += utilization_table(ops, schemes, ["load"] + list(BREAKDOWN)) + [""]
    if 3 in args.exp:
        schemes = [s for s in EXP3_SCHEMES if alias(s, ops) in present]
        md += table(ops, schemes, ["zipf%.1f" % z for z in SKEWS], "Exp#3: skew, 50% reads (HHZS Fig. 7)") + [""]
    if 5 in args.exp:
        schemes = [s for s in EXP5_SCHEMES if alias(s, ops) in present]
        md += table(ops, schemes, exp5_phases(), "Exp#5: SSD data zones, load and 50% reads (HHZS Fig. 9)") + [""]
    if 4 in args.exp:
        schemes = [s for s in EXP4_SCHEMES if alias(s, ops) in present]
        md += table(ops, schemes, exp4_phases(),
                    "Exp#4: read ratio, zipf 0.9 (HHZS Fig. 8)") + [""]
    if 6 in args.exp:
        md += latency_table(ops, meta) + [""]
    md += oracle_table(out, ops) + [""]
    hdd = [f"{s} {spread([100 * v for v in ops[(s, 'A', 'hdd')].values()], '%.0f')}%"
           for s in sorted(present) if (s, "A", "hdd") in ops]
    if hdd:
        md += ["Share of device reads served by the HDD in workload A: " + ", ".join(hdd), ""]
    with open(os.path.join(out, "tables.md"), "w") as fh:
        fh.write("\n".join(md) + "\n")
    print("\n".join(md))
    plots(out, ops, args)


def latency_table(ops, meta):
    """Exp#6: P+M's throughput and read tail latencies per migration rate."""
    speedup = meta.get("speedup", 1)
    rate_text = "MiB/s" if speedup == 1 else f"MiB/s (run {speedup}x faster, as the devices)"
    lines = [f"### Exp#6: migration rate, {EXP6_SCHEME}, 50% reads, zipf 0.9 (HHZS Fig. 10)", "",
             f"| migration {rate_text} | ops/s | " + " | ".join(f"read {p} (ms)" for p, _ in READ_PERCENTILES) + " |",
             "|---|---:|" + "---:|" * len(READ_PERCENTILES)]
    for rate in MIGRATION_RATES:
        w = exp6_label(rate)
        cells = [spread(list(ops.get((EXP6_SCHEME, w), {}).values()), "%.0f")]
        cells += [spread([v / 1000 for v in ops.get((EXP6_SCHEME, w, c), {}).values()], "%.1f")
                  for _, c in READ_PERCENTILES]
        lines.append(f"| {exp6_row(rate)} | " + " | ".join(cells) + " |")
    return lines


def oracle_rows(out):
    """(scheme, workload, fast_bytes) -> oracle.csv row; a later row replaces
    an earlier one (a part run again)."""
    path = os.path.join(out, "oracle.csv")
    if not os.path.exists(path):
        return {}
    with open(path) as fh:
        return {(r["scheme"], r["workload"], int(r["fast_bytes"])): r for r in csv.DictReader(fh)}


def oracle_table(out, ops):
    """The measured HDD share of device reads per scheme beside the bounds,
    at the SSD's room for tables (its data zones less the WAL's two)."""
    found = oracle_rows(out)
    if not found:
        return []
    fast = min(k[2] for k in found)
    schemes = sorted({k[0] for k in found})
    base = "B3" if "B3" in schemes else schemes[0]
    # In the experiments' order: "migrate2" before "migrate16".
    workloads = sorted({k[1] for k in found if k[0] == base},
                       key=lambda w: (w.rstrip("0123456789"), int(w[len(w.rstrip("0123456789")):] or 0)))
    # Schemes whose workloads are the base's (Exp#6's P+M runs only its own).
    schemes = [s for s in schemes if any((s, w, fast) in found for w in workloads)]
    lines = ["### Slow tier's share of device reads: measured, and the least the SSD allows", "",
             f"Bounds (hintfs-oracle on the store each scheme's first load left; the SSD's {fast / 1048576:.0f} MiB "
             "of data zones not held for the WAL): the HDD's share of point reads when the SSD holds the hottest "
             f"whole tables, data blocks or records that fit, chosen knowing the key distribution ({base}'s load); "
             "per scheme, the share measured in the phase (of its point reads: reads of 64 KiB or less, counted; "
             "where older runs lack that count, of all bytes read, compactions and migration included, marked *; "
             "median of the runs), then that of its loaded placement left alone, then the online "
             "bound: a policy starting from that placement that moves every block to the SSD at its first "
             "read in the run, for free, still reads each block once from the HDD; no policy that learns from the "
             "run's own reads does better, except by moving data before it is read (HHZS's fill of free room "
             "with whole tables, which the loaded placement does not show). The loaded and online shares count "
             "a read of a record the run wrote before as served from memory (the memtable, or an L0 table on the "
             "SSD), as in A and F; oracle rows written before 2026-11-28 ignore the writes. Scans (E) are not "
             "modelled.", "",
             "| workload | reads | tables | blocks | records | "
             + " | ".join(f"{s}: measured (loaded, online)" for s in schemes) + " |",
             "|---|---:|---:|---:|---:|" + "---:|" * len(schemes)]
    for w in workloads:
        r = found.get((base, w, fast))
        if not r:
            continue
        cells = []
        for s in schemes:
            o = found.get((s, w, fast))
            if (s, w, "point_hdd") in ops:
                measured = spread([100 * v for v in ops[(s, w, "point_hdd")].values()], "%.0f") + "%"
            elif (s, w, "hdd") in ops:
                measured = spread([100 * v for v in ops[(s, w, "hdd")].values()], "%.0f") + "%*"
            else:
                measured = "-"
            cells.append(measured + (" (%.0f%%, %.0f%%)" % (100 * float(o["start"]), 100 * float(o["online"])) if o else ""))
        lines.append(f"| {w} | {int(r['reads']):,} | "
                     + " | ".join("%.0f%%" % (100 * float(r[k])) for k in ("tables", "blocks", "records"))
                     + " | " + " | ".join(cells) + " |")
    return lines


def level_shares(out):
    """(scheme, level) -> (bytes on the SSD, bytes), the levels and the Exp#1 schemes in levels.csv."""
    share = {}
    path = os.path.join(out, "levels.csv")
    if os.path.exists(path):
        with open(path) as fh:
            for row in csv.DictReader(fh):
                if row.get("workload", "A") != "A":
                    continue
                k = (row["scheme"], row["level"])
                fast, total = share.get(k, (0, 0))
                b = int(row["bytes"])
                share[k] = (fast + (b if row["tier"] == "fast" else 0), total + b)
    levels = sorted({l for _, l in share})
    schemes = [s for s in EXP1_SCHEMES if any(k[0] == s for k in share)]
    return share, levels, schemes


def levels_table(out):
    share, levels, schemes = level_shares(out)
    if not share:
        return []
    lines = ["### Exp#1: share of each level's bytes on the SSD at the end of workload A (HHZS Fig. 5(b))", "",
             "| scheme | " + " | ".join(levels) + " |", "|---|" + "---:|" * len(levels)]
    for s in schemes:
        cells = []
        for l in levels:
            fast, total = share.get((s, l), (0, 0))
            cells.append("-" if total == 0 else "%.0f%% of %.0f MiB" % (100.0 * fast / total, total / 1048576.0))
        lines.append(f"| {s} | " + " | ".join(cells) + " |")
    return lines


def plots(out, ops, args):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        if os.path.exists(DEBIAN_PYTHON) and os.path.realpath(sys.executable) != os.path.realpath(DEBIAN_PYTHON):
            # Redo the report under Debian's python3, which draws if it has matplotlib.
            repro = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hhzs_repro.py")
            subprocess.run([DEBIAN_PYTHON, repro, "--report-only", "--out", out,
                            "--exp", ",".join(str(e) for e in args.exp)], stdout=subprocess.DEVNULL)
            return
        print("hhzs_repro: python3-matplotlib is missing; no plots", file=sys.stderr)
        return

    def bars(fname, schemes, workloads, title, xlabels=None):
        schemes = [s for s in schemes if any((alias(s, ops), w) in ops for w in workloads)]
        if not schemes:
            return
        fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(workloads) + 2), 3.4))
        width = 0.8 / len(schemes)
        for i, s in enumerate(schemes):
            ys, lo, hi = [], [], []
            for w in workloads:
                r = ratios(ops, s, w)
                m = median(r) or 0
                ys.append(m)
                lo.append(m - min(r) if r else 0)
                hi.append(max(r) - m if r else 0)
            ax.bar([x + i * width for x in range(len(workloads))], ys, width, label=s, yerr=[lo, hi],
                   capsize=2, error_kw={"elinewidth": 0.7})
        for x, w in enumerate(workloads):
            base = median(list(ops.get(("B3", w), {}).values()))
            if base:
                ax.text(x, 1.03, f"{base:,.0f}", rotation=90, fontsize=7, va="bottom", ha="center")
        ax.set_xticks([x + 0.4 - width / 2 for x in range(len(workloads))])
        ax.set_xticklabels(xlabels or workloads)
        ax.set_ylabel("throughput / B3 (median, min-max)")
        ax.axhline(1.0, color="gray", linewidth=0.5)
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=7, ncol=min(len(schemes), 4))
        fig.tight_layout()
        fig.savefig(os.path.join(out, fname), dpi=110)
        plt.close(fig)

    if 1 in args.exp:
        bars("fig5a.png", EXP1_SCHEMES, ["load"] + YCSB,
             "Exp#1: YCSB (B3's ops/s over the first bars)")
        levels_plot(out, plt)
    if 2 in args.exp:
        bars("fig6.png", EXP2_SCHEMES, ["load"] + list(BREAKDOWN), "Exp#2: breakdown",
             ["load", "W1 10%/0.9", "W2 50%/0.9", "W3 50%/1.2", "W4 100%/1.2"])
    if 3 in args.exp:
        bars("fig7.png", EXP3_SCHEMES, ["zipf%.1f" % z for z in SKEWS], "Exp#3: skew (50% reads)",
             ["%.1f" % z for z in SKEWS])
    if 4 in args.exp:
        bars("fig8.png", EXP4_SCHEMES, exp4_phases(), "Exp#4: read ratio (zipf 0.9)",
             ["%d%% reads" % round(100 * r) for r in READ_RATIOS])
    if 5 in args.exp:
        bars("fig9.png", EXP5_SCHEMES, exp5_phases(), "Exp#5: SSD data zones (load, then 50% reads)",
             [p.replace("@", " ") for p in exp5_phases()])
    if 6 in args.exp:
        latency_plot(out, ops, plt)


def levels_plot(out, plt):
    share, levels, schemes = level_shares(out)
    if not share:
        return
    fig, ax = plt.subplots(figsize=(7, 3.2))
    width = 0.8 / max(1, len(schemes))
    for i, s in enumerate(schemes):
        ys = []
        for l in levels:
            fast, total = share.get((s, l), (0, 0))
            ys.append(100.0 * fast / total if total else 0)
        ax.bar([x + i * width for x in range(len(levels))], ys, width, label=s)
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(levels))])
    ax.set_xticklabels(levels)
    ax.set_ylabel("% of level on SSD")
    ax.set_title("Exp#1: data on the SSD at the end of workload A", fontsize=10)
    ax.legend(fontsize=7, ncol=4)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fig5b.png"), dpi=110)
    plt.close(fig)


def latency_plot(out, ops, plt):
    """Fig. 10: P+M's read tail latencies against the migration rate."""
    fig, ax = plt.subplots(figsize=(6, 3.2))
    drawn = False
    for name, column in READ_PERCENTILES:
        xs, ys, lo, hi = [], [], [], []
        for rate in MIGRATION_RATES:
            values = [v / 1000 for v in ops.get((EXP6_SCHEME, exp6_label(rate), column), {}).values()]
            if not values:
                continue
            m = statistics.median(values)
            xs.append(rate)
            ys.append(m)
            lo.append(m - min(values))
            hi.append(max(values) - m)
        if xs:
            ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=2, label=name)
            drawn = True
    if not drawn:
        plt.close(fig)
        return
    ax.set_xscale("log", base=2)
    ax.set_xticks(MIGRATION_RATES)
    ax.set_xticklabels([str(r) for r in MIGRATION_RATES])
    ax.set_xlabel("migration rate (MiB/s)")
    ax.set_ylabel("read latency (ms; median, min-max)")
    ax.set_title(f"Exp#6: {EXP6_SCHEME}, 50% reads, zipf 0.9", fontsize=10)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fig10.png"), dpi=110)
    plt.close(fig)
