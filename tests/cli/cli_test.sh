#!/usr/bin/env bash
# Acceptance test of the hintfs tool, as a user runs it: mkfs on two file
# devices, restore a few hundred random files (some larger than a zone),
# backup gives a byte-identical tree (the SSD cache's files left out), fsck passes, df --json accounts for every
# byte, bad arguments exit 2, a corrupt image makes fsck fail; the exit
# statuses of the README's table, help and version, and errors that say
# what to do.
set -euo pipefail
HINTFS=${1:?usage: cli_test.sh path/to/hintfs}
WORK=$(mktemp -d /tmp/hintfs-cli.XXXXXX)
trap 'rm -rf "$WORK"' EXIT; [ -n "${KEEP:-}" ] && trap - EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

FAST="file:$WORK/ssd.img?zone_size=4MiB&zones=12"
SLOW="file:$WORK/hdd.img?zone_size=2MiB&zones=80"
"$HINTFS" mkfs --fast "$FAST" --slow "$SLOW" >/dev/null

python3 - "$WORK/src" <<'PY'
import os, random, sys
random.seed(11)
root = sys.argv[1]
for i in range(300):
    d = os.path.join(root, f"d{i % 9}", f"e{i % 4}")
    os.makedirs(d, exist_ok=True)
    size = random.choice([0, 1, 511, 4096, 4097, 33_333, 200_000])
    if i % 60 == 0:
        size = random.randint(5 << 20, 9 << 20)  # larger than any zone
    with open(os.path.join(d, f"f{i}"), "wb") as f:
        f.write(random.randbytes(size))
    if i % 7 == 0:
        os.chmod(os.path.join(d, f"f{i}"), 0o600 + i % 0o100)
# Symbolic links, one dangling, a FIFO, and a directory of its own mode.
os.symlink(f"e0/f0", os.path.join(root, "d0", "link-to-f0"))
os.symlink("../../nowhere", os.path.join(root, "d1", "e1", "dangling"))
os.chmod(os.path.join(root, "d2"), 0o750)
os.mkfifo(os.path.join(root, "d3", "fifo"), 0o640)
PY
"$HINTFS" restore "file:$WORK/ssd.img" "$WORK/src" >/dev/null
"$HINTFS" backup "file:$WORK/hdd.img" "$WORK/out" >/dev/null
# diff cannot compare FIFOs (it reports them as differing): the modes check below covers them.
diff -r --no-dereference -x fifo "$WORK/src" "$WORK/out" >/dev/null || fail "backup differs from the restored tree"
python3 - "$WORK/src" "$WORK/out" <<'PY' || fail "backup lost modes or links"
import os, sys
def modes(root):
    out = {}
    for d, dirs, files in os.walk(root):
        for n in dirs + files:
            p = os.path.join(d, n)
            st = os.lstat(p)
            out[os.path.relpath(p, root)] = (st.st_mode, os.readlink(p) if os.path.islink(p) else None)
    return out
a, b = modes(sys.argv[1]), modes(sys.argv[2])
assert a == b, sorted(set(a.items()) ^ set(b.items()))[:4]
PY
"$HINTFS" fsck --deep "file:$WORK/ssd.img" >/dev/null || fail "fsck after restore"

# Every byte of every device is accounted for, and files add up to the tree.
"$HINTFS" df --json "file:$WORK/ssd.img" > "$WORK/df.json"
python3 - "$WORK/df.json" "$WORK/src" <<'PY' || fail "df --json accounting"
import json, os, sys
devices = json.load(open(sys.argv[1]))["devices"]
files = sum(os.lstat(os.path.join(d, f)).st_size for d, _, fs in os.walk(sys.argv[2]) for f in fs
            if not os.path.islink(os.path.join(d, f)))
for d in devices:
    parts = d["reserved_bytes"] + d["unusable_bytes"] + d["live_bytes"] + d["garbage_bytes"] + d["free_bytes"]
    assert parts == d["raw_bytes"], (d, parts)
assert sum(d["file_bytes"] for d in devices) == files, "file bytes"
assert {d["tier"] for d in devices} == {"fast", "slow"}
assert any(d["file_bytes"] > 0 for d in devices if d["tier"] == "slow"), "nothing spilled to slow"
PY

"$HINTFS" ls -l "file:$WORK/ssd.img" /d0/e0 > "$WORK/ls.txt"
grep -q "^file" "$WORK/ls.txt" || fail "ls -l"
"$HINTFS" dump --json "file:$WORK/ssd.img" | python3 -c 'import json,sys; j=json.load(sys.stdin); assert j["files"] and j["zones"]' \
  || fail "dump --json"
