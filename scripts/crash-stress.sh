#!/usr/bin/env bash
# Long crash-safety run: RocksDB on hintfs killed with SIGKILL, and power cut
# on the emulated devices, CYCLES times each (default 300). Prints the cycles
# run and the acknowledged writes verified; exits non-zero on any lost write.
#   bash scripts/crash-stress.sh [CYCLES]
set -euo pipefail
cd "$(dirname "$0")/.."
CYCLES=${1:-300}
bash scripts/run.sh build >/dev/null
BUILD="${HINTFS_BUILD_DIR:-build}"
HINTFS_CRASH_CYCLES=$CYCLES HINTFS_CRASH_CHILD="$BUILD/tests/adapters/rocksdb_crash_child" \
  "$BUILD/tests/adapters/adapter_tests" --gtest_filter='RocksDbCrash.*:LevelDbCrash.*' \
  | grep -E "cycles:|PASSED|FAILED|Failure"
