#!/usr/bin/env bash
# LevelDB through our Env as hhzs_repro.py --store leveldb runs it: one load
# of a scheme (S=B3|HHZS|HINTFS; `ldb-phase.sh load`), then phase W (C) from
# a copy of it, with LevelDB's LOG of the phase and the policy's state and
# the migrator's counters before and after (hintfs info --json).
# FILL=tiering gives HHZS fill=tiering (session 84's probe; unset: as run in session 78).
# SYNC=0 opens the images with sync=0, as the harness does since session 84 (session 85's probes).
# WB=on|off adds write_behind= (session 86; only the binaries of its write-behind patch take it);
# TRACE=1 also prints the device trace's write lines (with HINTFS_DEVICE_TRACE=1).
set -euo pipefail
B=${B:-build}; H=$B/adapters/cli/hintfs; Y=$B/adapters/bench/hintfs-ycsb
S=${S:-HHZS}; D=${D:-/tmp/ldb-$S}
T="table_bytes=1969225"; HINTFS="hhzs:$T,wal_budget=4MiB,migration_rate=4096KiB"
SQ=${SYNC:+sync=$SYNC}${WB:+&write_behind=$WB}; [ $S = HINTFS ] && SQ="blocks=32MiB${SQ:+&$SQ}"
case $S in HHZS) P="$HINTFS,replace_inputs=off,cache=all${FILL:+,fill=$FILL}";; HINTFS) P="$HINTFS,cache=all,cache_room=free";; B3) P="b3:$T";; esac
ycsb() { local q=$1; shift; [ -n "$SQ" ] && q="$SQ${q:+&$q}"; $Y --uri "file:$D/ssd.img${q:+?$q}" --engine leveldb --db-options "write_buffer_size=984612;max_file_size=1969225" \
  --open-tables --block-cache 16384 --bloom-bits 10 --records 400000 --threads 8 "$@" 2>&1 | grep -E "^(load|run|settle${TRACE:+|device trace .*(hdd|ssd).img write})" | cut -c1-300; }
if [ "${1:-}" = load ]; then
  rm -rf $D; mkdir -p $D/saved
  $H mkfs --policy "$P" --fast "file:$D/ssd.img?zone_size=2MiB&zones=26&profile=zn540&profile_scale=1" \
     --slow "file:$D/hdd.img?zone_size=2MiB&zones=2048&profile=st14000&profile_scale=1" --fast-data-zones 20 >/dev/null
  ycsb "" --load --settle 900
  cp --sparse=always $D/*.img $D/saved/
  exit 0
fi
cp --sparse=always $D/saved/*.img $D/
$H cat "file:$D/ssd.img" /db/LOG > $D/LOG.before || true
$H info --json "file:$D/ssd.img" > $D/info.before.json
ycsb "${Q:-}" --workload ${W:-C} --ops ${OPS:-1953} --zipf 0.9 --json $D/p.json
$H cat "file:$D/ssd.img" /db/LOG > $D/LOG.after || true
$H info --json "file:$D/ssd.img" > $D/info.after.json
echo "compactions in the phase: $(grep -c Compacting $D/LOG.after || true)"; grep Compacting $D/LOG.after | head -20
