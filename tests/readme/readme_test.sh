#!/usr/bin/env bash
# The README's examples, run as written: every ```sh block after the first
# (the quick start, whose test command is what CI runs), in order, in one
# shell (set -e) started in the source directory, as root. Blocks fenced as
# ```text are synopses or need real drives; a block with no language is an
# error, so each block is one or the other on purpose.
#
# The examples write to /tmp/x and mount at /mnt/hintfs: they run in a mount
# namespace of their own with fresh tmpfs there, so nothing of the machine's
# is touched. BUILD, if not SOURCE/build, is bind-mounted there.
#   bash readme_test.sh SOURCE BUILD
set -euo pipefail
SOURCE=$(readlink -f "${1:?usage: readme_test.sh SOURCE BUILD}")
BUILD=$(readlink -f "${2:?usage: readme_test.sh SOURCE BUILD}")
WORK=$(mktemp -d /tmp/hintfs-readme.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

python3 - "$SOURCE/README.md" "$WORK/examples.sh" <<'PY' || fail "README blocks"
import re, sys
text = open(sys.argv[1]).read().split("\n")
blocks, current, lang, start = [], None, None, 0
for n, line in enumerate(text, 1):
    if line.startswith("```"):
        if current is None:
            current, lang, start = [], line[3:].strip(), n
        else:
            blocks.append((start, lang, current))
            current = None
    elif current is not None:
        current.append(line)
if current is not None:
    sys.exit("README.md:%d: a block is not closed" % start)
untagged = [s for s, l, _ in blocks if l not in ("sh", "text")]
if untagged:
    sys.exit("README.md: blocks without sh or text: lines %s" % untagged)
runnable = [(s, body) for s, l, body in blocks[1:] if l == "sh"]
if len(runnable) < 3:
    sys.exit("README.md: only %d runnable blocks" % len(runnable))
with open(sys.argv[2], "w") as out:
    out.write("set -euo pipefail\n")
    for start, body in runnable:
        out.write("echo '--- README.md line %d' >&2\n" % start)
        out.write("\n".join(body) + "\n")
print("%d runnable blocks, %d text blocks" % (len(runnable), sum(l == "text" for _, l, _ in blocks)))
PY

# mount points made here are left for the namespace's tmpfs to hide
made=()
for d in /tmp/x /mnt; do [ -d "$d" ] || { mkdir -p "$d"; made+=("$d"); }; done
rc=0
unshare --mount --propagation private -- bash -c '
  set -euo pipefail
  mount -t tmpfs hintfs-readme /tmp/x
  mount -t tmpfs hintfs-readme /mnt
  if [ "$2" != "$1/build" ]; then mkdir -p "$1/build" && mount --bind "$2" "$1/build"; fi
  cd "$1"
  bash "$3"
  # The mount daemon exits a moment after umount; wait for it, so the
  # images are closed when the namespace goes.
  for _ in $(seq 100); do pgrep -f "hintfs mount" >/dev/null || break; sleep 0.1; done
' readme "$SOURCE" "$BUILD" "$WORK/examples.sh" > "$WORK/out.txt" 2>&1 || rc=$?
for d in "${made[@]}"; do rmdir "$d" 2>/dev/null || true; done
if [ "$rc" -ne 0 ]; then
  tail -30 "$WORK/out.txt"
  fail "a README example failed (exit status $rc; the last '--- README.md line' above names its block)"
fi
grep -c -- "--- README.md line" "$WORK/out.txt" | xargs -I{} echo "README examples: {} blocks ran"
echo "readme examples: ok"