"$HINTFS" info --json "file:$WORK/hdd.img" | python3 -c 'import json,sys; assert len(json.load(sys.stdin)["members"]) == 2' \
  || fail "info --json"
# Migration and cache counters are always there (zeros before any run).
"$HINTFS" info --json "file:$WORK/hdd.img" | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["migration"]["to_fast_bytes"] == 0 and "capacity" in j["migration"]["moves"], j["migration"]
assert j["cache"]["hits"] == 0 and "hit_ratio" in j["cache"], j["cache"]' || fail "info --json migration/cache"

# The exit-status table: runs hintfs with the arguments after the first two,
# checks the status, and keeps its one line of stderr in $WORK/err.txt.
expect_status() {
  local want=$1 what=$2 rc=0
  shift 2
  "$HINTFS" "$@" >/dev/null 2>"$WORK/err.txt" || rc=$?
  [ "$rc" -eq "$want" ] || { cat "$WORK/err.txt"; fail "$what: 'hintfs $*' exited $rc, not $want"; }
}

# Help and version: standard output, exit 0; help COMMAND shows defaults and examples.
"$HINTFS" --version | grep -qx "hintfs [0-9.]*" || fail "hintfs --version"
"$HINTFS" help mkfs | grep -q -- "--meta-zones UINT.*=3" || fail "help mkfs shows no defaults"
for cmd in mkfs info df ls dump fsck gc cat backup restore replay mount; do
  "$HINTFS" help "$cmd" | grep -q "^Examples\?" || fail "help $cmd shows no example"
done
"$HINTFS" help | grep -q "Exit status" || fail "help does not give the exit statuses"

# Bad usage: one line on stderr, exit status 2.
expect_usage_error() {
  local rc=0 err
  err=$("$HINTFS" "$@" 2>&1 >/dev/null) || rc=$?
  [ "$rc" -eq 2 ] || fail "'hintfs $*' exited $rc, not 2"
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "'hintfs $*' printed more than one line: $err"
}
expect_usage_error
expect_usage_error frobnicate
expect_usage_error info
expect_usage_error mkfs --slow "$SLOW"
expect_usage_error mkfs --fast "$FAST" --meta-zones 1
expect_usage_error ls "file:$WORK/ssd.img" / --bogus
expect_usage_error gc "file:$WORK/ssd.img" --zones 0
expect_usage_error info "nope:$WORK/ssd.img"
expect_usage_error info "file:$WORK/ssd.img?bogus=1"
expect_usage_error fsck "file:$WORK/ssd.img?fail_read=abc"
expect_usage_error mkfs --fast "file:$WORK/new.img?zones=8&profile=nosuchprofile"
expect_usage_error help nosuchcommand
expect_usage_error replay "$WORK/any.trace"  # --policy is required

# A copied set: refused until its other member is named; then it is a filesystem of its own.
cp "$WORK/ssd.img" "$WORK/ssd-copy.img"
cp "$WORK/hdd.img" "$WORK/hdd-copy.img"
if "$HINTFS" info "file:$WORK/ssd-copy.img" 2>"$WORK/err.txt"; then fail "a copied member opened the original's"; fi
grep -q -- "--member 1=URI" "$WORK/err.txt" || fail "the refusal of a copy does not say how to name members"
"$HINTFS" fsck "file:$WORK/ssd-copy.img" --member "1=file:$WORK/hdd-copy.img" >/dev/null || fail "fsck of a named copy"
expect_usage_error info "file:$WORK/ssd-copy.img" --member "x=file:$WORK/hdd-copy.img"
rm -f "$WORK/ssd-copy.img" "$WORK/hdd-copy.img"

