#!/usr/bin/env bash
# ldm.sh load POLICY QUERY DIR ; ldm.sh phase QUERY DIR W
# MEM=MiB (added in session 71) runs the store (hintfs-ycsb) in a cgroup-v1
# memory group of that limit, its page cache included, and prints the
# group's peak use; B=BUILD picks the binaries.
set -euo pipefail
B=${B:-/tmp/ci-s66b/build}; H=$B/adapters/cli/hintfs; Y=$B/adapters/bench/hintfs-ycsb
cmd=$1
CG=/sys/fs/cgroup/memory/ldm$$
store() {
  if [ -n "${MEM:-}" ]; then
    mkdir -p $CG; echo $((MEM<<20)) > $CG/memory.limit_in_bytes
    sh -c "echo \$\$ > $CG/tasks; exec \"\$@\"" sh "$@"
    echo "cgroup: max_usage $(( $(cat $CG/memory.max_usage_in_bytes) >> 20 )) MiB, failcnt $(cat $CG/memory.failcnt); $(grep -E '^(total_rss|total_cache) ' $CG/memory.stat | tr '\n' ' ')" >&2
    rmdir $CG
  else
    "$@"
  fi
}
mountrun() {  # QUERY DIR ARGS...
  local q=$1 d=$2; shift 2
  mkdir -p $d/mnt
  $H mount -f "file:$d/ssd.img${q:+?$q}" $d/mnt >/dev/null 2>&1 &
  local pid=$!
  for i in $(seq 100); do mountpoint -q $d/mnt && break; sleep 0.1; done
  store $Y --dir $d/mnt/db --engine leveldb --db-options "write_buffer_size=984612;max_file_size=1969225" --block-cache 16384 --bloom-bits 10 --records 400000 --threads 8 "$@" 2>&1 | grep -E "^(load|run|cgroup)" | cut -c1-220
  fusermount3 -u $d/mnt; wait $pid
}
if [ $cmd = load ]; then
  P=$2 Q=$3 D=$4; rm -rf $D; mkdir -p $D/saved
  $H mkfs --policy "$P" --fast "file:$D/ssd.img?zone_size=2MiB&zones=26&profile=zn540&profile_scale=1" --slow "file:$D/hdd.img?zone_size=2MiB&zones=2048&profile=st14000&profile_scale=1" --fast-data-zones 20 >/dev/null
  mountrun "$Q" $D --load --settle 900
  cp --sparse=always $D/*.img $D/saved/
else
  Q=$2 D=$3 W=$4
  cp --sparse=always $D/saved/*.img $D/
  mountrun "$Q" $D --workload $W --ops 1953 --zipf 0.9
  $H info --json "file:$D/ssd.img" > $D/info-$W.json
fi
