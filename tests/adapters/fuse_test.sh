#!/usr/bin/env bash
# The FUSE mount end to end (root, /dev/fuse): the random-operation checker
# against a model, with and without the kernel's write-back cache; LevelDB
# and RocksDB unmodified on the mount; table levels
# read from their MANIFESTs visible in `hintfs ls -l`; the daemon killed
# with SIGKILL mid-workload, then every synced byte (and, without fsync, every
# byte the daemon answered) found after a remount;
# the fio mount jobs; clean fsck after each unmount.
#   bash fuse_test.sh HINTFS FUSE_CHECKER FUSE_STORES FIO_RUN_SH
set -euo pipefail
HINTFS=$(readlink -f "${1:?}") CHECKER=$(readlink -f "${2:?}") STORES=$(readlink -f "${3:?}") FIO_RUN=$(readlink -f "${4:?}")
source "$(dirname "$0")/mount_harness.sh" fuse

"$HINTFS" mkfs --policy b2 --fast "file:$WORK/ssd.img?zone_size=2MiB&zones=64" \
               --slow "file:$WORK/hdd.img?zone_size=2MiB&zones=512" >/dev/null

# 0. A bad mount option: one line naming it, exit status 2, nothing mounted.
rc=0
"$HINTFS" mount -f -o no_such_option "file:$WORK/ssd.img" "$MNT" 2> "$WORK/err.txt" || rc=$?
[ "$rc" -eq 2 ] || fail "bad mount option: exit status $rc, expected 2"
[ "$(wc -l < "$WORK/err.txt")" -eq 1 ] && grep -q no_such_option "$WORK/err.txt" ||
  { cat "$WORK/err.txt" >&2; fail "bad mount option: expected one line naming it"; }
mountpoint -q "$MNT" && fail "mounted despite a bad option"
# metrics on a port the detached daemon could not name: bad usage too.
rc=0
"$HINTFS" mount "file:$WORK/ssd.img?metrics=127.0.0.1:0" "$MNT" 2> "$WORK/err.txt" || rc=$?
[ "$rc" -eq 2 ] && grep -q "needs -f" "$WORK/err.txt" || { cat "$WORK/err.txt" >&2; fail "metrics port 0, detached: exit $rc"; }
mountpoint -q "$MNT" && fail "mounted with metrics on port 0"

# 1. Random operations against a model; seeds are printed on failure. First
# without the kernel's write-back cache (every write reaches the daemon when
# made), then with it (the default): there pages come back whole and out of
# order, which the checker's held-open files provoke.
mount_fs -o no_writeback_cache
mkdir "$MNT/chk10"
"$CHECKER" ops "$MNT/chk10" 10 2500 || fail "checker seed 10 (no write-back cache)"
unmount_fs
mount_fs
for seed in 11 12 13; do
  mkdir "$MNT/chk$seed"
  "$CHECKER" ops "$MNT/chk$seed" "$seed" 2500 || fail "checker seed $seed"
done
# A file open for appending whose directory is renamed before its bytes
# reach the daemon: the write-back finds the file under its new path.
python3 - "$MNT" <<'PY' || fail "append after a directory rename"
import os, sys
m = sys.argv[1]
os.mkdir(m + "/dir1")
with open(m + "/dir1/f", "w") as f:
    f.write("first\n")
fd = os.open(m + "/dir1/f", os.O_WRONLY | os.O_APPEND)
os.rename(m + "/dir1", m + "/dir2")
os.write(fd, b"second\n")
os.fsync(fd)
os.close(fd)
PY
echo 1 > /proc/sys/vm/drop_caches  # what the daemon holds, not the kernel's copy
[ "$(cat "$MNT/dir2/f")" = "$(printf 'first\nsecond')" ] || fail "content after a directory rename"
# An open file reads its own bytes after its name is unlinked or renamed
# over, first read after the change included: a mapping of a file renamed
# over (git's index and its lock file) read the new file short and died of
# SIGBUS. The kernel's copies are dropped so that the reads reach the daemon.
python3 - "$MNT" <<'PY' || fail "reads of a file unlinked or renamed over"
import mmap, os, sys
m = sys.argv[1]
def put(name, data):
    with open(m + "/" + name, "wb") as f:
        f.write(data)
def drop():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("1\n")
put("gone", b"g" * 100000)
put("old", b"o" * 100000)
put("new", b"n" * 3000)
drop()
gone, old = os.open(m + "/gone", os.O_RDONLY), os.open(m + "/old", os.O_RDONLY)
mapped = mmap.mmap(old, 100000, prot=mmap.PROT_READ)
os.unlink(m + "/gone")
os.rename(m + "/new", m + "/old")
drop()
assert os.pread(gone, 100000, 0) == b"g" * 100000, "unlinked"
assert os.pread(old, 100000, 0) == b"o" * 100000, "renamed over"
assert mapped[:] == b"o" * 100000, "mapping of a file renamed over"
mapped.close()
# A file open for writing that is renamed over takes its later writes.
put("w", b"w" * 1000)
written = os.open(m + "/w", os.O_RDWR)
put("w.new", b"x" * 10)
os.rename(m + "/w.new", m + "/w")
os.pwrite(written, b"more", 1000)
os.fsync(written)
drop()
assert os.pread(written, 2000, 0) == b"w" * 1000 + b"more", "written after a rename over"
assert open(m + "/w", "rb").read() == b"x" * 10, "the file that took the name is untouched"
for fd in (gone, old, written):
    try:
        os.close(fd)
    except OSError:
        pass  # libfuse cannot name the file for the kernel's time update at close (EIO)
