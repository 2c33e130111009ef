#!/usr/bin/env bash
# Long crash-safety run of RocksDB and LevelDB on hintfs, CYCLES times each
# (default 300), and prints the cycles run and the acknowledged writes
# verified; exits non-zero on any lost write.
#   bash scripts/crash-stress.sh [CYCLES] [sync|nosync|all]
# sync   (default) writes with sync=true: a child killed with SIGKILL, and a
#        power cut of the emulated devices; no synced write may be lost
# nosync the stores' default sync=false: a child killed with SIGKILL; no write
#        whose Put returned may be lost (the kernel filesystem guarantee)
# all    both
set -euo pipefail
cd "$(dirname "$0")/.."
CYCLES=${1:-300}
MODE=${2:-sync}
case "$MODE" in
  sync) FILTER='*/rocksdbSync:*/leveldbSync:RocksDbCrash.*:LevelDbCrash.*' ;;
  nosync) FILTER='*/rocksdbNoSync:*/leveldbNoSync' ;;
  all) FILTER='Stores/StoreKill.*:RocksDbCrash.*:LevelDbCrash.*' ;;
  *) echo "usage: bash scripts/crash-stress.sh [CYCLES] [sync|nosync|all]" >&2; exit 2 ;;
esac
case "$CYCLES" in
  ''|*[!0-9]*) echo "crash-stress: CYCLES must be a positive number, not '$CYCLES'" >&2; exit 2 ;;
esac
bash scripts/run.sh build >/dev/null
BUILD="${HINTFS_BUILD_DIR:-build}"
HINTFS_CRASH_CYCLES=$CYCLES HINTFS_CRASH_CHILD="$BUILD/tests/adapters/store_crash_child" \
  "$BUILD/tests/adapters/adapter_tests" --gtest_filter="$FILTER" 2>/dev/null \
  | grep -E "cycles:|PASSED|FAILED|Failure"
