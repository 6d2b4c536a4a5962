# Guest scenario (busybox sh), booted with tests/vm/run --nvme-multipath: an
# NVMe subsystem whose two controllers share a namespace, so nvme_core's
# native multipath makes a head disk (bio-based) over two hidden path disks
# (no dev file in sysfs). blkmap records with the sources in $SOURCES
# (default all) while 4 KiB and, several at once, 1 MiB direct writes and
# 256 KiB direct reads go to the head, spread over both paths (iopolicy
# round-robin); between them (paused, nothing in flight) the controller mp1
# (PCI 0000:00:11.0) is removed and, after more I/O on the other path
# alone, added back. The kernel's counters are read inside the recording,
# and the removed path's just before it went. Writes /out/rec.dat, /out/record.err,
# /out/stat.before and /out/stat.after (/proc/diskstats), /out/stat.gone
# (the removed path's last /proc/diskstats line) and /out/nvme.log:
# "head NAME", "path NAME CONTROLLER" for the paths at the start, "gone
# NAME CONTROLLER" for the one removed, "back NAME CONTROLLER" for the one
# its controller made when it came back, and the monotonic clock (ns)
# before and after each ("del_begin", "del_end", "add_begin", "add_end").
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
	[ "$(cat "$c/address" 2>/dev/null)" != 0000:00:11.0 ] || gone=${p##*/} ctrl=${c##*/}
done
[ -n "${gone:-}" ] || premise "no NVMe path through controller mp1 (0000:00:11.0)"
for f in /sys/class/nvme-subsystem/*/iopolicy; do echo round-robin >"$f"; done

# now: the monotonic clock (the recording's) in ns, as the timer list reads it.
now() { sed -n 's/^now at \([0-9]*\) nsecs$/\1/p' /proc/timer_list | head -n 1; }
[ -n "$(now)" ] || premise "no monotonic clock in /proc/timer_list"

step "recording"
record
cat /proc/diskstats >/out/stat.before
step "I/O"
dd if=/dev/zero of=/dev/$head bs=4k count=16 oflag=direct 2>/dev/null
# writers and a reader, each over and over until told to stop
io=
for seek in 0 16 32; do
	(while [ ! -e /tmp/stop ]; do
		dd if=/dev/zero of=/dev/$head bs=1M count=4 seek=$seek oflag=direct 2>/dev/null
	done) &
	io="$io $!"
done
(while [ ! -e /tmp/stop ]; do
	dd if=/dev/$head of=/dev/null bs=256k count=16 iflag=direct 2>/dev/null
done) &
io="$io $!"
sleep 1
step "removing $ctrl ($gone) with the writers and the reader paused"
# What the kernel counts on a path whose requests fail over as its
# controller goes cannot be read: del_gendisk() zeroes the path's counters
# before its disk goes. So the I/O pauses (its processes stopped, nothing in
# flight on either path) and the removed path's last reading is its last.
inflight() { cat /sys/class/block/nvme*c*n1/inflight | tr '\n' ' '; }
i=0
until killall -STOP dd 2>/dev/null; [ "$(inflight | tr -d '0 ')" = "" ] &&
	a=$(cat "/sys/class/block/$gone/stat") && sleep 0.2 && killall -STOP dd 2>/dev/null;
	[ "$(inflight | tr -d '0 ')" = "" ] && [ "$(cat "/sys/class/block/$gone/stat")" = "$a" ]; do
	i=$((i + 1)); [ $i -lt 100 ] || premise "the paths' I/O did not pause: $(inflight)"
done
awk -v p="$gone" '$3 == p' /proc/diskstats >/out/stat.gone
echo "del_begin $(now)" >>/out/nvme.log
removed=$(vm-hotplug ctrl del mp1) || premise "cannot remove controller mp1"
echo "del_end $(now)" >>/out/nvme.log
[ "$removed" = "$ctrl" ] || premise "removing mp1 removed '$removed', not $ctrl"
killall -CONT dd 2>/dev/null || :
echo "gone $gone $ctrl" >>/out/nvme.log
sleep 0.5
step "adding mp1 back"
echo "add_begin $(now)" >>/out/nvme.log
back=$(vm-hotplug ctrl add mp1) || premise "cannot add controller mp1 back"
i=0
until p=$(for b in /sys/class/block/nvme*c*n1; do
	c=$(readlink -f "$b/device" 2>/dev/null) || continue
	[ "${c##*/}" != "$back" ] || echo "${b##*/}"
done) && [ -n "$p" ]; do
	i=$((i + 1)); [ $i -lt 300 ] || premise "no path through $back: $(ls /sys/class/block)"
	sleep 0.1
done
echo "add_end $(now)" >>/out/nvme.log
echo "back $p $back" >>/out/nvme.log
for f in /sys/class/nvme-subsystem/*/iopolicy; do echo round-robin >"$f"; done
sleep 1
touch /tmp/stop
wait $io
sleep 0.5
cat /proc/diskstats >/out/stat.after
step "stopping"
kill -INT $rec
wait $rec
[ "${MODULE:-0}" = 0 ] || rmmod blkmap
