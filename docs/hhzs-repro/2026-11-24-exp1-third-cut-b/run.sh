#!/usr/bin/env bash
# Exp#1 (YCSB A-F) at 8 client threads, one run, B3 / HHZS / HINTFS at commit
# ff29ff0 (issue 21's third cut): popularity migration back on, retention on
# by default, blocks=32MiB; before the budget's growth margin.
cd "$(dirname "$0")/../../.."
python3 tests/bench/hhzs_repro.py --exp 1 --schemes B3,HHZS,HINTFS --runs 1 --threads 8 \
  --out /tmp/exp1-s34b --fresh
