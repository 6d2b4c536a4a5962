# Guest scenario (busybox sh), booted with tests/vm/run --nvme-multipath: an
# NVMe subsystem whose two controllers share a namespace, so nvme_core's
# native multipath makes a head disk (bio-based) over two hidden path disks
# (no dev file in sysfs). blkmap records with the sources in $SOURCES
# (default all) while 4 KiB and 1 MiB direct writes and 256 KiB direct reads
# go to the head; the kernel's counters are read inside the recording.
# Writes /out/rec.dat, /out/record.err, /out/stat.before and
# /out/stat.after (/proc/diskstats), /out/nvme.log ("head NAME", "path NAME CONTROLLER").
set -e
. /scenario-lib.sh
[ "${MODULE:-0}" = 0 ] || insmod /lib/blkmap/blkmap.ko
step "loading nvme"
modprobe nvme 2>/dev/null || [ -d /sys/module/nvme ] || premise "cannot load nvme"
# The controllers may take seconds to appear under TCG; the head's name
# follows the controller that came first.
i=0
until [ "$(ls -d /sys/class/block/nvme*c*n1 2>/dev/null | wc -l)" -eq 2 ]; do
	i=$((i + 1)); [ $i -lt 300 ] || premise "no two NVMe paths: $(ls /sys/class/block)"
	sleep 0.1
done
head=
for b in /sys/class/block/nvme*n1; do
	case ${b##*/} in *c*) ;; *) head=${b##*/} ;; esac
done
[ -n "$head" ] || premise "no NVMe head disk"
: >/out/nvme.log
echo "head $head" >>/out/nvme.log
for p in /sys/class/block/nvme*c*n1; do
	c=$(readlink -f "$p/device")
	echo "path ${p##*/} ${c##*/}" >>/out/nvme.log	# and its controller
done

step "recording"
record
cat /proc/diskstats >/out/stat.before
step "I/O"
dd if=/dev/zero of=/dev/$head bs=4k count=16 oflag=direct 2>/dev/null
dd if=/dev/zero of=/dev/$head bs=1M count=8 seek=4 oflag=direct 2>/dev/null &
w=$!
dd if=/dev/$head of=/dev/null bs=256k count=32 iflag=direct 2>/dev/null
wait $w
sleep 0.5
cat /proc/diskstats >/out/stat.after
step "stopping"
kill -INT $rec
wait $rec
[ "${MODULE:-0}" = 0 ] || rmmod blkmap
