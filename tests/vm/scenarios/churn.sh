# Guest scenario (busybox sh): every map source at once (or $SOURCES), with
# device numbers changing hands as fast as the kernel allows:
# - a loop device's partition table rewritten and re-read so that 259:N is
#   loopXp1, then loopXp2, then loopXp1 again, one BLKRRPART each;
# - null_blk devices created, written and removed in a tight loop.
# BUFFER (KiB per CPU) makes the ring buffer small, and the recorder is
# stopped (SIGSTOP) while null_blk devices churn, so that events are lost.
# RING makes it a flight recorder of that size, and reads after the
# partition flips push their writes out of it.
# With MODULE=1 blkmap's module is loaded first.
# Writes /out/rec.dat, /out/record.err and /out/writes.log ("NAME MAJ:MIN
# FIRST_SECTOR SECTORS", one write per incarnation).
set -e
. /scenario-lib.sh

# table FILE N: one MBR partition, number N (1 or 2), sectors 2048..+16384;
# none for N 0.
table() {
	dd if=/dev/zero of="$1" bs=512 count=1 conv=notrunc 2>/dev/null
	[ "$2" = 0 ] || printf "\000\000\000\000\203\000\000\000\000\010\000\000\000\100\000\000" |
		dd of="$1" bs=1 seek=$((446 + 16 * ($2 - 1))) conv=notrunc 2>/dev/null
	printf '\125\252' | dd of="$1" bs=1 seek=510 conv=notrunc 2>/dev/null
}

modprobe null_blk nr_devices=0
modprobe loop
[ "${MODULE:-0}" = 0 ] || insmod /lib/blkmap/blkmap.ko
dd if=/dev/zero of=/tmp/disk.img bs=1M count=16 2>/dev/null
table /tmp/disk.img 1
# reused_partition: some number in the log carried both p1 and p2.
reused_partition() {
	awk '$1 ~ /p[12]$/ {print $2, substr($1, length($1))}' "$log" | sort -u |
		awk '{n[$1]++} END {for (d in n) if (n[d] > 1) exit 0; exit 1}'
}
L=$(losetup -f)
losetup -P "$L" /tmp/disk.img
l=${L#/dev/}

record ${BUFFER:+-b "$BUFFER"} ${RING:+--ring=$RING}

# The partition table flips between p1 and p2; each incarnation is written.
# A dropped partition's number is free again only once its inode is freed
# (after an RCU grace period), so whether the next partition gets the same
# number is a race: flip at least five times, and on until some 259:N has
# carried both p1 and p2 (the premise), twelve times at most. The race can
# go the same way every time (each new partition taking the number the
# previous one did not free yet): from the seventh flip on, the old
# partition is dropped first and its number given the time to be freed.
write "${l}p1" 0 1
seek=1 n=2 flips=0
until [ $flips -ge 5 ] && reused_partition; do
	[ $flips -lt 12 ] || premise "no 259:N carried ${l}p1 and ${l}p2 in 12 flips"
	n=$((3 - n)) flips=$((flips + 1))
	if [ $flips -gt 6 ]; then
		table "$L" 0
		blockdev --rereadpt "$L"
		sleep 1
	fi
	table "$L" $n
	blockdev --rereadpt "$L"
	write "${l}p$n" $seek 1
	seek=$((seek + 2))
done

# A flight recording: reads enough to push the partitions' writes out of the ring.
[ -z "${RING:-}" ] || dd if="$L" of=/dev/null bs=4k count=4000 iflag=direct 2>/dev/null

# null_blk: created, written and removed back to back, on one number. The
# writes keep clear of the sectors the kernel's partition scan reads. With a
# small buffer the recorder is stopped meanwhile: the buffer overflows.
[ -z "${BUFFER:-}" ] || kill -STOP $rec
for i in 1 2 3 4 5 6 7 8; do
	d=$(nullb nb$i)
	write $d $((16 + i * 3)) 1
	# Reads to fill the small buffer while the recorder is stopped.
	[ -z "${BUFFER:-}" ] || dd if=/dev/$d of=/dev/null bs=4k count=300 iflag=direct 2>/dev/null
	nullb_del nb$i
done

[ -z "${BUFFER:-}" ] || kill -CONT $rec
sleep 0.3
kill -INT $rec
wait $rec
losetup -d "$L"
if [ "${MODULE:-0}" != 0 ]; then
	rmmod blkmap || { echo "the module does not unload after recording" >&2; exit 1; }
fi
