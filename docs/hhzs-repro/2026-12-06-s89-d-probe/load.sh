#!/usr/bin/env bash
# Session 89: `XOPT=... load.sh NAME S BUILD [EXTRA]` loads scheme S (B3 or HINTFS, session 85's rphase.sh)
# into /tmp/r89-NAME with the binaries of BUILD and RocksDB options XOPT added.
set -euo pipefail
H=$(cd "$(dirname "$0")" && pwd)
N=$1; S=$2; B=$3; X=${4:-}
cd /work/main
S=$S D=/tmp/r89-$N B=$B EXTRA="$X" bash $H/../2026-12-06-s85-rocksdb-d/rphase.sh load 2>&1 | grep -v "^device trace"
