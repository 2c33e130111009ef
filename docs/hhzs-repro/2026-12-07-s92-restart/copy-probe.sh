#!/usr/bin/env bash
# D on each saved load with binaries $B; prints ops/s and the cache's copies.
cd /work/main
R=docs/hhzs-repro/2026-12-06-s85-rocksdb-d/rphase.sh; X=level_compaction_dynamic_file_size=false
for t in "$@"; do
  echo "== D $t"
  XOPT=$X S=HINTFS OPS=1953 W=D B=${B:-build} D=/tmp/s91/$t bash $R 2>&1 | grep -E "^run" | cut -c1-200
  ${B:-build}/adapters/cli/hintfs info --json file:/tmp/s91/$t/ssd.img | python3 -c "
import json,sys; j=json.load(sys.stdin); c=j['cache']; m=j['migration']
print('cache lookups', c['lookups'], 'hits', c['hits'], 'prefilled', c.get('prefilled'), 'prefill_hits', c.get('prefill_hits'), 'zones', c['zones'], 'given_back', c['given_back_zones'], '| copied', m.get('copied_to_cache'), 'moves', m['moves'])"
done
