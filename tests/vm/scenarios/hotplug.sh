# Guest scenario (busybox sh): disks and partitions come, go and reuse device
# numbers while blkmap records with the sources in $SOURCES (default: all).
# With MODULE=1 blkmap's module is loaded first, and must unload after.
# Writes /out/rec.dat, /out/record.err and /out/writes.log ("NAME MAJ:MIN
# FIRST_SECTOR SECTORS", one write per incarnation).
set -e
. /scenario-lib.sh

# An image with one MBR partition: START and SIZE in sectors, as octal bytes.
mbr_image() {	# mbr_image FILE START_OCTAL_LE
	dd if=/dev/zero of="$1" bs=1M count=32 2>/dev/null
	printf "\000\000\000\000\203\000\000\000$2\000\120\000\000" |
		dd of="$1" bs=1 seek=446 conv=notrunc 2>/dev/null
	printf '\125\252' | dd of="$1" bs=1 seek=510 conv=notrunc 2>/dev/null
}

modprobe null_blk nr_devices=0
modprobe loop
modprobe zram num_devices=1
[ "${MODULE:-0}" = 0 ] || insmod /lib/blkmap/blkmap.ko

record

# Every write goes to its own sectors, so that each one can be told apart.
# null_blk: one device number, named alpha, then beta.
seek=10
# (Before 6.0 the kernel names both nullb0: incarnations of one name.)
for n in alpha beta; do
	d=$(nullb $n)
	write $d $seek 2
	[ $n = alpha ] && alpha=$(devnum $d)
	[ $n = alpha ] || [ "$(devnum $d)" = "$alpha" ] || premise "beta is not on alpha's $alpha"
	seek=$((seek + 4))
	nullb_del $n
done

# zram: hot_add, hot_remove, and the same id again.
for seek in 5 9; do
	z=$(cat /sys/class/zram-control/hot_add)
	echo 16M >/sys/block/zram$z/disksize
	write zram$z $seek 3
	[ -z "${z1:-}" ] || [ "$z" = "$z1" ] || premise "zram$z did not reuse zram$z1's id"
	z1=$z
	echo "$z" >/sys/class/zram-control/hot_remove
done

# A partitioned loop device, detached; the next one's partition reuses 259:N.
mbr_image /tmp/a.img "\000\010\000\000"
mbr_image /tmp/b.img "\000\020\000\000"
A=$(losetup -f)
losetup -P "$A" /tmp/a.img
B=$(losetup -f)
a=${A#/dev/}
write "${a}p1" 4 2
first=$(devnum "${a}p1")
# A partition rescan removes and re-adds every partition.
blockdev --rereadpt "$A"
write "${a}p1" 6 2
losetup -d "$A"
sleep 0.5
losetup -P "$B" /tmp/b.img
b=${B#/dev/}
write "${b}p1" 8 4
[ "$(devnum "${b}p1")" = "$first" ] || premise "${b}p1 did not reuse $first"
losetup -d "$B"

sleep 0.3
kill -INT $rec
wait $rec
if [ "${MODULE:-0}" != 0 ]; then
	[ -z "$(cat /sys/kernel/blkmap/attached)" ] || { echo "module still attached" >&2; exit 1; }
	rmmod blkmap || { echo "the module does not unload after recording" >&2; exit 1; }
fi
[ -z "$(ls /sys/kernel/tracing/instances)" ] || { echo "instance left behind" >&2; exit 1; }
[ -z "$(cat /sys/kernel/tracing/kprobe_events)" ] || { echo "probes left behind" >&2; exit 1; }
