#!/bin/bash
# Exp#1 (load + YCSB A-F) for B3, HHZS and ALL-FAST on each store, one run, 8 client threads.
set -e
cd "$(dirname "$0")/../../.."
for store in rocksdb rocksdb-nolistener leveldb leveldb-mount; do
  /usr/bin/python3 tests/bench/hhzs_repro.py --exp 1 --schemes B3,HHZS,ALL-FAST --threads 8 --runs 1 \
    --store $store --no-build --build-dir ${BUILD:-build} --out ${OUT:-/tmp}/exp1-$store
done
