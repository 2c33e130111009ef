"""What the reproduction harnesses (hhzs_repro.py, hyperdb_repro.py,
hotrap_repro.py) share: running a command, a scratch directory in memory,
device images saved after a load and put back before each workload, and the
rows of results.csv an interrupted part left.
"""
import csv
import os
import shutil
import subprocess
import tempfile


def sh(cmd, **kw):
    """Runs cmd; CalledProcessError if it fails."""
    return subprocess.run(cmd, check=True, **kw)


def scratch_dir(prefix):
    """A new directory in /dev/shm when it is writable (the images are read
    and written at memory speed, so the devices' modelled timing is what
    counts), else in the default temporary directory."""
    shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    return tempfile.mkdtemp(prefix=prefix, dir=shm)


def empty_dirs(*dirs):
    """Each of dirs, emptied (made if missing)."""
    for d in dirs:
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)


def copy_images(names, source, target):
    """Copies the image files names from directory source to target, sparse."""
    for name in names:
        sh(["cp", "--sparse=always", os.path.join(source, name), os.path.join(target, name)])


def drop_rows(csv_path, doomed):
    """Rewrites csv_path without the rows whose label (first column)
    doomed(label) is true; nothing if there is no file or no such row."""
    if not os.path.exists(csv_path):
        return
    with open(csv_path) as fh:
        rows = list(csv.reader(fh))
    keep = [r for r in rows[1:] if not doomed(r[0])]
    if rows and len(keep) != len(rows) - 1:
        with open(csv_path, "w", newline="") as fh:
            csv.writer(fh).writerows([rows[0]] + keep)
