# Sourced by the FUSE mount test scripts (after HINTFS is set): a scratch
# directory WORK with a mountpoint MNT, removed at exit (the mount too);
# fail; and the filesystem whose first member is $WORK/ssd.img mounted
# (mount_fs [OPTIONS]), unmounted and checked (unmount_fs), or its daemon
# killed while WORKER runs, then checked (kill_daemon). The daemon's stderr
# goes to DAEMON_LOG when it is set.
#   source mount_harness.sh NAME
WORK=$(mktemp -d "/tmp/hintfs-${1:?}.XXXXXX")
MNT=$WORK/mnt
mkdir "$MNT"
cleanup() {
  umount -l "$MNT" 2>/dev/null || true
  [ -n "${DAEMON:-}" ] && kill -9 "$DAEMON" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -c /dev/fuse ] || fail "no /dev/fuse"

mount_fs() {
  "$HINTFS" mount -f "file:$WORK/ssd.img" "$MNT" "$@" 2>> "${DAEMON_LOG:-/dev/stderr}" &
  DAEMON=$!
  for _ in $(seq 100); do mountpoint -q "$MNT" && return 0; sleep 0.1; done
  fail "the mount did not come up"
}
unmount_fs() {
  umount "$MNT"
  wait "$DAEMON" || fail "the daemon exited with an error"
  DAEMON=
  "$HINTFS" fsck --deep "file:$WORK/ssd.img" >/dev/null || fail "fsck after unmount"
}
kill_daemon() {
  kill -9 "$DAEMON"
  wait "$WORKER" || true
  wait "$DAEMON" 2>/dev/null || true
  DAEMON=
  umount -l "$MNT" 2>/dev/null || fusermount3 -u -z "$MNT" 2>/dev/null || true
  "$HINTFS" fsck "file:$WORK/ssd.img" >/dev/null || fail "fsck after the kill"
}
