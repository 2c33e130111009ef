#!/usr/bin/env python3
"""Bad input, as a careless or unlucky user produces it, against the hintfs tool.

Each case damages a copy of a small filesystem (cut images, flipped and zeroed
bytes anywhere in them, copied, swapped and foreign members) or hands the tool
bad URIs and bad trace files, then runs fsck, fsck --deep, info, ls and cat of
every file. Every run must end by itself with a documented status (0, 1, or 2
for bad usage), never by a signal, and cat must print either the file's exact
bytes or nothing and a failure. Prints a line per kind of case and a summary;
exits 1 on any violation.

    damage_campaign.py HINTFS PLUGIN [CASES] [SEED]
"""
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile

HINTFS, PLUGIN = sys.argv[1], sys.argv[2]
CASES = int(sys.argv[3]) if len(sys.argv) > 3 else 320
rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 20261123)
work = tempfile.mkdtemp(prefix="hintfs-damage.")
violations = []
runs = 0


def run(args, timeout=60):
    """Runs the tool; returns (status, stdout bytes). A signal or a hang is a violation."""
    global runs
    runs += 1
    try:
        p = subprocess.run([HINTFS] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        violations.append("hang: hintfs " + " ".join(args))
        return -1, b""
    if p.returncode < 0:
        violations.append("killed by %s: hintfs %s" % (signal.Signals(-p.returncode).name, " ".join(args)))
    elif p.returncode not in (0, 1, 2, 3):  # the exit-status table (README)
        violations.append("exit status %d: hintfs %s" % (p.returncode, " ".join(args)))
    return p.returncode, p.stdout


def make_pristine():
    src = os.path.join(work, "src")
    files = {}
    for i in range(8):
        d = os.path.join(src, "d%d" % (i % 3))
        os.makedirs(d, exist_ok=True)
        data = rng.randbytes(rng.choice([0, 1, 4095, 4097, 30000, 150000, 600000]))
        with open(os.path.join(d, "f%d" % i), "wb") as f:
            f.write(data)
        files["/d%d/f%d" % (i % 3, i)] = data
    pristine = os.path.join(work, "pristine")
    os.makedirs(pristine)
    fast = "file:%s/ssd.img?zone_size=256KiB&zones=24" % pristine
    slow = "file:%s/hdd.img?zone_size=256KiB&zones=24" % pristine
    subprocess.run([HINTFS, "mkfs", "--fast", fast, "--slow", slow], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([HINTFS, "restore", "file:%s/ssd.img" % pristine, src], check=True, stdout=subprocess.DEVNULL)
    return pristine, files


def fresh_copy(pristine, name):
    d = os.path.join(work, name)
    shutil.copytree(pristine, d)
    return d


def check_filesystem(uri, files, extra=()):
    """The tool over a (possibly damaged) filesystem: statuses, and cat's bytes."""
    for args in (["fsck"], ["fsck", "--deep"], ["info"], ["ls", "-R"]):
        run(args[:1] + [uri] + args[1:] + list(extra))
    for path, data in files.items():
        status, out = run(["cat", uri, path] + list(extra))
        if status == 0 and out != data:
            violations.append("wrong bytes: hintfs cat %s %s (%d bytes, expected %d)" % (uri, path, len(out), len(data)))


def case_cut(pristine, files, n):
    d = fresh_copy(pristine, "cut%d" % n)
    image = os.path.join(d, rng.choice(["ssd.img", "hdd.img"]))
    size = os.path.getsize(image)
    os.truncate(image, rng.randrange(0, size))
    check_filesystem("file:%s/ssd.img" % d, files)
    shutil.rmtree(d)


def case_flip(pristine, files, n, zero=False):
    d = fresh_copy(pristine, "flip%d" % n)
    image = os.path.join(d, rng.choice(["ssd.img", "hdd.img"]))
    size = os.path.getsize(image)
    with open(image, "r+b") as f:
        for _ in range(rng.choice([1, 1, 3, 20])):
            # Headers, zone tables, superblocks, journal and data all get hit.
            at = rng.choice([rng.randrange(0, 8192), rng.randrange(1 << 20, min(size, (1 << 20) + (4 << 20))),
                             rng.randrange(0, size)])
            f.seek(at)
            b = f.read(1)
            f.seek(at)
            f.write(b"\0" if zero else bytes([b[0] ^ (1 << rng.randrange(8))]) if b else b"\x55")
    check_filesystem("file:%s/ssd.img" % d, files)
    shutil.rmtree(d)


def case_members(pristine, files, foreign, n):
    d = fresh_copy(pristine, "members%d" % n)
    kind = n % 4
    if kind == 0:  # a copy opened where it lies: refused, the original untouched
        os.rename(os.path.join(d, "ssd.img"), os.path.join(d, "copy.img"))
        before = open(os.path.join(pristine, "hdd.img"), "rb").read()
        for args in (["fsck"], ["info"], ["gc"]):
            status, _ = run(args + ["file:%s/copy.img" % d])
            if status != 1:
                violations.append("a moved member opened without its members named: %s" % args[0])
        if open(os.path.join(pristine, "hdd.img"), "rb").read() != before:
            violations.append("a copy wrote into the original's member")
        check_filesystem("file:%s/copy.img" % d, files, ["--member", "1=file:%s/hdd.img" % d])
    elif kind == 1:  # members swapped
        check_filesystem("file:%s/ssd.img" % d, files, ["--member", "1=file:%s/ssd.img" % d])
    elif kind == 2:  # a member of another filesystem
        check_filesystem("file:%s/ssd.img" % d, files, ["--member", "1=file:%s/hdd.img" % foreign])
    else:  # a member missing
        os.unlink(os.path.join(d, "hdd.img"))
        check_filesystem("file:%s/ssd.img" % d, files)
    shutil.rmtree(d)


def case_bad_uri(pristine, n):
    junk = "".join(rng.choice("file:mem:zbd:nvme:/?&=%x0123456789abcdefzones_sizeprofile,;") for _ in range(rng.randrange(1, 40)))
    uri = rng.choice([junk, "file:%s/ssd.img?%s" % (pristine, junk), "file:%s/ssd.img?zones=%s" % (pristine, junk),
                      "nvme:" + junk, "file:", "mem:", "file:%s/nothing.img" % work])
    for args in (["info", uri], ["fsck", uri], ["cat", uri, "/x"], ["mkfs", "--fast", uri]):
        status, _ = run(args)
        if status == 0 and args[0] != "mkfs":
            violations.append("bad URI accepted: hintfs %s" % " ".join(args))


def case_bad_trace(trace, n):
    data = bytearray(open(trace, "rb").read())
    path = os.path.join(work, "bad%d.trace" % n)
    kind = n % 3
    if kind == 0:
        data = data[:rng.randrange(0, len(data))]
    elif kind == 1:
        for _ in range(rng.choice([1, 5])):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    else:
        data = bytearray(rng.randbytes(rng.randrange(0, 4096)))
    open(path, "wb").write(bytes(data))
    run(["trace", "dump", path])
    run(["replay", path, "--policy", "hhzs", "--ssd-zones", "20", "--hdd-zones", "100", "--zone-size", "4MiB"])
    os.unlink(path)


def record_trace():
    trace = os.path.join(work, "good.trace")
    env = dict(os.environ, LD_PRELOAD=PLUGIN)
    subprocess.run(["db_bench", "--fs_uri=hintfs://mem:campaign?trace=" + trace, "--db=/db", "--num=3000",
                    "--benchmarks=fillrandom", "--compression_type=none"], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    status, _ = run(["trace", "dump", trace])
    if status != 0:
        violations.append("a good trace does not dump")
    return trace


def main():
    pristine, files = make_pristine()
    foreign = os.path.join(work, "foreign")
    os.makedirs(foreign)
    subprocess.run([HINTFS, "mkfs", "--fast", "file:%s/ssd.img?zone_size=256KiB&zones=24" % foreign,
                    "--slow", "file:%s/hdd.img?zone_size=256KiB&zones=24" % foreign], check=True,
                   stdout=subprocess.DEVNULL)
    check_filesystem("file:%s/ssd.img" % pristine, files)
    if violations:
        print("the undamaged filesystem already fails:", violations[:3])
        return 1
    trace = record_trace()
    kinds = [("cut images", lambda n: case_cut(pristine, files, n), 0.2),
             ("flipped bytes", lambda n: case_flip(pristine, files, n), 0.3),
             ("zeroed bytes", lambda n: case_flip(pristine, files, n, zero=True), 0.1),
             ("copied, swapped, foreign, missing members", lambda n: case_members(pristine, files, foreign, n), 0.1),
             ("bad device URIs", lambda n: case_bad_uri(pristine, n), 0.15),
             ("bad traces", lambda n: case_bad_trace(trace, n), 0.15)]
    total = 0
    for name, fn, share in kinds:
        count = max(4, int(CASES * share))
        before = len(violations)
        for n in range(count):
            fn(n)
        total += count
        print("%-42s %4d cases, %d violations" % (name, count, len(violations) - before))
    for v in violations[:20]:
        print("VIOLATION:", v)
    print("damage campaign: %d cases, %d runs of the tool, %d violations" % (total, runs, len(violations)))
    return 1 if violations else 0


try:
    sys.exit(main())
finally:
    shutil.rmtree(work, ignore_errors=True)
