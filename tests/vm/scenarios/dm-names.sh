# Guest scenario (busybox sh): LVM-like device-mapper volumes, linear on a
# partition of a loop device, created, written, renamed, written, removed,
# and another created on the same minor under another name, while blkmap
# records with the sources in $SOURCES (default: all). No udev: dmsetup
# makes its own nodes.
# Writes /out/rec.dat, /out/record.err, /out/writes.log ("NAME MAJ:MIN
# FIRST_SECTOR SECTORS" a write, one an incarnation), /out/dm.log ("NAME
# MAJ:MIN FIRST_SECTOR SECTORS DM_NAME" every write) and /out/pv.log (the
# partition under the volumes, then its disk).
set -e
. /scenario-lib.sh
export DM_DISABLE_UDEV=1
dmsetup() { command dmsetup --noudevsync "$@"; }

# An image with one MBR partition of 32 MiB less 1 MiB, from sector 2048.
dd if=/dev/zero of=/tmp/pv.img bs=1M count=32 2>/dev/null
printf '\000\000\000\000\203\000\000\000\000\010\000\000\000\370\000\000' |
	dd of=/tmp/pv.img bs=1 seek=446 conv=notrunc 2>/dev/null
printf '\125\252' | dd of=/tmp/pv.img bs=1 seek=510 conv=notrunc 2>/dev/null
modprobe loop
modprobe dm-mod
[ "${MODULE:-0}" = 0 ] || insmod /lib/blkmap/blkmap.ko
loop=$(losetup -f)
losetup -P "$loop" /tmp/pv.img
pv=${loop#/dev/}p1
[ -e "/sys/class/block/$pv" ] || premise "no partition $pv on $loop"
echo "$pv ${loop#/dev/}" >/out/pv.log

record

# dmwrite DM_NAME SEEK COUNT: 4 KiB blocks through /dev/mapper/DM_NAME, logged.
dmwrite() {
	kname=$(dmsetup info -c --noheadings -o blkdevname "$1") || premise "no dm device named $1"
	dd if=/dev/zero of="/dev/mapper/$1" bs=4k seek="$2" count="$3" oflag=direct 2>/dev/null
	echo "$kname $(devnum "$kname") $(($2 * 8)) $(($3 * 8)) $1" >>/out/dm.log
}

# UUIDs as LVM gives them: LVM-, the VG's UUID, the LV's (32 characters each).
vg=Vg0aaaaaaaaaaaaaaaaaaaaaaaaaaaaa
dmsetup create vg0-data --uuid "LVM-${vg}Lv1bbbbbbbbbbbbbbbbbbbbbbbbbbbbb" \
	--table "0 16384 linear /dev/$pv 0"
dmwrite vg0-data 10 2
first=$(devnum "$kname")
echo "$kname $first 80 16" >>"$log"
sleep 0.5
dmsetup rename vg0-data vg0-old
sleep 0.5
dmwrite vg0-old 20 1
dmsetup remove vg0-old
sleep 0.5
dmsetup create vg0-logs --uuid "LVM-${vg}Lv2ccccccccccccccccccccccccccccc" \
	--table "0 8192 linear /dev/$pv 16384"
dmwrite vg0-logs 30 3
[ "$(devnum "$kname")" = "$first" ] || premise "vg0-logs is on $(devnum "$kname"), not on $first"
echo "$kname $first 240 24" >>"$log"
dmsetup remove vg0-logs

kill -INT $rec
wait $rec
losetup -d "$loop"
[ "${MODULE:-0}" = 0 ] || rmmod blkmap
