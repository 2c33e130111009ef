#!/usr/bin/env bash
# The main demo: two emulated devices (a ZN540-like ZNS SSD and an
# ST14000-like SMR HDD) in a temporary directory; restore a tree of files into
# hintfs, list where they landed, show space per tier, check the filesystem,
# copy everything back out and compare.
set -euo pipefail
HINTFS=${1:?usage: demo.sh path/to/hintfs}
WORK=$(mktemp -d /tmp/hintfs-demo.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

echo "== devices in $WORK"
"$HINTFS" mkfs --fast "file:$WORK/ssd.img?zone_size=64MiB&zones=10&profile=zn540" \
               --slow "file:$WORK/hdd.img?zone_size=16MiB&zones=64&profile=st14000"

echo "== a tree of 200 files, some larger than a zone"
python3 - "$WORK/tree" <<'PY'
import os, random, sys
random.seed(7)
root = sys.argv[1]
for i in range(200):
    d = os.path.join(root, f"dir{i % 7}", f"sub{i % 3}")
    os.makedirs(d, exist_ok=True)
    size = random.choice([0, 1, 100, 4096, 50_000, 300_000]) if i % 50 else 90 << 20
    with open(os.path.join(d, f"file{i}.bin"), "wb") as f:
        f.write(random.randbytes(size))
PY
"$HINTFS" restore "file:$WORK/ssd.img" "$WORK/tree"

echo "== where the largest files live (tier, device:zone+bytes per extent)"
"$HINTFS" ls -lR "file:$WORK/ssd.img" | sort -k2 -n -r | head -5

echo "== space per tier"
"$HINTFS" df "file:$WORK/hdd.img"

echo "== fsck (reads every extent back)"
"$HINTFS" fsck --deep "file:$WORK/ssd.img"

echo "== backup and compare"
"$HINTFS" backup "file:$WORK/ssd.img" "$WORK/copy"
diff -r "$WORK/tree" "$WORK/copy" && echo "backup is byte-identical to the source tree"
