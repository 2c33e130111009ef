#!/usr/bin/env bash
# HotRAP's YCSB workloads, scaled (see hotrap_repro.py for what it runs):
#   bash tests/bench/hotrap_repro.sh                                  every scheme, RO/RW/WH/UH x 3 keys, 3 runs
#   bash tests/bench/hotrap_repro.sh --runs 1 --workloads RO --dists hotspot5   a quick look
set -euo pipefail
exec /usr/bin/python3 "$(dirname "$0")/hotrap_repro.py" "$@"
