#!/usr/bin/env bash
# LevelDB with its own Env on the FUSE mount, as hhzs_repro.py --store leveldb-mount runs it
# (session 87): `mphase.sh load` loads a scheme (S=B3|HHZS) and saves its images; then
# `W=C mphase.sh` runs phase W from a copy of them, with `hintfs info --json` before and after.
# Q= adds keys to the mount's URI (Q=cache=all: the SSD cache, which the harness leaves off on
# this store). Where the cgroup-v1 memory controller is mounted, hintfs-ycsb runs in a memory
# cgroup and the script prints the most it charged (the kernel's page cache of the mapped
# tables, mostly); MEMCG=BYTES also limits it. HINTFS_DEVICE_TRACE=1 in the environment makes
# the daemon print where its devices' time went (daemon.err; printed after the phase).
set -euo pipefail
B=${B:-build}; H=$B/adapters/cli/hintfs; Y=$B/adapters/bench/hintfs-ycsb
S=${S:-HHZS}; D=${D:-/tmp/mnt-$S}
T="table_bytes=1969225"; HINTFS="hhzs:$T,wal_budget=4MiB,migration_rate=4096KiB"
case $S in HHZS) P="$HINTFS,replace_inputs=off,cache=all";; B3) P="b3:$T";; *) echo "S=B3|HHZS" >&2; exit 2;; esac
URI="file:$D/ssd.img?sync=0${Q:+&$Q}"
CG=/sys/fs/cgroup/memory/hintfs-mphase
mounted() {
  mkdir -p $D/mnt
  $H mount -f "$URI" $D/mnt 2> $D/daemon.err & local pid=$!
  for _ in $(seq 300); do mountpoint -q $D/mnt && break; sleep 0.1; done
  "$@" || true
  fusermount3 -u $D/mnt; wait $pid || true
}
ycsb() {
  local run=()
  if [ -d /sys/fs/cgroup/memory ]; then
    mkdir -p $CG
    echo "${MEMCG:--1}" > $CG/memory.limit_in_bytes; echo 0 > $CG/memory.max_usage_in_bytes
    run=(sh -c "echo \$\$ > $CG/cgroup.procs; exec \"\$@\"" ycsb)
  fi
  "${run[@]}" $Y --dir $D/mnt/db --engine leveldb --db-options "write_buffer_size=984612;max_file_size=1969225" \
    --open-tables --block-cache 16384 --bloom-bits 10 --records 400000 --threads 8 "$@" 2>&1 |
    grep -E "^(load|run|settle)" | cut -c1-300
  [ -d $CG ] && echo "memory cgroup: at most $(cat $CG/memory.max_usage_in_bytes) bytes charged," \
    "$(grep -E '^total_cache ' $CG/memory.stat)"
  return 0
}
if [ "${1:-}" = load ]; then
  rm -rf $D; mkdir -p $D/saved
  $H mkfs --policy "$P" --fast "file:$D/ssd.img?zone_size=2MiB&zones=26&profile=zn540&profile_scale=1" \
     --slow "file:$D/hdd.img?zone_size=2MiB&zones=2048&profile=st14000&profile_scale=1" --fast-data-zones 20 >/dev/null
  mounted ycsb --load --settle 900
  cp --sparse=always $D/*.img $D/saved/
  $H info --json "file:$D/ssd.img" > $D/info.loaded.json
  exit 0
fi
cp --sparse=always $D/saved/*.img $D/
$H info --json "file:$D/ssd.img" > $D/info.before.json
mounted ycsb --workload ${W:-C} --ops ${OPS:-1953} --zipf 0.9 --json $D/p.json
$H info --json "file:$D/ssd.img" > $D/info.after.json
grep "device trace" $D/daemon.err | cut -c1-250 || true
