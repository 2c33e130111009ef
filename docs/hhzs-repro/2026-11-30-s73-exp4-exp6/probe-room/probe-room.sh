#!/usr/bin/env bash
# RocksDB through the plugin as the harness runs it (rdb.sh): HHZS as the
# harness has it; the same load with the SSD cache also borrowing every free
# fast zone (cache_room=free at mount); and HHZS with fill=tiering (its own
# load: the tiering level's reserved room filled with its slow tables, read or
# not). A, B and C phases, three runs alternating. Binaries of 9e65ca5.
cd /tmp/s73
HHZS="hhzs:table_bytes=1969225,wal_budget=4MiB,migration_rate=4096KiB,cache=all,replace_inputs=off"
bash rdb.sh load "$HHZS" /tmp/s73/R-hhzs | grep -E "^(load|settle)"
B=${B:-/tmp/ci-s70/build}; $B/adapters/cli/hintfs info --json file:/tmp/s73/R-hhzs/ssd.img > /tmp/s73/R-hhzs/info-load.json
bash rdb.sh load "$HHZS,fill=tiering" /tmp/s73/R-ft | grep -E "^(load|settle)"
$B/adapters/cli/hintfs info --json file:/tmp/s73/R-ft/ssd.img > /tmp/s73/R-ft/info-load.json
for r in 1 2 3; do
  for v in hhzs hhzs-free ft; do
    case $v in
      hhzs) q=""; d=R-hhzs;;
      hhzs-free) q="cache_room=free"; d=R-hhzs;;
      ft) q=""; d=R-ft;;
    esac
    for w in A B C; do
      echo "run=$r $v $w $(bash rdb.sh phase "$q" /tmp/s73/$d $w | grep '^run')"
      python3 -c "import json;j=json.load(open('/tmp/s73/$d/info-$w.json'));c=j['cache'];m=j['migration'];print('   cache lookups %d hits %.3f admitted %d evicted %d' % (c['lookups'], c['hit_ratio'], c['admitted'], c['evicted']))"
    done
  done
done
