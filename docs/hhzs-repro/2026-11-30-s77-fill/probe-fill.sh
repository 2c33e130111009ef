#!/usr/bin/env bash
# Does filling L_t's reserved room before a read phase take point reads off the HDD?
# One saved HHZS load (`bash probe-fill.sh load`; session 73's was used); phase W from it
# three ways, interleaved (`bash probe-fill.sh`):
#   as      - HHZS as the harness runs it
#   settle  - the store opened, compactions and hintfs quiet (--settle) first, then the phase
#   fill    - as settle, with fill=tiering (migration fills L_t's reserved room while it settles)
set -euo pipefail
B=${B:-build}; Y=$B/adapters/bench/hintfs-ycsb; H=$B/adapters/cli/hintfs
D=${D:-/tmp/fill-probe}; W=${W:-C}; OPS=${OPS:-1953}; SETTLE=${SETTLE:-60}
HHZS="hhzs:table_bytes=1969225,wal_budget=4MiB,migration_rate=4096KiB,cache=all,replace_inputs=off"
DBO="write_buffer_size=984612;max_write_buffer_number=4;min_write_buffer_number_to_merge=2;target_file_size_base=1969225;max_bytes_for_level_base=2097152;level0_file_num_compaction_trigger=2;compression=kNoCompression;max_background_jobs=4;compaction_readahead_size=2097152"
tiers() { $H ls -l "file:$D/ssd.img" /db | awk '$4=="table" {k=$5" "$6; b[k]+=$2} END {for (t in b) printf "%s %.1f  ", t, b[t]/1048576; print ""}' | tr -s ' ' | sed 's/^/   tables MiB: /'; }
ycsb() { $Y --uri "file:$D/ssd.img${1:+?$1}" --db-options "$DBO" --block-cache 16384 --bloom-bits 10 --records 400000 \
  --threads 8 "${@:2}"; }
if [ "${1:-}" = load ]; then
  rm -rf $D; mkdir -p $D/saved
  $H mkfs --policy "$HHZS" --fast "file:$D/ssd.img?zone_size=2MiB&zones=26&profile=zn540&profile_scale=1" \
     --slow "file:$D/hdd.img?zone_size=2MiB&zones=2048&profile=st14000&profile_scale=1" --fast-data-zones 20 >/dev/null
  ycsb "" --load --settle 900 | grep -E "^(load|settle)"
  cp --sparse=always $D/*.img $D/saved/
  exit 0
fi
for r in ${ROUNDS:-1 2 3}; do
  for v in ${VARIANTS:-as settle fill}; do
    cp --sparse=always $D/saved/*.img $D/
    q="policy=$HHZS"; extra=""
    [ $v = fill ] && q="policy=$HHZS,fill=tiering"
    [ $v != as ] && extra="--settle $SETTLE"
    rm -f $D/p.json
    echo "== round $r $v"
    ycsb "$q" --workload $W --ops $OPS --zipf 0.9 --json $D/p.json $extra 2>&1 | grep -E "^(run|settle)" | cut -c1-200
    python3 -c "import json,sys;j=[json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1];print('   point reads',j['point_reads'],'hdd share %.3f'%j['point_read_hdd_share'])" $D/p.json
    tiers
  done
done