# Damaged data: reads fail rather than return it; backup --salvage copies the rest; fsck --deep
# finds it and fsck --repair sets the file aside, keeping every other file.
read -r victim offset < <("$HINTFS" dump --json "file:$WORK/ssd.img" | python3 -c '
import json, sys
for f in json.load(sys.stdin)["files"]:
    for e in f.get("extents", []):
        if e["device"] == 0 and e["length"] > 8192:
            print(f["path"], e["offset"] + 5000); sys.exit()')
[ -n "$victim" ] || fail "no file on the fast tier to damage"
printf '\xa5' | dd of="$WORK/ssd.img" bs=1 seek=$((1048576 + offset)) conv=notrunc status=none
if "$HINTFS" cat "file:$WORK/ssd.img" "$victim" >/dev/null 2>"$WORK/err.txt"; then fail "cat served damaged data"; fi
grep -q "checksum mismatch" "$WORK/err.txt" || fail "the damaged read does not say why"
"$HINTFS" fsck "file:$WORK/ssd.img" >/dev/null || fail "fsck (without --deep) should not read data"
expect_status 3 "damaged data" fsck --deep "file:$WORK/ssd.img"
expect_status 3 "damaged data" backup --salvage "file:$WORK/ssd.img" "$WORK/salvaged"
grep -q "$victim: .* unreadable" "$WORK/err.txt" || fail "backup --salvage does not name the damaged file"
cmp -s "$WORK/src/d1/e1/f1" "$WORK/salvaged/d1/e1/f1" || fail "backup --salvage lost an intact file"
"$HINTFS" fsck --repair "file:$WORK/ssd.img" > "$WORK/repair.txt" || fail "fsck --repair"
grep -q "$victim moved to /lost+found/" "$WORK/repair.txt" || fail "fsck --repair did not set $victim aside"
"$HINTFS" fsck --deep "file:$WORK/ssd.img" >/dev/null || fail "fsck --deep after repair"
"$HINTFS" backup "file:$WORK/ssd.img" "$WORK/after" >/dev/null 2>&1 || true
cmp -s "$WORK/src/d1/e1/f1" "$WORK/after/d1/e1/f1" || fail "fsck --repair lost an intact file"

# Refusals: exit 1 and a line that says what to do.
expect_status 1 "an existing filesystem" mkfs --fast "$FAST" --slow "$SLOW"
grep -q -- "--force" "$WORK/err.txt" || fail "mkfs refusal does not name --force"
expect_status 1 "a missing image" info "file:$WORK/missing.img"
grep -q "no device image at $WORK/missing.img: make one with hintfs mkfs" "$WORK/err.txt" || fail "missing image: $(cat "$WORK/err.txt")"
: > "$WORK/blank.img"
for cmd in info df ls fsck; do
  expect_status 1 "a blank file" "$cmd" "file:$WORK/blank.img"
  grep -q "is not a hintfs device image" "$WORK/err.txt" || fail "blank file, $cmd: $(cat "$WORK/err.txt")"
done
expect_status 1 "a missing directory" mkfs --fast "file:$WORK/nodir/ssd.img"
grep -q "directory $WORK/nodir does not exist" "$WORK/err.txt" || fail "missing directory: $(cat "$WORK/err.txt")"
# Damage: exit 3.
# Damage the payload of the second batch (the second block) of the active journal zone: image
# data begins at 1 MiB, zones are 4 MiB, a batch header is 40 bytes.
zone=$("$HINTFS" info --json "file:$WORK/ssd.img" | python3 -c 'import json,sys; print(json.load(sys.stdin)["journal"]["active_zone"])')
printf '\xff\xff\xff\xff' | dd of="$WORK/ssd.img" bs=1 seek=$((1048576 + zone * 4194304 + 4096 + 40)) conv=notrunc status=none
before=$(md5sum "$WORK/ssd.img")
expect_status 3 "a corrupt journal" fsck "file:$WORK/ssd.img"
[ "$before" = "$(md5sum "$WORK/ssd.img")" ] || fail "fsck wrote to a corrupt image"
# fsck --repair replays the journal up to the damage and brings the filesystem back.
"$HINTFS" fsck --repair "file:$WORK/ssd.img" > "$WORK/repair.txt" || { cat "$WORK/repair.txt"; fail "fsck --repair of a damaged journal"; }
grep -q "repaired: journal damaged" "$WORK/repair.txt" || fail "fsck --repair does not say what it found"
"$HINTFS" fsck --deep "file:$WORK/ssd.img" >/dev/null || fail "fsck after repairing the journal"
# The SSD cache's files (copies of table blocks, of no use under new inodes) stay out of a backup.
"$HINTFS" mkfs --fast "file:$WORK/ssd2.img?zone_size=4MiB&zones=12" --slow "file:$WORK/hdd2.img?zone_size=2MiB&zones=20" >/dev/null
mkdir -p "$WORK/src2/.hintfs-cache"
echo cached > "$WORK/src2/.hintfs-cache/0000000000000001"; echo kept > "$WORK/src2/keep"
"$HINTFS" restore "file:$WORK/ssd2.img" "$WORK/src2" >/dev/null
"$HINTFS" backup "file:$WORK/ssd2.img" "$WORK/out2" >/dev/null
[ -f "$WORK/out2/keep" ] && [ ! -e "$WORK/out2/.hintfs-cache" ] || fail "backup copied the SSD cache's files"
echo "cli acceptance: ok"
