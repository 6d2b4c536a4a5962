# Guest scenario (busybox sh): an md raid1 of two loop devices assembled,
# written and stopped, then another array on the same number; a dm-crypt
# volume over a loop partition (a dm-linear one where the kernel lacks the
# cipher), while blkmap records with the sources in $SOURCES (default: all).
# Writes /out/rec.dat, /out/record.err, /out/writes.log ("NAME MAJ:MIN
# FIRST_SECTOR SECTORS", one write an incarnation), /out/crypt.log (the
# target used), /out/legs.log (the arrays' legs, two a line) and
# /out/pv.log (the volume's partition, then its disk).
set -e
. /scenario-lib.sh
export DM_DISABLE_UDEV=1
modprobe loop
modprobe md-mod
modprobe raid1
modprobe dm-mod
# The cipher's modules by name: without modules.alias the kernel cannot ask for them.
for m in dm-crypt essiv cbc aes_generic sha256_generic; do modprobe $m 2>/dev/null || true; done
[ "${MODULE:-0}" = 0 ] || insmod /lib/blkmap/blkmap.ko
for i in 0 1 2 3; do dd if=/dev/zero of=/tmp/leg$i.img bs=1M count=24 2>/dev/null; done
# The crypt volume's partition: one MBR partition from sector 2048.
dd if=/dev/zero of=/tmp/pv.img bs=1M count=16 2>/dev/null
printf '\000\000\000\000\203\000\000\000\000\010\000\000\000\170\000\000' |
	dd of=/tmp/pv.img bs=1 seek=446 conv=notrunc 2>/dev/null
printf '\125\252' | dd of=/tmp/pv.img bs=1 seek=510 conv=notrunc 2>/dev/null
legs=""
for i in 0 1 2 3; do
	l=$(losetup -f)
	losetup "$l" /tmp/leg$i.img
	legs="$legs $l"
done
set -- $legs
pvloop=$(losetup -f)
losetup -P "$pvloop" /tmp/pv.img

echo "$1 $2
$3 $4" | sed 's|/dev/||g' >/out/legs.log
echo "${pvloop#/dev/}p1 ${pvloop#/dev/}" >/out/pv.log

record

# Two arrays, one after the other, on md0.
seek=16
for pair in "$1 $2" "$3 $4"; do
	mdadm --create /dev/md0 --run --quiet --level=1 --raid-devices=2 --metadata=1.2 \
		--assume-clean $pair 2>/out/mdadm.err || premise "mdadm: $(cat /out/mdadm.err)"
	write md0 $seek 2
	mdadm --stop /dev/md0 2>/out/mdadm.err || premise "mdadm --stop: $(cat /out/mdadm.err)"
	i=0
	while [ -e /sys/class/block/md0 ]; do
		i=$((i + 1)); [ $i -lt 50 ] || premise "md0 stays after --stop"
		sleep 0.1
	done
	seek=$((seek + 8))
done

# dm-crypt with a fixed key (aes-cbc-essiv: in every kernel's base crypto), else linear.
key=0123456789abcdef0123456789abcdef
pv=${pvloop#/dev/}p1
if dmsetup --noudevsync create secret \
	--table "0 8192 crypt aes-cbc-essiv:sha256 $key 0 /dev/$pv 0" 2>/out/crypt.err; then
	echo crypt >/out/crypt.log
else
	echo "linear ($(cat /out/crypt.err))" >/out/crypt.log
	dmsetup --noudevsync create secret --table "0 8192 linear /dev/$pv 0"
fi
name=$(dmsetup info -c --noheadings -o blkdevname secret)
write "$name" 40 2
dmsetup --noudevsync remove secret

kill -INT $rec
wait $rec
for l in $legs $pvloop; do losetup -d "$l"; done
[ "${MODULE:-0}" = 0 ] || rmmod blkmap
