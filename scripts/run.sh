#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine (run as root):
#   bash scripts/run.sh demo   install what is missing, build, run the demo
#   bash scripts/run.sh test   install what is missing, build, run every test (three
#                              suites again under AddressSanitizer and UBSan), then
#                              build the Debian packages and check them installed
#   bash scripts/run.sh build  install and build only
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD="${HINTFS_BUILD_DIR:-$ROOT/build}"

PACKAGES=(meson ninja-build g++ pkg-config cmake libgtest-dev libgmock-dev libcli11-dev
          nlohmann-json3-dev libfmt-dev libisal-dev python3
          librocksdb-dev rocksdb-tools libleveldb-dev libsnappy-dev libfuse3-dev fuse3 fio
          libzbd-dev libnvme-dev libjson-c-dev qemu-system-x86 busybox-static kmod xz-utils python3-matplotlib
          git rsync sqlite3 help2man bash-completion debhelper libcpp-httplib-dev libxgboost-dev)

install_deps() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "installing: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

build() {
  if [ ! -f "$BUILD/build.ninja" ]; then
    meson setup "$BUILD" --werror --buildtype=debugoptimized >/dev/null
  fi
  ninja -C "$BUILD"
}

# The suites whose code runs threads of its own (the SSD cache's writer,
# migration, hint delivery) again under AddressSanitizer and UBSan: a
# use-after-free in the cache crashed one run in four and passed the rest
# (session 94); the sanitizers catch it every time. Prints gtest's summary.
SANITIZED=(tests/cache/cache_tests tests/placement/placement_tests tests/hints/hints_tests)
sanitized_tests() {
  local dir="$BUILD-sanitized" t rc=0
  if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" --buildtype=debug -Db_sanitize=address,undefined >/dev/null
  fi
  ninja -C "$dir" "${SANITIZED[@]}" >/dev/null
  for t in "${SANITIZED[@]}"; do
    echo "== $t (AddressSanitizer, UBSan)"
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "$dir/$t" --gtest_brief=1 || rc=1
  done
  return "$rc"
}

run_tests() {
  local rc=0
  meson test -C "$BUILD" --print-errorlogs --num-processes 2 || rc=$?
  sanitized_tests > "$BUILD/sanitized.log" 2>&1 || { rc=1; tail -30 "$BUILD/sanitized.log"; }
  # One closing line that any reader understands: gtest cases plus script tests.
  local log="$BUILD/meson-logs/testlog.txt"
  local passed failed scripts_ok
  passed=$( (grep -hoE '^\[  PASSED  \] [0-9]+ test' "$log" "$BUILD/sanitized.log" || true) | awk '{s+=$4} END {print s+0}')
  failed=$( (grep -hoE '^\[  FAILED  \] [0-9]+ test' "$log" "$BUILD/sanitized.log" || true) | awk '{s+=$4} END {print s+0}')
  scripts_ok=$(grep -cE '^(cli acceptance: ok|db tools: ok|damage campaign: .* 0 violations|readme examples: ok|bash completion: ok)$' "$log" || true)
  # The Debian packages, built from this tree and installed as a user would.
  local deb="$BUILD/deb" pkg_rc=0
  { bash scripts/package.sh "$deb" && bash tests/package/deb_check.sh "$deb"; } > "$BUILD/package.log" 2>&1 || pkg_rc=$?
  tail -1 "$BUILD/package.log"
  if [ "$pkg_rc" -ne 0 ]; then tail -20 "$BUILD/package.log"; failed=$((failed + 1)); rc=1; fi
  grep -q "^debian packages: ok" "$BUILD/package.log" && scripts_ok=$((scripts_ok + 1))
  if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
  echo "$((passed + scripts_ok)) passed, $failed failed"
  return "$rc"
}

case "${1:-}" in
  demo) install_deps; build >/dev/null
        exec bash scripts/demo.sh "$BUILD/adapters/cli/hintfs" "$BUILD/adapters/rocksdb/libhintfs_rocksdb.so" "$BUILD" ;;
  test) install_deps; build; run_tests ;;
  build) install_deps; build ;;
  *) echo "usage: bash scripts/run.sh demo|test|build" >&2; exit 2 ;;
esac
