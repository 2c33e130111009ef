#!/usr/bin/env bash
# Other people's programs on the FUSE mount (root, /dev/fuse), as on any
# filesystem: SQLite in every journal mode (random transactions against a
# model, integrity_check, and committed transactions surviving the daemon's
# SIGKILL mid-transaction), git (init, commit, gc, clone), tar, and rsync
# (-a, --inplace) when installed, with symbolic links and modes kept across
# remounts; the mount's name and type, fallocate, and
# a second mount on a busy mountpoint refused, permissions checked, -o ro;
# clean fsck after each unmount.
#   bash programs_test.sh HINTFS SQLITE_CHECK_PY
set -euo pipefail
HINTFS=$(readlink -f "${1:?}") SQLITE_CHECK=$(readlink -f "${2:?}")
source "$(dirname "$0")/mount_harness.sh" programs
DAEMON_LOG=$WORK/daemon.log

"$HINTFS" mkfs --fast "file:$WORK/ssd.img?zone_size=2MiB&zones=64" \
               --slow "file:$WORK/hdd.img?zone_size=2MiB&zones=256" >/dev/null

# 1. SQLite, every journal mode, against a model.
mount_fs
mkdir "$MNT/sqlite"
python3 "$SQLITE_CHECK" ops "$MNT/sqlite" 1 2000 || { tail -3 "$WORK/daemon.log"; fail "sqlite"; }

# 2. The daemon killed mid-transaction: every transaction whose COMMIT
# returned is there after a remount, and the database is sound.
for mode in delete wal; do
  python3 "$SQLITE_CHECK" crash "$MNT/sqlite" "$WORK/$mode.log" "$mode" &
  WORKER=$!
  sleep 3
  kill_daemon
  mount_fs
  python3 "$SQLITE_CHECK" verify "$MNT/sqlite" "$WORK/$mode.log" "$mode" || fail "sqlite $mode after the kill"
done

# 2b. A file opened "r+" and written in the middle (the case that failed at
# close with EINVAL before overwrites existed), then read back after a remount.
python3 - "$MNT/rplus" <<'PY' || fail "python r+ write"
import sys
p = sys.argv[1]
with open(p, "wb") as f:
    f.write(b"a" * 10000)
with open(p, "r+b") as f:
    f.seek(4000)
    f.write(b"MIDDLE")
PY
unmount_fs
mount_fs
python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); assert d == b"a" * 4000 + b"MIDDLE" + b"a" * 5994, len(d)' \
  "$MNT/rplus" || fail "python r+ bytes after a remount"

# 3. git: a repository with history, packed by gc, cloned, checked.
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
git -c init.defaultBranch=main init -q "$MNT/repo" || fail "git init"
for i in $(seq 20); do
  seq "$i" 2000 > "$MNT/repo/file$((i % 5))"
  git -C "$MNT/repo" add -A && git -C "$MNT/repo" commit -qm "commit $i" || fail "git commit $i"
done
git -C "$MNT/repo" gc -q || fail "git gc"
git -C "$MNT/repo" fsck --strict 2>/dev/null || fail "git fsck"
git clone -q "$MNT/repo" "$MNT/clone" || fail "git clone"
[ "$(git -C "$MNT/clone" rev-list --count HEAD)" = 20 ] || fail "the clone lacks commits"
cmp "$MNT/repo/file3" "$MNT/clone/file3" || fail "the clone's files differ"

# 4. tar out of and into the mount, and rsync if installed, of a tree with
# symbolic links (a dangling one too) and modes.
mkdir -p "$WORK/src/sub"
seq 100000 > "$WORK/src/sub/numbers"
head -c 300000 /dev/urandom > "$WORK/src/random"
ln -s sub/numbers "$WORK/src/link-to-numbers"
ln -s ../nowhere "$WORK/src/sub/dangling"
chmod 600 "$WORK/src/random"
chmod 2750 "$WORK/src/sub"
tar -C "$WORK/src" -cf "$MNT/src.tar" . || fail "tar to the mount"
mkdir "$MNT/untarred"
tar -C "$MNT/untarred" -xf "$MNT/src.tar" || fail "tar from the mount"
diff -r --no-dereference "$WORK/src" "$MNT/untarred" || fail "untarred tree differs"
if command -v rsync >/dev/null; then
  rsync -a "$WORK/src/" "$MNT/rsynced/" || fail "rsync -a"
  head -c 1000 /dev/urandom | dd of="$WORK/src/random" bs=1000 seek=50 conv=notrunc status=none
  # -I: the change keeps size and may keep the mtime second, which rsync would skip.
  rsync -a -I --inplace --no-whole-file "$WORK/src/" "$MNT/rsynced/" || fail "rsync --inplace"
  diff -r --no-dereference "$WORK/src" "$MNT/rsynced" || fail "rsynced tree differs"
else
  echo "rsync not installed: skipped"
fi

