# Guest scenario (busybox sh): blkmap's module attached to an instance by
# hand, a disk added, then detached and unloaded. Writes to /out:
#   attached.trace	the instance's records up to the detach
#   rec.after		that instance's trace after the module unloaded
#   other.before, other.after	an unrelated instance's trace before and
#			after the module unloads
#   rmmod.status	rmmod's exit status
set -e
t=/sys/kernel/tracing
modprobe null_blk nr_devices=0
insmod /lib/blkmap/blkmap.ko
mkdir $t/instances/rec $t/instances/other
# The unrelated instance holds its own data: a marker and a block event.
echo 1 >$t/instances/other/events/block/block_rq_issue/enable
echo "other-instance-data" >$t/instances/other/trace_marker

echo "attach rec" >/sys/kernel/blkmap/control
mkdir /sys/kernel/config/nullb/gamma
echo 1 >/sys/kernel/config/nullb/gamma/power
dd if=/dev/zero of=/dev/gamma bs=4k count=1 oflag=direct 2>/dev/null
echo detach >/sys/kernel/blkmap/control
cat $t/instances/rec/trace >/out/attached.trace
echo "rec-after-detach" >$t/instances/rec/trace_marker
cat $t/instances/other/trace >/out/other.before
set +e
rmmod blkmap
echo $? >/out/rmmod.status
set -e
cat $t/instances/other/trace >/out/other.after
cat $t/instances/rec/trace >/out/rec.after
rmdir $t/instances/rec $t/instances/other
dmesg | grep -i blkmap >/out/dmesg.txt || true
echo 0 >/sys/kernel/config/nullb/gamma/power
rmdir /sys/kernel/config/nullb/gamma
