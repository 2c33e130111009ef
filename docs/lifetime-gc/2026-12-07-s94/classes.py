#!/usr/bin/env python3
"""Session 94's probe: write-life-time hints for `hintfs trace apply`, one per
table, from what the store's MANIFEST says of it, to see which zone classes
would have paid on a recorded trace (a build with hints-from-file.patch reads
them from $HINTFS_HINTS_FROM; the lifetime=hint policy gives each hint a
zone class of its own, and the patch lets hints 6 and 7 be classes too).

  python3 classes.py DUMP VARIANT > hints.txt   (lines: /db/NNNNNN.sst HINT)

DUMP is `ldb manifest_dump --verbose --hex` of the traced store's MANIFEST.
RocksDB's own hints: L0 and L1 3, L2 4, L3 and deeper 5 (the WAL 2, other
files 0); hints 1, 6 and 7 are free. A table's rank is where its overlap
ratio (next-level bytes its key range overlaps per byte of its own) stood
among its level's tables when it was first added; its life is MiB of tables
added between its addition and its deletion (the MANIFEST's clock), known
only to an oracle. Variants:
  same         RocksDB's hints (the control: must match the plain apply)
  l2split      L2 tables of rank < 0.1 in a class of their own (6)
  l1l2split    that, and L1 tables of rank >= 0.5 in another (7)
  l2mid        only L2 tables of rank 0.02-0.1 apart (6)
  l2orU        oracle: L2 by life as `--oracle-lifetimes U MiB` buckets it
               (1 below U, 2 below 2U, 3 below 4U, 4 more, 5 never deleted),
               sharing the WAL's, L0/L1's and L3's classes
  l2qU         oracle: L2 in four new-or-free classes (6 below U, 7 below
               2U, 4 below 4U, 1 more or never deleted)
  l2twoS       oracle: L2 split in two at S MiB (6 below, 4 above)
  l2threeU     oracle: L2 in three (6 below U, 7 below 2U, 4 more)
  l2mA-B       oracle, no new class: L2 below A MiB with L0/L1 (3), below
               B in its own (4), more with L3 (5)
  l2keyK       L2 in K classes by the key its range starts at (K quantiles)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../tests/bench"))
from manifest_lifetimes import parse  # noqa: E402

NEVER = 2**60


def tables(edits):
    """Table number -> (level, rank, life in bytes, first key), at its first addition."""
    live, first, born, died, key = {}, {}, {}, {}, {}
    clock = 0

    def ratio(n):
        lv, size, lo, hi = live[n]
        below = sum(s for (l, s, a, b) in live.values() if l == lv + 1 and not (b < lo or a > hi))
        return below / max(1, size)

    for edit in edits:
        readded = {e[2] for e in edit if e[0] == "add"}  # a trivial move is no death
        for e in edit:
            if e[0] == "del":
                live.pop(e[2], None)
                if e[2] not in readded:
                    died[e[2]] = clock
        adds = [e for e in edit if e[0] == "add"]
        for _, lv, n, size, lo, hi in adds:
            live[n] = (lv, size, lo, hi)
        for _, lv, n, size, lo, _ in adds:
            if n in first:
                continue
            born[n], key[n] = clock, lo
            clock += size
            mine = ratio(n)
            others = [ratio(m) for m, v in live.items() if v[0] == lv and m != n]
            first[n] = (lv, sum(o < mine for o in others) / max(1, len(others)))
    return {n: (lv, r, died.get(n, NEVER) - born[n], key[n]) for n, (lv, r) in first.items()}


def hint_rule(variant, l2_key_bounds):
    def rocksdb(lv):
        return 3 if lv <= 1 else 4 if lv == 2 else 5

    def rule(lv, rank, life, key):
        mib = 2**20
        if variant == "l1l2split" and lv == 1:
            return 3 if rank < 0.5 else 7
        if variant == "same" or lv != 2:
            return rocksdb(lv)
        if variant in ("l2split", "l1l2split"):
            return 6 if rank < 0.1 else 4
        if variant == "l2mid":
            return 6 if 0.02 <= rank < 0.1 else 4
        if variant.startswith("l2or"):
            u = float(variant[4:]) * mib
            if life >= NEVER // 2:
                return 5
            return 1 if life < u else 2 if life < 2 * u else 3 if life < 4 * u else 4
        if variant.startswith("l2q"):
            u = float(variant[3:]) * mib
            return 6 if life < u else 7 if life < 2 * u else 4 if life < 4 * u else 1
        if variant.startswith("l2two"):
            return 6 if life < float(variant[5:]) * mib else 4
        if variant.startswith("l2three"):
            u = float(variant[7:]) * mib
            return 6 if life < u else 7 if life < 2 * u else 4
        if variant.startswith("l2m"):
            a, b = (float(x) * mib for x in variant[3:].split("-"))
            return 3 if life < a else 4 if life < b else 5
        if variant.startswith("l2key"):
            return [4, 6, 7, 1][sum(key >= b for b in l2_key_bounds)]
        raise SystemExit(f"unknown variant {variant}")
    return rule


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    variant = sys.argv[2]
    t = tables(parse(sys.argv[1]))
    bounds = []
    if variant.startswith("l2key"):
        k = int(variant[5:])
        keys = sorted(key for lv, _, _, key in t.values() if lv == 2)
        bounds = [keys[len(keys) * i // k] for i in range(1, k)]
    rule = hint_rule(variant, bounds)
    counts = {}
    for n, (lv, rank, life, key) in sorted(t.items()):
        h = rule(lv, rank, life, key)
        counts[(lv, h)] = counts.get((lv, h), 0) + 1
        print(f"/db/{n:06d}.sst {h}")
    print("tables by (level, hint):", dict(sorted(counts.items())), file=sys.stderr)


if __name__ == "__main__":
    main()
