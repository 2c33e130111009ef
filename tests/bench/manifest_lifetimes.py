#!/usr/bin/env python3
"""How predictable a RocksDB store's table lifetimes are, from its MANIFEST.

Reads the output of `ldb manifest_dump --verbose --hex --path=MANIFEST` (a
store's whole history of added and deleted tables with their key ranges)
and prints, in write distance (MiB of tables written between a table's
addition and its deletion, the clock lifetime classes use):

- per level: tables added, never deleted, lifetime percentiles;
- for LEVEL: lifetimes split by a table's place in its compaction (first,
  middle or last output: only whether it is the first is known when it is
  created) and by its size, and the Spearman rank correlation of lifetime
  with the table's key density (bytes per key covered, known when it is
  sealed), its predecessor's in the same compaction (known when it is
  created), and its birth, overall and within quarters of birth (the
  store's growth moves every lifetime).

- for LEVEL: how each table died (pushed down by a compaction of LEVEL,
  or rewritten by one from the level above) and its lifetime by where its
  overlap ratio stood among its level's tables when it was added: the
  bytes of the next level its key range overlaps per byte of its own,
  which RocksDB's compaction picker (kMinOverlappingRatio) takes lowest
  first; known once the table is sealed.

Keys are compared by their first 8 bytes (db_bench's and hintfs-ycsb's keys
are numbers there).

  python3 tests/bench/manifest_lifetimes.py DUMP LEVEL

Exit status: 0 figures printed; 1 the dump cannot be read or holds no
table of LEVEL that died; 2 bad usage.
"""
import re
import statistics
import sys

MIB = 2**20


def parse(path):
    """One list of edits, each a list of ('add', level, number, size, lo, hi) and ('del', level, number)."""
    edits, cur = [], []
    add = re.compile(r"\s*AddFile: (\d+) (\d+) (\d+) '([0-9A-F]+)'.*?\.\. '([0-9A-F]+)'")
    delete = re.compile(r"\s*DeleteFile: (\d+) (\d+)")
    for line in open(path):
        if line.startswith("VersionEdit"):
            if cur:
                edits.append(cur)
            cur = []
        elif m := add.match(line):
            cur.append(("add", int(m[1]), int(m[2]), int(m[3]), int(m[4][:16], 16), int(m[5][:16], 16)))
        elif m := delete.match(line):
            cur.append(("del", int(m[1]), int(m[2])))
    if cur:
        edits.append(cur)
    return edits


