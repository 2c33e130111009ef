#!/bin/busybox sh
# /init of the test guest (see run_guest.sh): loads the drivers, creates the
# zoned null_blk disks, mounts the host root read-only and runs the tests in
# it. Always ends by printing HINTFS-GUEST-EXIT=<status> and powering off.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
finish() { echo "HINTFS-GUEST-EXIT=$1"; sync; poweroff -f; }

for ko in /mods/*.ko; do
  case "$ko" in
    *null_blk.ko) insmod "$ko" nr_devices=0 || finish 90 ;;
    *-crct10dif-pclmul.ko) insmod "$ko" 2>/dev/null ;;  # no PCLMUL under TCG: the generic one serves
    *) insmod "$ko" || finish 90 ;;
  esac
done

# Zoned null_blk, memory-backed, 4 KiB blocks: nullb0 for the conformance
# suite (one conventional zone, tight limits), nullb1 as the slow tier
# (the SMR-like disk: 64 MiB zones, 4 conventional, 4 GiB).
mount -t configfs none /sys/kernel/config || finish 91
make_nullb() {  # name then attribute=value pairs
  d=/sys/kernel/config/nullb/$1; shift
  mkdir "$d" || return 1
  for kv in "$@"; do echo "${kv#*=}" > "$d/${kv%%=*}" || return 1; done
  echo 1 > "$d/power"
}
make_nullb nullb0 blocksize=4096 memory_backed=1 zoned=1 size=64 zone_size=4 zone_capacity=3 \
  zone_nr_conv=1 zone_max_open=2 zone_max_active=3 || finish 92
make_nullb nullb1 blocksize=4096 memory_backed=1 zoned=1 size=4096 zone_size=64 zone_nr_conv=4 || finish 92

mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000 hostroot /host || finish 93
mount -t proc proc /host/proc
mount -t sysfs sys /host/sys
mount -t devtmpfs dev /host/dev
mount -t tmpfs -o size=1G tmp /host/run

repo=$(sed -n 's/.*hintfs\.repo=\([^ ]*\).*/\1/p' /proc/cmdline)
build=$(sed -n 's/.*hintfs\.build=\([^ ]*\).*/\1/p' /proc/cmdline)
chroot /host /bin/bash "$repo/tests/real_zoned/guest_tests.sh" "$build" "$repo"
finish $?
