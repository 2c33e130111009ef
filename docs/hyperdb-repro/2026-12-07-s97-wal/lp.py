"""Load probe: mkfs + load per config, interleaved, json + LOG kept."""
import os, sys, subprocess, time
sys.path.insert(0, "/tmp/exp/bench")
import hyperdb_repro as H
from repro_parts import empty_dirs
class A: pass
args = A(); args.build_dir = "/work/main/build"; args.out = "/tmp/exp/lout"; args.speed = 0.25; args.ops = 100000
os.makedirs(args.out, exist_ok=True)
r = H.Repro(args); r.work = "/dev/shm/hintfs-hyperdb.tekdhsz7"
runs = int(sys.argv[1]); configs = [c.split("|") for c in sys.argv[2:]]  # tag|mkfs policy|query
for n in range(1, runs + 1):
    for c in configs:
        tag, policy, query = c[:3]; extra = dict(kv.split("=",1) for kv in c[3].split(",")) if len(c) > 3 and c[3] else {}
        dev = os.path.join(r.work, "dev"); empty_dirs(dev)
        fast, slow = r.devices("STATIC", dev)
        H.sh([r.hintfs, "mkfs", "--policy", policy, "--fast", fast, "--slow", slow, "--fast-data-zones", str(H.NVME_DATA_ZONES)], stdout=subprocess.DEVNULL)
        uri = f"blk:{dev}/nvme.img" + (f"?{query}" if query else "")
        print(time.strftime("%H:%M:%S"), tag, n, flush=True)
        with open(f"{args.out}/{tag}-{n}.err", "w") as err:
            subprocess.run([r.ycsb_bin, "--uri", uri, "--db-options", H.DB_OPTIONS, "--block-cache", str(H.BLOCK_CACHE),
                "--bloom-bits", "10", "--records", str(H.RECORDS), "--value-size", str(H.VALUE), "--threads", "8",
                "--csv", f"{args.out}/results.csv", "--label", f"{tag}/load#{n}", "--json", f"{args.out}/{tag}-{n}.json",
                "--load", "--settle", "900"], check=True, stdout=err, stderr=subprocess.STDOUT,
                env=dict(os.environ, HINTFS_DEVICE_TRACE="1", **extra))
        with open(f"{args.out}/{tag}-{n}.LOG", "w") as lg:
            subprocess.run([r.hintfs, "cat", f"blk:{dev}/nvme.img", "/db/LOG"], stdout=lg, check=False)
