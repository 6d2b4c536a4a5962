# Guest scenario (busybox sh): Debian's lvm2, without udev, on a hot-added
# virtio disk, recorded once per source set in $SETS (default: all), in
# one boot: a volume created, written, renamed, written and removed;
# another created on its minor and written; a snapshot of it, written
# through the snapshot and through its origin; a thin pool and a thin
# volume, written; then every volume removed. MODULE=1 loads blkmap's
# module before the set "all" (the sets before it go without).
# Writes, per set, into /out/SET/: rec.dat and record.err; writes.log
# ("NAME MAJ:MIN FIRST_SECTOR SECTORS", the first write to each
# incarnation); lv.log ("T0 T1 NAME MAJ:MIN FIRST_SECTOR SECTORS VG/LV",
# every write, T0 and T1 /proc/uptime before and after it); dm.log ("T1
# NAME MAJ:MIN DM_NAME VG LV LAYER", every dm device right after each
# write, split by dmsetup splitname, "-" for an empty part); lvs.log
# (lvs -a after each write); cmds.log ("T0 T1 COMMAND ...", each lvm command
# and /proc/uptime before and after it). /out/lvm.log: lvm's messages.
set -e
. /scenario-lib.sh
lvm_ready
# lvm COMMAND ...: logged in $dir/cmds.log ("T0 T1 COMMAND ...", /proc/uptime
# before and after) while a set records.
lvm() {
	c0=$(cut -d' ' -f1 /proc/uptime)
	command lvm "$@" >>/out/lvm.log 2>&1 || premise "lvm $* failed (see lvm.log)"
	[ -z "${dir:-}" ] || echo "$c0 $(cut -d' ' -f1 /proc/uptime) $*" >>"$dir/cmds.log"
}

step "adding a virtio disk"
disk=$(vm-hotplug add virtio lvm-pv 96) || premise "cannot hot-add a virtio disk"
lvm pvcreate -y "/dev/$disk"
lvm vgcreate -y vg0 "/dev/$disk"

# state T1: every dm device now, as "T1 NAME MAJ:MIN DM_NAME VG LV LAYER".
state() {
	t=$1
	dmsetup info -c --noheadings --separator ' ' -o blkdevname,major,minor,name |
	while read -r k ma mi n; do
		set -- $(dmsetup splitname --noheadings --separator ' ' -o vg_name,lv_name,lv_layer "$n")
		echo "$t $k $ma:$mi $n ${1:--} ${2:--} ${3:--}"
	done
}
# lvwrite new|- VG/LV SEEK_MIB: 1 MiB direct through /dev/VG/LV, logged;
# "new": the first write to this incarnation of the device.
lvwrite() {
	kname=$(dmsetup info -c --noheadings -o blkdevname "$(echo "$2" | tr / -)") ||
		premise "no dm device for $2"
	sleep 0.05
	t0=$(cut -d' ' -f1 /proc/uptime)
	dd if=/dev/zero of="/dev/$2" bs=1M seek="$3" count=1 oflag=direct 2>/dev/null ||
		premise "cannot write to /dev/$2"
	t1=$(cut -d' ' -f1 /proc/uptime)
	sleep 0.05
	sector=$(($3 * 2048))
	echo "$t0 $t1 $kname $(devnum "$kname") $sector 2048 $2" >>"$dir/lv.log"
	[ "$1" != new ] || echo "$kname $(devnum "$kname") $sector 2048" >>"$dir/writes.log"
	state "$t1" >>"$dir/dm.log"
	command lvm lvs -a --noheadings -o vg_name,lv_name,lv_attr,origin,pool_lv >>"$dir/lvs.log" 2>&1
}

for set in ${SETS:-all}; do
	dir=/out/$set
	mkdir -p "$dir"
	if [ "$set" = all ] && [ "${MODULE:-0}" = 1 ]; then
		insmod /lib/blkmap/blkmap.ko
	fi
	step "$set: recording"
	blkmap record --sources="$set" -o "$dir/rec.dat" 2>"$dir/record.err" &
	rec=$!
	recording "$dir/record.err"

	step "$set: a volume created, written, renamed, written, removed"
	lvm lvcreate -y -Wn -Zn -n data -L 8m vg0
	lvwrite new vg0/data 1
	first=$(devnum "$kname")
	lvm lvrename vg0 data old
	lvwrite - vg0/old 2
	lvm lvremove -y vg0/old
	step "$set: another volume on its minor"
	lvm lvcreate -y -Wn -Zn -n logs -L 8m vg0
	lvwrite new vg0/logs 3
	[ "$(devnum "$kname")" = "$first" ] || premise "vg0/logs is on $(devnum "$kname"), not on $first"
	step "$set: a snapshot, written, and its origin written"
	lvm lvcreate -y -s -n snap -L 4m vg0/logs
	lvwrite new vg0/snap 1
	lvwrite - vg0/logs 4
	step "$set: a thin pool and a thin volume"
	lvm lvcreate -y --type thin-pool -n pool -L 16m vg0
	lvm lvcreate -y -Wn -n thin -V 16m --thinpool vg0/pool
	lvwrite new vg0/thin 2
	lvm lvremove -y vg0
	[ -z "$(dmsetup info -c --noheadings -o name 2>/dev/null | grep -v 'No devices')" ] ||
		premise "dm devices left: $(dmsetup ls)"

	kill -INT $rec
	wait $rec
	rec= dir=
done
lvm vgremove -y vg0
[ "${MODULE:-0}" = 0 ] || rmmod blkmap
