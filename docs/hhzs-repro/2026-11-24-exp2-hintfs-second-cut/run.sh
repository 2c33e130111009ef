#!/usr/bin/env bash
# Exp#2 at 8 client threads, three runs, B3 / HHZS (P+M+C) / HINTFS (P+M+C
# with block tiering, blocks=8MiB), issue 21's second cut, at commit 4ccdca0
# (before info logs were asked again at their fast share).
cd "$(dirname "$0")/../../.."
python3 tests/bench/hhzs_repro.py --exp 2 --schemes B3,P+M+C,HINTFS --runs 3 --threads 8 \
  --out /tmp/rep21 --fresh
