#!/usr/bin/env bash
# The scaled HHZS reproduction (see hhzs_repro.py for what it runs):
#   bash tests/bench/hhzs_repro.sh            full mode: hours at the drives' real speed,
#                                             in resumable parts (--max-minutes)
#   bash tests/bench/hhzs_repro.sh --quick    smoke test, a few minutes
# Debian's python3 (with python3-matplotlib, installed by scripts/run.sh)
# draws the plots, whatever python3 comes first on PATH.
set -euo pipefail
exec /usr/bin/python3 "$(dirname "$0")/hhzs_repro.py" "$@"
