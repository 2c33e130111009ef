import collections, subprocess, sys
S, log = sys.argv[1], sys.argv[2]
ls = subprocess.run(["build/adapters/cli/hintfs","ls","-l",f"file:/tmp/r-{S}/ssd.img","/db"],capture_output=True,text=True).stdout
level = {}
for line in ls.splitlines():
    f = line.split()
    if len(f) >= 7: level[f[6]] = f[4]
c = collections.Counter(); seen = collections.Counter(); rep = collections.Counter()
for line in open(log):
    p, off, n, f0, f1 = line.split()
    if int(f0) + int(f1) == 0: continue
    tier = "slow" if int(f1) > 0 else "fast"
    lv = level.get(p, "?" + p.rsplit('.',1)[-1])
    c[(lv, tier)] += 1
    key = (p, int(off)//4096)
    if tier == "slow":
        rep["repeat" if seen[key] else "first"] += 1
    seen[key] += 1
tot = sum(c.values())
print(S, log, "device small reads", tot, dict(rep))
for k in sorted(c): print("  ", k, c[k], "%.1f%%" % (100.0 * c[k] / tot))
