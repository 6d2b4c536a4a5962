# Guest scenario (busybox sh) for blkmap diff: the same disks under other
# names and numbers. BOOT=1: a virtio disk with serial diff-serial, hot-added
# first, and a logical volume vg0/data on a second one (Debian's lvm2, no
# udev); recording a.dat writes both; vg0/data is renamed vg0/moved and
# recording b.dat writes both again. BOOT=2 (another boot): a disk
# diff-other is hot-added before diff-serial, which so gets another name and
# number; recording c.dat writes it.
# Writes /out/a.dat, b.dat, c.dat with their .err; /out/disks ("SET WHAT NAME
# MAJ:MIN", WHAT serial or lv); /out/stat ("SET MAJ:MIN SECTORS_READ
# SECTORS_WRITTEN", each disk's growth in /sys/class/block/NAME/stat across
# the writes of that recording).
set -e
. /scenario-lib.sh
lvm_ready
lvm() { command lvm "$@" >>/out/lvm.log 2>&1 || premise "lvm $* failed (see lvm.log)"; }
: >/out/disks
: >/out/stat

# sectors NAME: "READ WRITTEN" sectors of NAME's stat.
sectors() { awk '{ print $3, $7 }' "/sys/class/block/$1/stat"; }
# in_recording SET NAME...: record SET.dat while each NAME gets 2 MiB of
# direct writes and 1 MiB of direct reads; each NAME's stat growth, read
# inside the recording, into /out/stat.
in_recording() {
	r=$1
	shift
	blkmap record -o "/out/$r.dat" 2>"/out/$r.err" &
	rec=$!
	recording "/out/$r.err"
	for n in "$@"; do echo "$n $(sectors "$n")"; done >/out/before
	for n in "$@"; do
		dd if=/dev/zero of="/dev/$n" bs=1M count=2 oflag=direct 2>/dev/null ||
			premise "cannot write to $n"
		dd if="/dev/$n" of=/dev/null bs=1M count=1 iflag=direct 2>/dev/null ||
			premise "cannot read $n"
	done
	while read -r n r0 w0; do
		set -- $(sectors "$n")
		echo "$r $(devnum "$n") $(($1 - r0)) $(($2 - w0))"
	done </out/before >>/out/stat
	kill -INT $rec
	wait $rec || premise "recording $r failed"
	rec=
}

case ${BOOT:-1} in
1)
	step "adding diff-serial, then the LVM disk"
	s=$(vm-hotplug add virtio diff-serial 64) || premise "cannot hot-add diff-serial"
	pv=$(vm-hotplug add virtio diff-pv 64) || premise "cannot hot-add diff-pv"
	lvm pvcreate -y "/dev/$pv"
	lvm vgcreate -y vg0 "/dev/$pv"
	lvm lvcreate -y -Wn -Zn -n data -L 8m vg0
	lv=$(dmsetup info -c --noheadings -o blkdevname vg0-data) || premise "no dm device for vg0/data"
	echo "a serial $s $(devnum "$s")" >>/out/disks
	echo "a lv $lv $(devnum "$lv")" >>/out/disks
	step "recording a"
	in_recording a "$s" "$lv"
	lvm lvrename vg0 data moved
	lv=$(dmsetup info -c --noheadings -o blkdevname vg0-moved) || premise "no dm device for vg0/moved"
	echo "b serial $s $(devnum "$s")" >>/out/disks
	echo "b lv $lv $(devnum "$lv")" >>/out/disks
	step "recording b"
	in_recording b "$s" "$lv"
	lvm lvremove -y vg0
	;;
2)
	step "adding diff-other, then diff-serial"
	vm-hotplug add virtio diff-other 64 >/dev/null || premise "cannot hot-add diff-other"
	s=$(vm-hotplug add virtio diff-serial 64) || premise "cannot hot-add diff-serial"
	echo "c serial $s $(devnum "$s")" >>/out/disks
	step "recording c"
	in_recording c "$s"
	;;
esac
