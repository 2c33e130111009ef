# Per level and tier, the small reads of a phase: the full run's log minus the open-only run's.
import collections, subprocess, sys
# SCHEME names the images in /tmp/r-SCHEME; a path (with a "/") names their directory.
S, full, opened = sys.argv[1], sys.argv[2], sys.argv[3]
D = S if "/" in S else f"/tmp/r-{S}"
ls = subprocess.run(["/work/main/build/adapters/cli/hintfs","ls","-l",f"file:{D}/ssd.img","/db"],capture_output=True,text=True).stdout
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
for (p, off, tier), k in ph.items():
    c[(level.get(p, "?" + p.rsplit('.',1)[-1]), tier)] += k
tot = sum(c.values()); slow = sum(v for k, v in c.items() if k[1] == "slow")
print(S, "phase small reads", tot, "slow", slow)
for k in sorted(c): print("  ", k, c[k])
