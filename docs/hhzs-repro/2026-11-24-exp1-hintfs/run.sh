#!/usr/bin/env bash
# Exp#1 (YCSB A-F) at 8 client threads, one run, B3 / HHZS / HINTFS (HHZS with
# block tiering, blocks=8MiB), at commit 861d63d (issue 21's second cut, info
# logs asked again at their fast share, the set-aside felt at once).
cd "$(dirname "$0")/../../.."
python3 tests/bench/hhzs_repro.py --exp 1 --schemes B3,HHZS,HINTFS --runs 1 --threads 8 \
  --out /tmp/rep21e1 --fresh
