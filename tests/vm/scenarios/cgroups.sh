# Guest scenario (busybox sh): which cgroup did the I/O, with cgroup v2's io
# and memory controllers on (+io +memory in the root's subtree_control) and
# three hot-added virtio disks, recorded by blkmap:
# - /web and /db reading and writing direct 1 MiB I/O at once, two tasks
#   each, on disks a and b;
# - a task in /web that forks a writer, moves to /db and forks another;
# - /x written, removed, made again and written: /x#1 and /x#2;
# - /wb writing a file on disk c's ext4 (an ext2 image, busybox's mke2fs,
#   mounted with the ext4 driver) through the page cache, written back by
#   the kernel's flusher after the writer exited.
# Each cgroup's io.stat is read inside the recording (/x#1's before it is
# removed). Writes /out/rec.dat, /out/record.err, /out/disks ("a|b|c NAME
# MAJ:MIN") and /out/iostat ("PATH#N MAJ:MIN rbytes=... wbytes=... rios=...
# wios=..." a line each cgroup and device io.stat has).
set -e
. /scenario-lib.sh
modprobe virtio_pci 2>/dev/null || true
modprobe virtio_blk 2>/dev/null || [ -d /sys/module/virtio_blk ] || premise "cannot load virtio_blk"
modprobe ext4 2>/dev/null || grep -qw ext4 /proc/filesystems || premise "no ext4"
# ext4 will not mount without crc32c, which Debian builds as a module.
modprobe crc32c_generic 2>/dev/null || true
C=/sys/fs/cgroup
mkdir -p $C
mount -t cgroup2 cgroup2 $C || premise "cannot mount cgroup2"
echo "+io +memory" >$C/cgroup.subtree_control || premise "no io or memory controller"
mkdir $C/web $C/db $C/x $C/wb

step "adding three virtio disks"
: >/out/disks
for d in a b c; do
	n=$(vm-hotplug add virtio cg$d 96) || premise "cannot hot-add disk $d"
	eval "disk_$d=$n"
	echo "$d $n $(devnum "$n")" >>/out/disks
done
mke2fs -q /dev/$disk_c >/dev/null 2>&1 || mke2fs /dev/$disk_c || premise "mke2fs failed"
mkdir -p /mnt
mount -t ext4 /dev/$disk_c /mnt || premise "cannot mount $disk_c with ext4"
sync

# iostat PATH#N: that cgroup's io.stat lines into /out/iostat.
iostat() {
	path=${1%#*}
	while read -r dev rest; do
		echo "$1 $dev $rest" >>/out/iostat
	done <"$C$path/io.stat"
}
# inside CGROUP COMMAND...: COMMAND run by a task that joined CGROUP first.
inside() {
	cg=$1
	shift
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$C/$cg" "$@"
}
: >/out/iostat

step "recording"
record
step "web and db: direct 1 MiB I/O, two tasks each at once"
# Not a bare wait: the recorder is a job too.
inside web dd if=/dev/zero of=/dev/$disk_a bs=1M count=12 oflag=direct 2>/dev/null &
p1=$!
inside web dd if=/dev/$disk_b of=/dev/null bs=1M count=10 skip=40 iflag=direct 2>/dev/null &
p2=$!
inside db dd if=/dev/zero of=/dev/$disk_b bs=1M count=14 oflag=direct 2>/dev/null &
p3=$!
inside db dd if=/dev/$disk_a of=/dev/null bs=1M count=8 skip=50 iflag=direct 2>/dev/null &
wait $p1 $p2 $p3 $!
step "a task moved from web to db while it forks writers"
sh -c '
	echo $$ >'$C'/web/cgroup.procs
	dd if=/dev/zero of=/dev/'$disk_b' bs=1M count=5 seek=60 oflag=direct 2>/dev/null &
	echo $$ >'$C'/db/cgroup.procs
	dd if=/dev/zero of=/dev/'$disk_b' bs=1M count=7 seek=70 oflag=direct 2>/dev/null &
	wait'
step "x, removed and made again"
inside x dd if=/dev/zero of=/dev/$disk_a bs=1M count=3 seek=80 oflag=direct 2>/dev/null
iostat "/x#1"
rmdir $C/x
mkdir $C/x
inside x dd if=/dev/zero of=/dev/$disk_a bs=1M count=6 seek=85 oflag=direct 2>/dev/null
step "wb: buffered writes on ext4, written back by the kernel"
inside wb dd if=/dev/zero of=/mnt/file bs=1M count=16 2>/dev/null
sync
sleep 1
for cg in "/web#1" "/db#1" "/x#2" "/wb#1"; do iostat "$cg"; done
step "stopping"
kill -INT $rec
wait $rec || premise "blkmap record failed: $(cat /out/record.err)"
rec=
umount /mnt
