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

# Every size of the papers' settings is divided by this.
SCALE = 512

# The RocksDB options every reproduction runs with (each harness adds its
# background jobs and what is its own): the HHZS setting's memtables, tables
# (a fast zone each) and level sizes divided by SCALE, two L0 tables to a
# compaction, no compression.
SCALED_ROCKSDB_OPTIONS = [
    "write_buffer_size=984612", "max_write_buffer_number=4", "min_write_buffer_number_to_merge=2",
    "target_file_size_base=1969225", "max_bytes_for_level_base=2097152",
    "level0_file_num_compaction_trigger=2", "compression=kNoCompression",
    # HHZS runs RocksDB with direct I/O, under which RocksDB reads compaction
    # inputs 2 MiB at a time; block-sized reads would seek the HDD per block
    # and leave the tree deep in compaction debt (L0 at 80 MiB in a trial).
    "compaction_readahead_size=2097152",
    # HHZS ran RocksDB 6.22.1, whose outputs stop at the target size: one
    # table per fast zone (HHZS §3.2, 93.9% of a zone). RocksDB 7.8 lets an
    # output above the bottom level grow to twice the target to end at a
    # boundary of the level below (level_compaction_dynamic_file_size, on by
    # default): L2 tables of 3.2-3.6 MB took two 2 MiB zones each, which
    # hhzs counts as no table slots (docs/benchmarks.md, session 89).
    "level_compaction_dynamic_file_size=false",
    # RocksDB slows writes when its compactions fall 64 GiB behind and stops
    # them at 256 GiB (soft/hard_pending_compaction_bytes_limit): sizes, so
    # scaled like the others. Unscaled, a store that flushed faster than it
    # compacted never waited, and its load left the debt to the untimed
    # settle, or without one to the phases (docs/benchmarks.md, issue 19,
    # session 93).
    f"soft_pending_compaction_bytes_limit={(64 << 30) // SCALE}",
    f"hard_pending_compaction_bytes_limit={(256 << 30) // SCALE}",
]


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