# 5. Links, FIFOs, device nodes, modes and owners are kept across a remount.
ln -s /some/target "$MNT/abs-link"
[ "$(readlink "$MNT/abs-link")" = /some/target ] || fail "readlink"
chmod 640 "$MNT/falloc-mode" 2>/dev/null && fail "chmod of a missing file"
printf x > "$MNT/owned"
chown 1234:567 "$MNT/owned" && chmod 4711 "$MNT/owned" || fail "chown/chmod"
mkdir -m 700 "$MNT/private"
# FIFOs and device nodes are recorded and served by the kernel.
mkfifo "$MNT/fifo" || fail "mkfifo"
mknod "$MNT/null" c 1 3 || fail "mknod"
unmount_fs
mount_fs -o allow_other  # so that another user can try
[ "$(readlink "$MNT/abs-link")" = /some/target ] || fail "readlink after a remount"
[ "$(readlink "$MNT/untarred/link-to-numbers")" = sub/numbers ] || fail "untarred link after a remount"
[ "$(stat -c '%a %u %g' "$MNT/owned")" = "4711 1234 567" ] || fail "mode and owner after a remount: $(stat -c '%a %u %g' "$MNT/owned")"
[ "$(stat -c '%a' "$MNT/private")" = 700 ] || fail "mkdir -m 700 gave $(stat -c %a "$MNT/private")"
[ "$(stat -c '%a' "$MNT/untarred/sub")" = 2750 ] || fail "untarred directory mode"
# The kernel checks the modes kept (default_permissions): another user
# cannot read a 0600 file of root, and can once it is 0644.
chmod 755 "$WORK"
printf secret > "$MNT/secret"
chmod 600 "$MNT/secret"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
as_nobody cat "$MNT/secret" >/dev/null 2>&1 && fail "nobody read a 0600 file of root"
chmod 644 "$MNT/secret"
[ "$(as_nobody cat "$MNT/secret")" = secret ] || fail "nobody could not read a 0644 file"
as_nobody sh -c "echo x > '$MNT/secret'" 2>/dev/null && fail "nobody wrote a 0644 file of root"

[ -p "$MNT/fifo" ] || fail "the FIFO is gone after a remount"
[ "$(stat -c '%F %t:%T' "$MNT/null")" = "character special file 1:3" ] ||
  fail "device node after a remount: $(stat -c '%F %t:%T' "$MNT/null")"
(echo "through the fifo" > "$MNT/fifo") &
WRITER=$!
[ "$(cat "$MNT/fifo")" = "through the fifo" ] || fail "bytes through the FIFO"
wait "$WRITER" || fail "the FIFO's writer failed"

# 6. What `mount` and `df` call it; fallocate; a second mount on the same
# mountpoint is refused (exit status 1, one line) and the first keeps serving.
findmnt -n -o SOURCE,FSTYPE "$MNT" | grep -qx 'hintfs *fuse.hintfs' ||
  { findmnt "$MNT"; fail "the mount is not named hintfs of type fuse.hintfs"; }
df "$MNT" | grep -q '^hintfs ' || fail "df does not name the mount hintfs"
printf abc > "$MNT/falloc"
fallocate -l 100000 "$MNT/falloc" || fail "fallocate"
[ "$(stat -c %s "$MNT/falloc")" = 100000 ] || fail "fallocate did not extend the file"
fallocate -n -l 300000 "$MNT/falloc" || fail "fallocate --keep-size"
[ "$(stat -c %s "$MNT/falloc")" = 100000 ] || fail "fallocate --keep-size changed the size"
fallocate -p -o 0 -l 10 "$MNT/falloc" 2>/dev/null && fail "hole punching claimed to work"
[ "$(head -c 3 "$MNT/falloc")" = abc ] && [ "$(tail -c +4 "$MNT/falloc" | tr -d '\0' | wc -c)" = 0 ] ||
  fail "fallocate changed the bytes"
rc=0
"$HINTFS" mount -f "file:$WORK/ssd.img" "$MNT" 2> "$WORK/err.txt" || rc=$?
[ "$rc" -eq 1 ] && [ "$(wc -l < "$WORK/err.txt")" -eq 1 ] && grep -q 'already a mount point' "$WORK/err.txt" ||
  { cat "$WORK/err.txt"; fail "a second mount on $MNT: exit status $rc"; }
[ "$(head -c 3 "$MNT/falloc")" = abc ] || fail "the first mount stopped serving"
unmount_fs

# 7. -o ro: reads work, every change is refused (EROFS), and the daemon
# writes nothing to the images (not even the records of mount and unmount).
images_sum() { sha256sum "$WORK/ssd.img" "$WORK/hdd.img"; }
before=$(images_sum)
mount_fs -o ro
[ "$(head -c 3 "$MNT/falloc")" = abc ] || fail "read on a read-only mount"
printf x 2>/dev/null > "$MNT/new-file" && fail "a file was created on a read-only mount"
mkdir "$MNT/new-dir" 2>/dev/null && fail "a directory was made on a read-only mount"
umount "$MNT"
wait "$DAEMON" || fail "the read-only daemon exited with an error"
DAEMON=
[ "$(images_sum)" = "$before" ] || fail "a read-only mount changed the images"
mount_fs
unmount_fs
echo "programs on the mount: ok"
