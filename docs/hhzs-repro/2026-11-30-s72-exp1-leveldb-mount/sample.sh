#!/usr/bin/env bash
# Samples a mount's policy state and migration every 0.5 s while it is mounted.
# sample.sh MNT OUT
M=$1 OUT=$2; : > $OUT
for i in $(seq 600); do mountpoint -q $M && break; sleep 0.1; done
t0=$(date +%s.%N)
while mountpoint -q $M; do
  python3 - "$M/.hintfs/stats.json" "$t0" >> $OUT 2>/dev/null <<'PY'
import json,sys,time
d=json.load(open(sys.argv[1])); p=d.get('policy_state',{})
lv=' '.join('L%d:%d/%d/%d'%(l['level'],l['fast'],l['allocated'],l['demand']) for l in p.get('levels',[])[:4])
dev=[x for x in d.get('devices',[]) if x['tier']=='fast']
print('%.1f cap=%s t=%s res=%s held=%s %s up=%.1f down=%.1f empty=%s' % (time.time()-float(sys.argv[2]), p.get('capacity_slots'), p.get('tiering_level'), p.get('reserved_for_tiering_level'), p.get('up_moves_held_ms'), lv, d['migrated_bytes']['to_fast']/1e6, d['migrated_bytes']['to_slow']/1e6, dev[0]['empty_zones'] if dev else '?'))
PY
  sleep 0.5
done
