#!/bin/bash
# Usage: trace.sh BUILD_DIR WORK_DIR POLICY PHASE
# The HHZS reproduction's leveldb-mount store by hand (its devices, records
# and options): mkfs under POLICY, the load on a mount, then YCSB workload
# PHASE on a second mount under FUSE's debug trace (hintfs mount -d), and a
# histogram of the sizes of the read requests the kernel sent the daemon
# (count, bytes). The trace is WORK_DIR/mount.PHASE.log. Example (session 49):
#   trace.sh build /dev/shm/lt b3:table_bytes=1969225 C
set -e
B=$1; W=$2; POL=$3; PH=$4
H=$B/adapters/cli/hintfs; Y=$B/adapters/bench/hintfs-ycsb
rm -rf $W; mkdir -p $W/dev $W/mnt
$H mkfs --policy "$POL" --fast "file:$W/dev/ssd.img?zone_size=2MiB&zones=26&profile=zn540&profile_scale=1" --slow "file:$W/dev/hdd.img?zone_size=2MiB&zones=2048&profile=st14000&profile_scale=1" --fast-data-zones 20 >/dev/null
YA="--dir $W/mnt/db --engine leveldb --db-options write_buffer_size=984612;max_file_size=1969225 --block-cache 16384 --bloom-bits 10 --records 400000 --threads 8"
mnt() { $H mount -f $1 file:$W/dev/ssd.img $W/mnt > $W/mount.$2.log 2>&1 & for i in $(seq 100); do mountpoint -q $W/mnt && break; sleep 0.1; done; }
umnt() { fusermount3 -u $W/mnt; wait; }
mnt "" load; $Y $YA --label load --load --settle 900 > $W/load.out; umnt
mnt "-d" $PH; $Y $YA --label $PH --workload $PH --ops 1953 --zipf 0.9 > $W/$PH.out; cat $W/mnt/.hintfs/stats.json > $W/stats.$PH.json; umnt
grep -o 'read\[[0-9]*\] [0-9]* bytes from [0-9]* flags' $W/mount.$PH.log | awk '{print $2}' | sort -n | uniq -c | sort -rn | head -15
