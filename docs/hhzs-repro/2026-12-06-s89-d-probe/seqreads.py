import collections, re, subprocess, sys
S, manifest, full, opened = sys.argv[1:5]
out = subprocess.run(["ldb", "manifest_dump", "--path=" + manifest, "--verbose"], capture_output=True, text=True).stdout
level = None; meta = {}
for line in out.splitlines():
    m = re.match(r"--- level (\d+) ", line)
    if m: level = int(m.group(1)); continue
    m = re.match(r"\s*(\d+):(\d+)\[(\d+) \.\. (\d+)\]", line)
    if m and level is not None and level < 7:
        meta[int(m.group(1))] = (level, int(m.group(3)), int(m.group(4)))
ls = subprocess.run(["/work/main/build/adapters/cli/hintfs","ls","-l",f"file:/tmp/r-{S}/ssd.img","/db"],capture_output=True,text=True).stdout
tier = {}
for line in ls.splitlines():
    f = line.split()
    if len(f) >= 7 and f[6].endswith(".sst"): tier[int(f[6].rsplit('/',1)[-1].split('.')[0])] = f[5]
def load(path):
    m = collections.Counter()
    for line in open(path):
        p, off, n, f0, f1 = line.split()
        if int(f0) + int(f1) == 0 or not p.endswith(".sst"): continue
        m[(int(p.rsplit('/',1)[-1].split('.')[0]), int(off))] += 1
    return m
ph = load(full) - load(opened)
per = collections.Counter()
for (num, off), k in ph.items(): per[num] += k
for lv in range(5):
    files = sorted([n for n in meta if meta[n][0] == lv], key=lambda n: meta[n][1])
    if not files: continue
    print(S, "L%d" % lv, len(files), "tables; by smallest seq (seq_lo, seq_hi, reads, tier):")
    print("   ", " ".join("%d-%d:%d%s" % (meta[n][1]//1000, meta[n][2]//1000, per[n], tier.get(n, "?")[0]) for n in files))
