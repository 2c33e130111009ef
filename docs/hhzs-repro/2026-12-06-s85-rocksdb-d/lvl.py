# Small reads per level and tier from a read log of the build with read-log.patch
# (HINTFS_READ_LOG=FILE): python3 lvl.py SCHEME, the images in /tmp/r-SCHEME, the log
# in rl-SCHEME.log or READ_LOG. Counts the store's open and the phase together.
import collections, os, subprocess, sys
S = sys.argv[1]
ls = subprocess.run([os.environ.get("HINTFS", "build/adapters/cli/hintfs"),"ls","-l",f"file:/tmp/r-{S}/ssd.img","/db"],capture_output=True,text=True).stdout
level = {}
for line in ls.splitlines():
    f = line.split()
    if len(f) >= 7: level[f[6]] = f[4]
c = collections.Counter(); nf = collections.Counter()
for line in open(os.environ.get("READ_LOG", f"rl-{S}.log")):
    p, off, n, f0, f1 = line.split()
    if int(f0) + int(f1) == 0: tier = "mem"
    else: tier = "slow" if int(f1) > 0 else "fast"
    c[(level.get(p, "?" + p.rsplit('.',1)[-1]), tier)] += 1
tot = sum(v for k, v in c.items() if k[1] != "mem")
for k in sorted(c): print(S, k, c[k], "%.1f%%" % (100.0 * c[k] / tot))
print(S, "device small reads", tot)
