# Guest scenario (busybox sh): LVM-like device-mapper volumes, linear on a
# partition of a loop device, created, written, renamed, written, removed,
# and another created on the same minor under another name, while blkmap
# records with the sources in $SOURCES (default: all). No udev: dmsetup
# makes its own nodes.
# Writes /out/rec.dat, /out/record.err, /out/writes.log ("NAME MAJ:MIN
# FIRST_SECTOR SECTORS" a write, one an incarnation), /out/dm.log ("NAME
# MAJ:MIN FIRST_SECTOR SECTORS DM_NAME" every write) and /out/pv.log (the
# partition under the volumes, then its disk).
# Then the other names people know, in the same recording: a loop device
# re-attached to ten files in turn, as snap refreshes do (/out/loop.log:
# "NAME MAJ:MIN FIRST_SECTOR SECTORS FILE ATTACH_LO ATTACH_HI DETACH_LO
# DETACH_HI KERNEL_SECTORS", a write an attachment, the attach and the detach
# each between two readings of the monotonic clock, the sectors written as
# the device's stat counted them), and an ext2 file system on a volume
# mounted on /srv, written, unmounted, the bare volume written, mounted on
# /mnt/b and written (/out/mounts.log: "MAJ:MIN MOUNTPOINT FROM TO", the
# clock after the mount and before the unmount; "MAJ:MIN - SECTOR COUNT" the
# bare write).
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
# The volume of the file system, made before the recording.
modprobe crc32c_generic	# ext4 asks for crc32c by name; no modules.alias
modprobe ext4
vg=Vg0aaaaaaaaaaaaaaaaaaaaaaaaaaaaa
dmsetup create vg0-srv --uuid "LVM-${vg}Lv3ddddddddddddddddddddddddddddd" \
	--table "0 16384 linear /dev/$pv 32768"
mke2fs -q /dev/mapper/vg0-srv 6144 >/dev/null	# 6 MiB of its 8
mkdir -p /srv /mnt/b /tmp/snaps
for i in 1 2 3 4 5 6 7 8 9 10; do truncate -s 2M "/tmp/snaps/core22_$i.snap"; done
snap=$(losetup -f)
: >/out/loop.log
: >/out/mounts.log

record

# dmwrite DM_NAME SEEK COUNT: 4 KiB blocks through /dev/mapper/DM_NAME, logged.
dmwrite() {
	kname=$(dmsetup info -c --noheadings -o blkdevname "$1") || premise "no dm device named $1"
	dd if=/dev/zero of="/dev/mapper/$1" bs=4k seek="$2" count="$3" oflag=direct 2>/dev/null
	echo "$kname $(devnum "$kname") $(($2 * 8)) $(($3 * 8)) $1" >>/out/dm.log
}

# The monotonic clock, the trace clock's ("now at NS nsecs").
now() { awk '/^now at/ {print $3; exit}' /proc/timer_list; }

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

# The loop device: ten attachments, one write each.
for i in 1 2 3 4 5 6 7 8 9 10; do
	f=/tmp/snaps/core22_$i.snap
	a0=$(now)
	losetup "$snap" "$f" || premise "cannot attach $snap to $f"
	a1=$(now)
	before=$(awk '{print $7}' "/sys/class/block/${snap#/dev/}/stat")
	dd if=/dev/zero of="$snap" bs=4k seek=$((i * 16)) count=$i oflag=direct 2>/dev/null
	after=$(awk '{print $7}' "/sys/class/block/${snap#/dev/}/stat")
	d0=$(now)
	losetup -d "$snap" || premise "cannot detach $snap"
	d1=$(now)
	echo "${snap#/dev/} $(devnum "${snap#/dev/}") $((i * 128)) $((i * 8)) $f $a0 $a1 $d0 $d1 $((after - before))" >>/out/loop.log
	sleep 0.1
done

# The file system on vg0-srv: mounted, written, unmounted, twice.
srv=$(dmsetup info -c --noheadings -o blkdevname vg0-srv)
mounted() {	# mounted MOUNTPOINT FILE: mount, write FILE, unmount; logged
	mount -t ext4 /dev/mapper/vg0-srv "$1" || premise "cannot mount vg0-srv on $1"
	t0=$(now)
	dd if=/dev/zero of="$1/$2" bs=4k count=16 oflag=direct 2>/dev/null || premise "cannot write $1/$2"
	sync
	t1=$(now)
	umount "$1" || premise "cannot unmount $1"
	echo "$(devnum "$srv") $1 $t0 $t1" >>/out/mounts.log
	sleep 0.3
}
mounted /srv a
dd if=/dev/zero of=/dev/mapper/vg0-srv bs=4k seek=2000 count=2 oflag=direct 2>/dev/null
echo "$(devnum "$srv") - 16000 16" >>/out/mounts.log
sleep 0.3
mounted /mnt/b b

kill -INT $rec
wait $rec
dmsetup remove vg0-srv
losetup -d "$loop"
[ "${MODULE:-0}" = 0 ] || rmmod blkmap
