#!/usr/bin/env bash
# Exp#2 at 8 client threads, three runs, B3 / HHZS (P+M+C) / HINTFS, at commit
# 15cc9fe (the second cut plus info logs asked again at their fast share and
# the set-aside felt at once by migration).
cd "$(dirname "$0")/../../.."
python3 tests/bench/hhzs_repro.py --exp 2 --schemes B3,P+M+C,HINTFS --runs 3 --threads 8 \
  --out /tmp/rep21c --fresh
