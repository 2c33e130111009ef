"""Load STATIC and HINTFS once; run chosen phases several times with the device trace."""
import os, sys, subprocess, time
sys.path.insert(0, "/tmp/exp/bench")
import hyperdb_repro as H
from repro_parts import copy_images, empty_dirs

class A: pass
for _i in (2, 3, 4):
    H.SCHEMES[f"STATIC{_i}"] = H.SCHEMES["STATIC"]; H.SCHEMES[f"HINTFS{_i}"] = H.SCHEMES["HINTFS"]
H.SCHEMES["HINTFSM"] = (H.HINTFS_POLICY, "blocks=32MiB&migration=on")
H.SCHEMES["HINTFSF"] = (H.HINTFS_POLICY + ",slow_read_iops=1000000000000", "blocks=32MiB&migration=on")
args = A(); args.build_dir = "/work/main/build"; args.out = "/tmp/exp/out"; args.speed = 0.25; args.ops = 100000
os.makedirs(args.out, exist_ok=True)
r = H.Repro(args); r.work = "/dev/shm/hintfs-hyperdb.tekdhsz7"
base = "/dev/shm/exp-imgs"
def load(scheme):
    dev = os.path.join(r.work, "dev"); saved = f"{base}/{scheme}"
    empty_dirs(dev, saved)
    fast, slow = r.devices(scheme, dev)
    H.sh([r.hintfs, "mkfs", "--policy", H.SCHEMES[scheme][0], "--fast", fast, "--slow", slow,
          "--fast-data-zones", str(H.NVME_DATA_ZONES)], stdout=subprocess.DEVNULL)
    r.run_ycsb(dev, scheme, f"{scheme}/load#1", ["--load", "--settle", "900"])
    copy_images(H.IMAGES, dev, saved)
def run(scheme, phase, n, tag, env=None):
    w, dist = phase.split("-")
    dev = os.path.join(r.work, "dev"); empty_dirs(dev)
    copy_images(H.IMAGES, f"{base}/{scheme}", dev)
    e = dict(os.environ); e.update(env or {})
    with open(f"{args.out}/{scheme}-{phase}-{tag}-{n}.err", "w") as err:
        query = H.SCHEMES[scheme][1]
        uri = f"blk:{dev}/nvme.img" + (f"?{query}" if query else "")
        if env and "QUERY" in env: uri = f"blk:{dev}/nvme.img?" + env["QUERY"]
        subprocess.run([r.ycsb_bin, "--uri", uri, "--db-options", H.DB_OPTIONS, "--block-cache", str(H.BLOCK_CACHE),
            "--bloom-bits", "10", "--records", str(H.RECORDS), "--value-size", str(H.VALUE),
            "--threads", "8", "--csv", f"{args.out}/results.csv", "--label", f"{scheme}-{tag}/{phase}#{n}",
            "--json", f"{args.out}/{scheme}-{phase}-{tag}-{n}.json", "--workload", w, "--ops", str(args.ops)] + H.DISTS[dist], check=True, stdout=err, stderr=subprocess.STDOUT, env=e)
    with open(f"{args.out}/{scheme}-{phase}-{tag}-{n}.LOG", "w") as lg:
        subprocess.run([r.hintfs, "cat", f"blk:{dev}/nvme.img", "/db/LOG"], stdout=lg, check=False)
cmd = sys.argv[1]
if cmd == "load":
    for s in sys.argv[2].split(","): load(s)
else:
    schemes, phases, runs = sys.argv[2].split(","), sys.argv[3].split(","), int(sys.argv[4])
    tag = sys.argv[5] if len(sys.argv) > 5 else "base"
    env = {"HINTFS_DEVICE_TRACE": "1", "HINTFS_PLACE_LOG": "1"}
    if len(sys.argv) > 6: env["QUERY"] = sys.argv[6]
    for n in range(1, runs + 1):
        for p in phases:
            for s in schemes:
                print(time.strftime("%H:%M:%S"), s, p, n, tag, flush=True)
                run(s, p, n, tag, env)