def ranks(xs):
    """Ranks from 0, ties sharing their mean rank."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    k = 0
    while k < len(order):
        j = k
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[k]]:
            j += 1
        for i in order[k:j + 1]:
            r[i] = (k + j) / 2
        k = j + 1
    return r


def spearman(a, b):
    """Rank correlation of a and b; NaN for fewer than two pairs."""
    if len(a) < 2:
        return float("nan")
    ra, rb = ranks(a), ranks(b)
    ma, mb = statistics.fmean(ra), statistics.fmean(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    var = (sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb)) ** 0.5
    return cov / var if var else 0.0


def percentiles(values):
    v = sorted(values)
    return [round(v[int(len(v) * q)] / MIB) for q in (0.1, 0.25, 0.5, 0.75, 0.9)] if v else []


def main():
    if len(sys.argv) != 3 or not sys.argv[2].isdigit():
        print("usage: manifest_lifetimes.py DUMP LEVEL (a level number)", file=sys.stderr)
        sys.exit(2)
    level = int(sys.argv[2])
    try:
        edits = parse(sys.argv[1])
    except (OSError, UnicodeDecodeError) as e:
        print(f"manifest_lifetimes.py: cannot read {sys.argv[1]}: {e}", file=sys.stderr)
        sys.exit(1)
    clock, birth, death, levels = 0, {}, {}, {}
    for edit in edits:
        for e in edit:
            if e[0] == "del" and e[2] in birth:
                death[e[2]] = clock
        for e in edit:
            if e[0] == "add":
                birth[e[2]], levels[e[2]] = clock, e[1]
                clock += e[3]
    life = {n: death[n] - birth[n] for n in death}
    print(f"{clock / MIB:.0f} MiB of tables written")
    print("level  added  never  lifetime p10 p25 p50 p75 p90 (MiB)")
    for lv in sorted(set(levels.values())):
        ns = [n for n in levels if levels[n] == lv]
        print(f"{lv:5} {len(ns):6} {sum(n not in life for n in ns):6}  {percentiles([life[n] for n in ns if n in life])}")

    rows = []
    for edit in edits:
        mine = [e for e in edit if e[0] == "add" and e[1] == level]
        for i, (_, _, n, size, lo, hi) in enumerate(mine):
            if n not in life:
                continue
            prev = mine[i - 1] if i > 0 else None
            rows.append(dict(life=life[n], birth=birth[n], size=size, first=i == 0, last=i == len(mine) - 1,
                             density=size / max(1, hi - lo),
                             prev_density=prev[3] / max(1, prev[5] - prev[4]) if prev else None))
    if not rows:
        print(f"manifest_lifetimes.py: no table of level {level} died in {sys.argv[1]}", file=sys.stderr)
        sys.exit(1)
    print(f"\nlevel {level}, by place in its compaction and size: n, lifetime p10 p25 p50 p75 p90 (MiB)")
    for name, pick in [("first output", lambda r: r["first"]), ("middle output", lambda r: not r["first"] and not r["last"]),
                       ("last output", lambda r: r["last"] and not r["first"]), ("size < 700 KB", lambda r: r["size"] < 700_000),
                       ("size >= 700 KB", lambda r: r["size"] >= 700_000)]:
        sub = [r["life"] for r in rows if pick(r)]
        print(f"  {name:15} {len(sub):5} {percentiles(sub)}")
    rows.sort(key=lambda r: r["birth"])
    print(f"\nlevel {level}: Spearman of lifetime with  density  predecessor's density  birth")
    quarters = [("all", rows)] + [(f"quarter {q + 1}", rows[q * len(rows) // 4:(q + 1) * len(rows) // 4]) for q in range(4)]
    for name, sub in quarters:
        if not sub:
            continue
        lives = [r["life"] for r in sub]
        with_prev = [r for r in sub if r["prev_density"] is not None]
        print(f"  {name:10} (from {sub[0]['birth'] / MIB:5.0f} MiB)  {spearman(lives, [r['density'] for r in sub]):6.2f}"
              f"  {spearman([r['life'] for r in with_prev], [r['prev_density'] for r in with_prev]):6.2f}"
              f"  {spearman(lives, [r['birth'] for r in sub]):6.2f}")
    print_overlap_ranks(edits, level, life)


def overlap_ratio_ranks(edits, level):
    """Table number -> (share of its level's other tables whose overlap
    ratio with the next level was lower when it was added, how it died:
    'down', 'above' or None if it lives)."""
    live, pct, how = {}, {}, {}

    def ratio(n):
        lv, size, lo, hi = live[n]
        below = sum(s for (l, s, a, b) in live.values() if l == lv + 1 and not (b < lo or a > hi))
        return below / max(1, size)

    for edit in edits:
        added_levels = {e[1] for e in edit if e[0] == "add"}
        for e in edit:
            if e[0] == "del":
                if e[1] == level and e[2] in pct:
                    how[e[2]] = "down" if level + 1 in added_levels else "above"
                live.pop(e[2], None)
        adds = [e for e in edit if e[0] == "add"]
        for _, lv, n, size, lo, hi in adds:
            live[n] = (lv, size, lo, hi)
        for _, lv, n, _, _, _ in adds:
            if lv == level:
                mine = ratio(n)
                others = [ratio(m) for m, v in live.items() if v[0] == level and m != n]
                pct[n] = sum(o < mine for o in others) / max(1, len(others))
    return {n: (p, how.get(n)) for n, p in pct.items()}


def print_overlap_ranks(edits, level, life):
    ranked = overlap_ratio_ranks(edits, level)
    print(f"\nlevel {level}, by its overlap ratio's rank in the level when added: n, share pushed down, "
          "lifetime p10 p25 p50 p75 p90 (MiB)")
    for lo, hi in [(0, 0.02), (0.02, 0.05), (0.05, 0.1), (0.1, 0.25), (0.25, 0.5), (0.5, 1.01)]:
        ns = [n for n, (p, how) in ranked.items() if lo <= p < hi and n in life]
        if ns:
            down = sum(ranked[n][1] == "down" for n in ns) / len(ns)
            print(f"  {lo:4.2f}-{min(hi, 1):4.2f} {len(ns):5} {down:5.2f} {percentiles([life[n] for n in ns])}")
    dead = [n for n in ranked if n in life]
    print(f"  Spearman of lifetime with the rank: {spearman([life[n] for n in dead], [ranked[n][0] for n in dead]):.2f}")
    for how in ("down", "above"):
        ns = [n for n in dead if ranked[n][1] == how]
        print(f"  died {'pushed down' if how == 'down' else 'rewritten from above'}: {len(ns)}, "
              f"lifetime {percentiles([life[n] for n in ns])}")


if __name__ == "__main__":
    main()
