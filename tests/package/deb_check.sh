#!/usr/bin/env bash
# The Debian packages as a user gets them (run as root, on a machine that may
# be CI's): installs the .deb files of DEBDIR with apt, then from /usr only:
# the tool's version, man pages and completion; stock db_bench with the
# installed plugin on a fresh filesystem, then fsck; a LevelDB program built
# against the installed headers with pkg-config. Removes the packages at exit.
#   bash tests/package/deb_check.sh DEBDIR
set -euo pipefail
DEBDIR=$(readlink -f "${1:?usage: deb_check.sh DEBDIR}")
WORK=$(mktemp -d /tmp/hintfs-debcheck.XXXXXX)
cleanup() {
  DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq hintfs hintfs-dev >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

if dpkg-query -W -f='${Status}' hintfs 2>/dev/null | grep -q "install ok installed"; then
  # Installing and removing ours would take the machine's own away.
  echo "debian packages: skipped (hintfs is installed on this machine)"
  trap 'rm -rf "$WORK"' EXIT
  exit 0
fi
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$DEBDIR"/hintfs_*.deb "$DEBDIR"/hintfs-dev_*.deb >"$WORK/apt.log" 2>&1 \
  || { cat "$WORK/apt.log"; fail "the packages do not install"; }
[ "$(command -v hintfs)" = /usr/bin/hintfs ] || fail "hintfs is not /usr/bin/hintfs"
/usr/bin/hintfs --version | grep -qx "hintfs [0-9.]*" || fail "hintfs --version"
/usr/bin/hintfs-ycsb --version | grep -qx "hintfs-ycsb [0-9.]*" || fail "hintfs-ycsb --version"
/usr/bin/hintfs-oracle --version | grep -qx "hintfs-oracle [0-9.]*" || fail "hintfs-oracle --version"
for page in hintfs hintfs-ycsb hintfs-oracle; do
  man -w "$page" >/dev/null 2>&1 || fail "no man page $page"
done
man hintfs 2>/dev/null | grep -q "EXIT STATUS" || fail "the man page has no exit statuses"
[ -f /usr/share/bash-completion/completions/hintfs ] || fail "no bash completion"
PLUGIN=$(ls /usr/lib/*/libhintfs_rocksdb.so) || fail "no installed RocksDB plugin"

# The README's RocksDB example, scaled down, from /usr.
hintfs mkfs --fast "file:$WORK/ssd.img?zone_size=16MiB&zones=16&profile=zn540" \
            --slow "file:$WORK/hdd.img?zone_size=16MiB&zones=64&profile=st14000" >/dev/null
LD_PRELOAD=$PLUGIN db_bench --fs_uri="hintfs://file:$WORK/ssd.img?profile_scale=20" --db=/db --num=20000 \
  --benchmarks=fillrandom,compact,readrandom,verifychecksum > "$WORK/bench.txt" 2>&1 || { tail "$WORK/bench.txt"; fail "db_bench"; }
grep -q "^readrandom" "$WORK/bench.txt" || fail "db_bench printed no readrandom line"
hintfs ls -l "file:$WORK/ssd.img" /db | grep -q "\.sst" || fail "no tables in /db"
hintfs fsck --deep "file:$WORK/ssd.img" >/dev/null || fail "fsck after db_bench"

# A LevelDB program linked against the installed library.
cat > "$WORK/ldb.cc" <<'CC'
#include <cstdio>
#include <memory>
#include <string>
#include <hintfs/hintfs_leveldb.h>
#include <leveldb/db.h>
int main() {
  std::unique_ptr<leveldb::Env> env;
  leveldb::Status s = hintfs::NewHintLevelDbEnv("mem:deb-check", &env);
  if (!s.ok()) { std::fprintf(stderr, "%s\n", s.ToString().c_str()); return 1; }
  leveldb::Options options;
  options.env = env.get();
  options.create_if_missing = true;
  leveldb::DB* db = nullptr;
  s = leveldb::DB::Open(options, "/ldb", &db);
  if (s.ok()) s = db->Put(leveldb::WriteOptions(), "key", "value");
  std::string v;
  if (s.ok()) s = db->Get(leveldb::ReadOptions(), "key", &v);
  delete db;
  if (!s.ok() || v != "value") { std::fprintf(stderr, "%s\n", s.ToString().c_str()); return 1; }
  std::puts("leveldb on hintfs: ok");
  return 0;
}
CC
# shellcheck disable=SC2046
g++ -std=c++17 -o "$WORK/ldb" "$WORK/ldb.cc" $(pkg-config --cflags --libs hintfs-leveldb) \
  || fail "a program does not build against hintfs-leveldb"
"$WORK/ldb" | grep -q "ok" || fail "the LevelDB program"
pkg-config --exists hintfs-rocksdb || fail "no hintfs-rocksdb.pc"
echo "debian packages: ok"
