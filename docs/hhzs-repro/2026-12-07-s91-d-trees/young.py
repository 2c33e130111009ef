# For each saved load (DIR/saved/ssd.img): the L2-L4 tables whose keys are not all bottom-zeroed
# (seq_lo > 0, i.e. they hold keys of the load's later part), with their tier.
import re, subprocess, sys, os
H = "/work/main/build/adapters/cli/hintfs"
for d in sys.argv[1:]:
    subprocess.run(f"cp --sparse=always {d}/saved/*.img {d}/", shell=True); uri = f"file:{d}/ssd.img"
    cur = subprocess.run([H, "cat", uri, "/db/CURRENT"], capture_output=True, text=True).stdout.strip()
    man = subprocess.run([H, "cat", uri, "/db/" + cur], capture_output=True).stdout
    path = f"/tmp/s91/{os.path.basename(d)}.MANIFEST"; open(path, "wb").write(man)
    out = subprocess.run(["ldb", "manifest_dump", "--path=" + path, "--verbose"], capture_output=True, text=True).stdout
    level = None; meta = {}
    for line in out.splitlines():
        m = re.match(r"--- level (\d+) ", line)
        if m: level = int(m.group(1)); continue
        m = re.match(r"\s*(\d+):(\d+)\[(\d+) \.\. (\d+)\]", line)
        if m and level is not None and level < 7: meta[int(m.group(1))] = (level, int(m.group(3)), int(m.group(4)))
    ls = subprocess.run([H, "ls", "-l", uri, "/db"], capture_output=True, text=True).stdout
    tier = {}
    for line in ls.splitlines():
        f = line.split()
        if len(f) >= 7 and f[6].endswith(".sst"): tier[int(f[6].rsplit('/', 1)[-1].split('.')[0])] = f[5]
    for lv in (2, 3, 4):
        files = [n for n in meta if meta[n][0] == lv]
        young = sorted([n for n in files if meta[n][1] > 0], key=lambda n: -meta[n][2])
        fast_old = sum(1 for n in files if meta[n][1] == 0 and tier.get(n) == "fast")
        print(os.path.basename(d), f"L{lv}", len(files), "tables;", len(young), "young:",
              " ".join("%d-%d%s" % (meta[n][1] // 1000, meta[n][2] // 1000, tier.get(n, "?")[0]) for n in young),
              f"| old fast {fast_old}")
