#!/usr/bin/env bash
# Exp#1 (YCSB A-F) at 8 client threads, one run, B3 / HHZS / HINTFS at commit
# 65e6a1e (issue 21's third cut, first try): copies from the filesystem's
# memory of recent slow-tier blocks, blocks=32MiB, popularity migration off
# while block tiering runs (reverted after this run), retention off.
cd "$(dirname "$0")/../../.."
python3 tests/bench/hhzs_repro.py --exp 1 --schemes B3,HHZS,HINTFS --runs 1 --threads 8 \
  --out /tmp/exp1-s34a --fresh
