#!/usr/bin/env bash
# HyperDB's NVMe + SATA setting, scaled (see hyperdb_repro.py for what it runs):
#   bash tests/bench/hyperdb_repro.sh                        every scheme, A-F, three runs
#   bash tests/bench/hyperdb_repro.sh --runs 1 --workloads C  a quick look
set -euo pipefail
exec /usr/bin/python3 "$(dirname "$0")/hyperdb_repro.py" "$@"
