#!/usr/bin/env bash
# Exp#1 (YCSB A-F) at 8 client threads, three runs interleaved, B3 / HHZS /
# HINTFS at commit 5856593 (issue 21's third cut: copies from memory,
# retention on, blocks=32MiB, the budget's growth margin).
cd "$(dirname "$0")/../../.."
python3 tests/bench/hhzs_repro.py --exp 1 --schemes B3,HHZS,HINTFS --runs 3 --threads 8 \
  --out /tmp/exp1-s34c --fresh
