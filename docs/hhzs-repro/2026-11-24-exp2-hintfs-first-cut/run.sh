#!/usr/bin/env bash
# Exp#2 at 8 client threads, one run, B3 / HHZS (P+M+C) / HINTFS (P+M+C with
# block tiering, blocks=8MiB), at commit 63969cf (issue 21's first cut).
cd "$(dirname "$0")/../../.."
python3 tests/bench/hhzs_repro.py --exp 2 --schemes B3,P+M+C,HINTFS --runs 1 --threads 8 \
  --out /tmp/rep-hintfs3 --fresh
