#!/usr/bin/env bash
# The README's demo, scaled down (a tenth of the keys, 5 s of reads): both
# runs complete, the side-by-side report names a ratio, every level row has
# both schemes, both filesystems check clean and the plot is drawn. What it
# measures at this size means nothing; the full demo's figures are in
# docs/benchmarks.md.
#   bash demo_test.sh SOURCE BUILD
set -euo pipefail
SOURCE=$(readlink -f "${1:?usage: demo_test.sh SOURCE BUILD}")
BUILD=$(readlink -f "${2:?usage: demo_test.sh SOURCE BUILD}")
OUT=$(mktemp -d /tmp/hintfs-demo-test.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

HINTFS_DEMO_KEYS=40000 HINTFS_DEMO_SECONDS=5 bash "$SOURCE/scripts/demo.sh" \
  "$BUILD/adapters/cli/hintfs" "$BUILD/adapters/rocksdb/libhintfs_rocksdb.so" "$OUT" | tee "$OUT/demo.txt"
grep -q "^== b3: fsck" "$OUT/demo.txt" || fail "no b3 run"
[ "$(grep -c '^clean: ' "$OUT/demo.txt")" -eq 2 ] || fail "both filesystems must check clean"
grep -Eq '^readrandom ops/s +[0-9,]+ +[0-9,]+ +[0-9.]+x$' "$OUT/demo.txt" || fail "no throughput ratio"
grep -Eq '^HDD share of device reads +[0-9]+% +[0-9]+%$' "$OUT/demo.txt" || fail "no HDD share"
grep -Eq '^L[0-9] tables MiB on SSD / HDD +[0-9.]+ / [0-9.]+ +[0-9.]+ / [0-9.]+$' "$OUT/demo.txt" ||
  fail "no level rows"
if /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
  [ -s "$OUT/hintfs-demo.png" ] || fail "no plot"
fi
echo "demo test passed"
