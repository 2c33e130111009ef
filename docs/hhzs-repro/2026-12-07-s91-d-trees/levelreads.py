# D's small reads per level and tier: the full run's read log less the open-only run's.
import collections, subprocess, sys
d, full, opened = sys.argv[1:4]
ls = subprocess.run(["/work/main/build/adapters/cli/hintfs", "ls", "-l", f"file:{d}/ssd.img", "/db"], capture_output=True, text=True).stdout
level = {}
for line in ls.splitlines():
    f = line.split()
    if len(f) >= 7: level[f[6]] = f[4]
def load(path):
    m = collections.Counter()
    for line in open(path):
        p, off, n, f0, f1 = line.split()
        if int(f0) + int(f1) == 0: continue
        m[(p, int(off), "slow" if int(f1) > 0 else "fast")] += 1
    return m
ph = load(full) - load(opened)
c = collections.Counter()
for (p, off, tier), k in ph.items(): c[(level.get(p, "?"), tier)] += k
slow = sum(v for k, v in c.items() if k[1] == "slow")
print(d.rsplit('/', 1)[-1], "phase small reads", sum(c.values()), "slow", slow, " ".join(f"{k[0]}{k[1][0]}:{v}" for k, v in sorted(c.items())))
