#!/usr/bin/env bash
# The RocksDB plugin folder (rocksdb-plugin/hintfs): its source list is what
# meson builds libhintfs_rocksdb.so from, and the registrar hintfs.mk names
# is exported. With a RocksDB source tree given (ROCKSDB_SOURCE; a long
# build, so not part of the everyday tests), also builds that RocksDB with
# ROCKSDB_PLUGINS=hintfs and runs tests/package/plugin_check.cc linked to it.
#   bash rocksdb_plugin_test.sh SOURCE BUILD [ROCKSDB_SOURCE]
set -euo pipefail
SOURCE=$(readlink -f "${1:?usage: rocksdb_plugin_test.sh SOURCE BUILD [ROCKSDB_SOURCE]}")
BUILD=$(readlink -f "${2:?}")
ROCKSDB=${3:-}
fail() { echo "FAIL: $*" >&2; exit 1; }
PLUGIN="$SOURCE/rocksdb-plugin/hintfs"

listed=$(grep -v '^#' "$PLUGIN/sources.txt")
built=$(meson introspect "$BUILD" --targets | python3 -c '
import json, os, sys
want = {"hintfs_base", "hintfs_device", "hintfs_fs", "hintfs_hints", "hintfs_placement", "hintfs_cache",
        "hintfs_adapter_common", "hintfs_rocksdb"}
root = os.path.realpath(sys.argv[1])
print("\n".join(sorted(os.path.relpath(f, root) for t in json.load(sys.stdin) if t["name"] in want
                       for s in t["target_sources"] for f in s.get("sources", []))))' "$SOURCE")
if [ "$listed" != "$built" ]; then
  diff <(echo "$listed") <(echo "$built") || true
  fail "sources.txt differs from meson.build (<: listed, >: built)"
fi
func=$(sed -nE 's/^hintfs_FUNC = (.*)$/\1/p' "$PLUGIN/hintfs.mk")
nm -D --defined-only "$BUILD/adapters/rocksdb/libhintfs_rocksdb.so" | grep -qw "$func" || fail "$func is not exported"
echo "rocksdb plugin folder: sources and registrar ok"
[ -n "$ROCKSDB" ] || exit 0

ROCKSDB=$(readlink -f "$ROCKSDB")
ln -sfn "$PLUGIN" "$ROCKSDB/plugin/hintfs"
mkdir -p "$ROCKSDB/build-hintfs"
cd "$ROCKSDB/build-hintfs"
cmake .. -DROCKSDB_PLUGINS=hintfs -DCMAKE_BUILD_TYPE=Release -DWITH_TESTS=OFF -DWITH_TOOLS=OFF \
  -DWITH_BENCHMARK_TOOLS=OFF -DWITH_CORE_TOOLS=OFF -DWITH_GFLAGS=OFF -DROCKSDB_BUILD_SHARED=OFF \
  -DFAIL_ON_WARNINGS=OFF > cmake.log  # RocksDB 7.8 itself warns under GCC 12
make -j"$(nproc)" rocksdb > make.log 2>&1 || { tail -30 make.log; fail "RocksDB with hintfs inside does not build"; }
libs="$(pkg-config --libs libisal fmt libzbd libnvme snappy cpp-httplib) -lxgboost"
g++ -std=c++17 -I"$ROCKSDB/include" "$SOURCE/tests/package/plugin_check.cc" -o plugin_check librocksdb.a \
  $libs -lpthread -ldl || fail "plugin_check does not link"
./plugin_check
