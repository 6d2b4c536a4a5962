# Guest scenario (busybox sh): blktrace and blkmap record the same I/O on a
# hot-added virtio disk under mq-deadline: sequential direct reads,
# random direct 4 KiB reads and writes, a reader and a writer at once, and
# buffered writes flushed by writeback (merged into larger requests).
# Nothing else does I/O on the disk while they record.
# Writes /out/rec.dat, /out/record.err, /out/bt.blktrace.N (blktrace's
# per-CPU files), /out/disk (the disk's kernel name), /out/blktrace.err,
# /out/stat.before and /out/stat.after (/proc/diskstats around the I/O).
set -e
. /scenario-lib.sh
for m in virtio_pci virtio_blk; do
	modprobe $m 2>/dev/null || [ -d /sys/module/$m ] || premise "cannot load $m"
done
command -v blktrace >/dev/null || premise "no blktrace in the guest"
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null || [ -d /sys/kernel/debug/block ] ||
	premise "cannot mount debugfs"

step "adding a virtio disk"
d=$(vm-hotplug add virtio phases 64) || premise "cannot hot-add a virtio disk"
echo "$d" >/out/disk
grep -q mq-deadline /sys/block/$d/queue/scheduler || premise "no mq-deadline for $d"
echo mq-deadline >/sys/block/$d/queue/scheduler
# Data to read back; then nothing in flight on the disk.
dd if=/dev/zero of=/dev/$d bs=1M count=16 oflag=direct 2>/dev/null
sync

# blkmap first: each tracepoint calls its probes in the order they were
# registered, and ftrace's takes its time stamp first thing, so each event's
# time in blkmap's recording is the moment the kernel reached it, and in
# blktrace's that plus blkmap's probe (much the same for every event).
step "recording"
record --events=phases
step "starting blktrace"
blktrace -d /dev/$d -o bt -D /out >/out/blktrace.out 2>/out/blktrace.err &
bt=$!
i=0
until [ -e /out/bt.blktrace.0 ]; do
	i=$((i + 1)); [ $i -lt 300 ] || premise "blktrace did not start: $(cat /out/blktrace.err)"
	sleep 0.1
done
sleep 1
cat /proc/diskstats >/out/stat.before

step "sequential direct reads"
dd if=/dev/$d of=/dev/null bs=64k count=128 iflag=direct 2>/dev/null
step "random direct 4 KiB reads and writes"
i=0 x=1
while [ $i -lt 150 ]; do
	x=$(((x * 1103515245 + 12345) % 2147483648))
	dd if=/dev/$d of=/dev/null bs=4k count=1 skip=$((x % 4096)) iflag=direct 2>/dev/null
	dd if=/dev/zero of=/dev/$d bs=4k count=1 seek=$((4096 + x / 4096 % 4096)) oflag=direct \
		2>/dev/null
	i=$((i + 1))
done
step "a reader and a writer at once"
dd if=/dev/$d of=/dev/null bs=16k count=512 iflag=direct 2>/dev/null &
r=$!
dd if=/dev/zero of=/dev/$d bs=16k count=512 seek=2048 oflag=direct 2>/dev/null
wait $r
step "buffered writes"
dd if=/dev/zero of=/dev/$d bs=4k count=2048 seek=10240 2>/dev/null
sync
sleep 1

cat /proc/diskstats >/out/stat.after
step "stopping"
kill -INT $bt
wait $bt || true
cat /out/blktrace.out
kill -INT $rec
wait $rec || premise "blkmap record failed: $(cat /out/record.err)"
rec=
