#!/usr/bin/env bash
# Writes a recorded trace onto a fresh emulated ZN540-sized image (40 x 16 MiB
# zones, $ZONES to change) under fast-first:lifetime=hint and prints what GC
# relocated. With HINTS-FILE (classes.py's output) a build with
# hints-from-file.patch ($HINTFS) gives those tables those hints instead of
# the store's.
#   HINTFS=... [WORK=/tmp] bash apply.sh TRACE-PREFIX LABEL [HINTS-FILE] [trace apply options...]
set -euo pipefail
trace=$1 label=$2 hints=${3:-}
shift $(($# < 3 ? $# : 3))
hintfs=${HINTFS:?HINTFS: a hintfs built with hints-from-file.patch}
img=${WORK:-/tmp}/apply-$label.img stats=${WORK:-/tmp}/apply-$label.json out=${WORK:-/tmp}/apply-$label.txt
rm -f "$img" "$stats"
"$hintfs" mkfs --policy fast-first:lifetime=hint --fast "file:$img?zone_size=16MiB&zones=${ZONES:-40}" >/dev/null
for t in "$trace".*; do
  if ! HINTFS_HINTS_FROM=$hints "$hintfs" trace apply "$@" "$t" "file:$img?stats=$stats" >"$out" 2>&1; then
    echo "$label FAILED $(tail -1 "$out")"
    exit 0
  fi
done
python3 - "$label" "$stats" <<'PY'
import json, sys
label, stats = sys.argv[1:]
j = json.load(open(stats))
w = sum(j["bytes_written"].values())
print(f"{label} GC {j['gc_bytes_moved'] / 2**20:.0f} MiB written {w / 2**20:.0f} "
      f"freed {j['gc_zones_freed']} resets {j['zone_resets']}")
PY
rm -f "$img"