assert open(m + "/old", "rb").read() == b"n" * 3000, "the name holds the new file"
PY
[ -f "$MNT/.hintfs/stats.json" ] || fail "no .hintfs/stats.json"
python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
m = j["mount"]
assert j["files"] > 0, j
assert m["writeback_cache"] and m["held_writes"] > 0 and m["failed_writes"] == 0 and m["held_bytes"] == 0, m
assert j["overwritten_bytes"] > 0, j
' "$MNT/.hintfs/stats.json" || fail "stats.json"
grep -q '^hintfs_bytes_written_fast ' "$MNT/.hintfs/metrics" || fail "metrics"
grep -q '^hintfs_mount_held_writes ' "$MNT/.hintfs/metrics" || fail "metrics of the mount"
df "$MNT" >/dev/null || fail "statfs"

# 2. LevelDB and RocksDB with their own default Env/FileSystem.
"$STORES" "$MNT" || fail "stores on the mount"
unmount_fs
# Placement by level on the mount: levels are guessed before a table's
# first byte from the tables running compactions read (no lifetime hints
# reach a FUSE mount); without lifetime hints a flush that runs during a
# compaction is taken for a compaction output, so the share placed by the
# right level is printed, and the recorded levels are required.
right=0 tables=0
for db in leveldb rocksdb; do
  "$HINTFS" ls -l "file:$WORK/ssd.img" /$db > "$WORK/ls.txt"
  grep -qE ' L[0-9]+ .*\.(ldb|sst)' "$WORK/ls.txt" || { cat "$WORK/ls.txt"; fail "no $db table has a level"; }
  right=$((right + $(grep -cE ' L[01] +fast | L[2-9] +slow ' "$WORK/ls.txt" || true)))
  tables=$((tables + $(grep -cE ' L[0-9]+ +(fast|slow) ' "$WORK/ls.txt" || true)))
done
echo "b2 on the mount: $right of $tables tables on the tier their level calls for"

# 3. SIGKILL the daemon mid-workload; synced data survives a remount.
mount_fs
mkdir "$MNT/crash"
"$CHECKER" crash "$MNT/crash" "$WORK/synced.log" 7 &
WORKER=$!
sleep 3
kill_daemon
mount_fs
"$CHECKER" verify "$MNT/crash" "$WORK/synced.log" 7 || fail "synced data lost across the kill"

# 3b. The same without fsync: bytes the kernel wrote back to the daemon
# (sync_file_range) survive the daemon's death, as they would survive a
# killed process on a kernel filesystem.
mkdir "$MNT/crash-nosync"
"$CHECKER" crash-nosync "$MNT/crash-nosync" "$WORK/handed.log" 8 &
WORKER=$!
sleep 3
kill_daemon
mount_fs
"$CHECKER" verify "$MNT/crash-nosync" "$WORK/handed.log" 8 || fail "bytes the daemon took lost across the kill"

# 4. The fio mount jobs, briefly; their output is checked for errors, not speed.
DIR=$MNT SIZE=8M RUNTIME=1 bash "$FIO_RUN" "$(dirname "$FIO_RUN")/mount.fio" || fail "fio mount jobs"
unmount_fs

# 5. The SSD block cache matches whole data blocks, which page-sized kernel
# reads never are: the mount leaves it off, even under a policy that runs
# it, unless the spec asks for it.
"$HINTFS" mkfs --force --policy hhzs --fast "file:$WORK/ssd.img?zone_size=2MiB&zones=64" \
               --slow "file:$WORK/hdd.img?zone_size=2MiB&zones=512" >/dev/null
for spec in "" "?cache=all"; do
  "$HINTFS" mount -f "file:$WORK/ssd.img$spec" "$MNT" &
  DAEMON=$!
  for _ in $(seq 100); do mountpoint -q "$MNT" && break; sleep 0.1; done
  mountpoint -q "$MNT" || fail "the mount did not come up"
  python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert ("cache" in j) == (sys.argv[2] != ""), (sys.argv[2], sorted(j))
' "$MNT/.hintfs/stats.json" "$spec" || fail "block cache on the mount with spec '$spec'"
  unmount_fs
done
# 6. info, df, ls and dump of the filesystem while the daemon has it: a
# snapshot as of its last sync (a synced file is in it), said on stderr;
# fsck, which must see a quiet filesystem, is refused.
mount_fs
mkdir "$MNT/live"
python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o644)
os.write(fd, b"y" * 123456)
os.fsync(fd)
os.close(fd)
d = os.open(os.path.dirname(sys.argv[1]), os.O_RDONLY)
os.fsync(d)
os.close(d)' "$MNT/live/synced"
"$HINTFS" ls -l "file:$WORK/ssd.img" /live > "$WORK/live.txt" 2> "$WORK/live.err" || { cat "$WORK/live.err"; fail "ls of a mounted filesystem"; }
grep -q "123456 .*/live/synced" "$WORK/live.txt" || { cat "$WORK/live.txt"; fail "the synced file is not in the live ls"; }
grep -q "in use by another process: shown as of its last sync" "$WORK/live.err" || fail "live ls does not say it is a snapshot"
for cmd in info df dump; do
  "$HINTFS" "$cmd" --json "file:$WORK/ssd.img" 2>/dev/null | python3 -c 'import json, sys; json.load(sys.stdin)' ||
    fail "$cmd --json of a mounted filesystem"
done
rc=0; "$HINTFS" fsck "file:$WORK/ssd.img" >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 1 ] || fail "fsck of a mounted filesystem exited $rc, not 1"
unmount_fs
echo "fuse mount: ok"
