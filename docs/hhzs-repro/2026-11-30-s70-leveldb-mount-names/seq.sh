#!/usr/bin/env bash
# seq.sh POLICY DIR [PHASES...]: mkfs, load, then phases on the same filesystem; level_knowledge, LOG copy and hint trace per phase
set -euo pipefail
B=${B:-build}; H=$B/adapters/cli/hintfs; Y=$B/adapters/bench/hintfs-ycsb
P=$1 D=$2; shift 2
PH=${*:-load A B C D E F}
rm -rf $D; mkdir -p $D/mnt
$H mkfs --policy "$P" --fast "file:$D/ssd.img?zone_size=2MiB&zones=26&profile=zn540&profile_scale=1" --slow "file:$D/hdd.img?zone_size=2MiB&zones=2048&profile=st14000&profile_scale=1" --fast-data-zones 20 >/dev/null
for W in $PH; do
  $H mount -f "file:$D/ssd.img?trace=$D/trace-$W" $D/mnt >/dev/null 2>&1 &
  pid=$!
  for i in $(seq 100); do mountpoint -q $D/mnt && break; sleep 0.1; done
  if [ $W = load ]; then args=(--load --settle 900); else args=(--workload $W --ops 1953 --zipf 0.9); fi
  $Y --dir $D/mnt/db --engine leveldb --db-options "write_buffer_size=984612;max_file_size=1969225" --block-cache 16384 --bloom-bits 10 --records 400000 --threads 8 "${args[@]}" 2>&1 | grep -E "^(load|run) " | cut -c1-100 | sed "s/^/$W /"
  cp $D/mnt/db/LOG $D/LOG-$W
  fusermount3 -u $D/mnt; wait $pid
  $H info --json "file:$D/ssd.img" | python3 -c "
import json,sys; k=json.load(sys.stdin)['policy_state']['level_knowledge']
print('   ', '$W', 'levels %d/%d' % (k['estimates_confirmed'], k['estimates_confirmed']+k['estimates_wrong']), 'outputs %d right %d wrong %d missed' % (k['inferred_outputs_right'], k['inferred_outputs_wrong'], k['compaction_outputs_not_inferred']), 'inputs %d right %d wrong %d missed' % (k['inferred_inputs_right'], k['inferred_inputs_wrong'], k['compaction_inputs_not_inferred']))"
done
