# Guest scenario (busybox sh): real-sized I/O through storage stacks, while
# blkmap records with the sources in $SOURCES (default: all). Two hot-added
# virtio disks with two MBR partitions each carry a dm-crypt volume (vda1),
# a dm-stripe volume of 64 KiB chunks (vda2 and vdb1), an md raid1 (vdb2 and
# a loop device); a loop device's two partitions an md raid0 (or, where the
# kernel lacks it, a dm-linear volume); more loop devices an md raid10, a
# dm-linear volume over a partition of its own, and a dm-thin volume. Direct writes of 1 MiB and 4 MiB,
# direct reads of 256 KiB and 1 MiB meanwhile, buffered writes flushed by
# writeback; the kernel's counters are read inside the recording, before and
# after.
# Writes /out/rec.dat, /out/record.err, /out/stat.before and /out/stat.after
# (/proc/diskstats), /out/stacks.log ("NAME KERNEL-NAME" a stack built, the
# thin pool as thin-pool).
set -e
. /scenario-lib.sh
export DM_DISABLE_UDEV=1
[ "${MODULE:-0}" = 0 ] || insmod /lib/blkmap/blkmap.ko
for m in virtio_pci virtio_blk loop dm-mod md-mod raid1; do
	modprobe $m 2>/dev/null || [ -d /sys/module/${m%%-*} ] || premise "cannot load $m"
done
# (crc32c for dm-thin's metadata: without modules.alias the kernel cannot ask for it)
for m in dm-crypt essiv cbc aes_generic sha256_generic raid0 raid10 crc32c_generic dm-thin-pool; do
	modprobe $m 2>/dev/null || true
done

# mbr FILE|DEV: two primary partitions, sectors 2048-65535 and 65536-131071.
mbr() {
	printf '\000\000\000\000\203\000\000\000\000\010\000\000\000\370\000\000' |
		dd of="$1" bs=1 seek=446 conv=notrunc 2>/dev/null
	printf '\000\000\000\000\203\000\000\000\000\000\001\000\000\000\001\000' |
		dd of="$1" bs=1 seek=462 conv=notrunc 2>/dev/null
	printf '\125\252' | dd of="$1" bs=1 seek=510 conv=notrunc 2>/dev/null
}

step "adding two virtio disks"
a=$(vm-hotplug add virtio stack-a 64) || premise "cannot hot-add a virtio disk"
b=$(vm-hotplug add virtio stack-b 64) || premise "cannot hot-add a virtio disk"
step "partitioning $a and $b"
for d in $a $b; do
	mbr /dev/$d
	blockdev --rereadpt /dev/$d
	[ -e /sys/class/block/${d}2 ] || premise "no partitions on $d"
done
dd if=/dev/zero of=/tmp/leg.img bs=1M count=32 2>/dev/null
dd if=/dev/zero of=/tmp/pv.img bs=1M count=64 2>/dev/null
mbr /tmp/pv.img
leg=$(losetup -f); losetup "$leg" /tmp/leg.img
pv=$(losetup -f); losetup -P "$pv" /tmp/pv.img
: >/out/stacks.log
# built NAME DEVICE: NAME is DEVICE's kernel name (/dev/mapper has nodes, not links, without udev).
built() {
	case $2 in
	/dev/mapper/*) echo "$1 $(dmsetup info -c --noheadings -o blkdevname "${2#/dev/mapper/}")" ;;
	*) echo "$1 $(basename "$(readlink -f "$2")")" ;;
	esac >>/out/stacks.log
}

step "building the stacks"
key=0123456789abcdef0123456789abcdef
dmsetup --noudevsync create crypt \
	--table "0 63488 crypt aes-cbc-essiv:sha256 $key 0 /dev/${a}1 0" 2>/out/crypt.err ||
	premise "no dm-crypt: $(cat /out/crypt.err)"
built crypt /dev/mapper/crypt
echo "crypt-on ${a}1" >>/out/stacks.log
dmsetup --noudevsync create stripe --table "0 126976 striped 2 128 /dev/${a}2 0 /dev/${b}1 0"
built stripe /dev/mapper/stripe
mdadm --create /dev/md0 --run --quiet --level=1 --raid-devices=2 --metadata=1.2 \
	--assume-clean /dev/${b}2 "$leg" 2>/out/mdadm.err || premise "mdadm: $(cat /out/mdadm.err)"
built raid1 /dev/md0
if [ -d /sys/module/raid0 ]; then
	mdadm --create /dev/md1 --run --quiet --level=0 --raid-devices=2 --metadata=1.2 \
		--chunk=64 ${pv}p1 ${pv}p2 2>/out/mdadm.err || premise "mdadm raid0: $(cat /out/mdadm.err)"
	built raid0 /dev/md1
else
	dmsetup --noudevsync create linear --table "0 63488 linear ${pv}p1 0"
	built linear /dev/mapper/linear
fi
# raid10 (near 2) over two loop devices; dm-linear over a loop partition;
# dm-thin: a pool of a metadata and a data loop device, one thin volume.
for f in r10a r10b lin meta data; do dd if=/dev/zero of=/tmp/$f.img bs=1M count=32 2>/dev/null; done
mbr /tmp/lin.img
r10a=$(losetup -f); losetup "$r10a" /tmp/r10a.img
r10b=$(losetup -f); losetup "$r10b" /tmp/r10b.img
lin=$(losetup -f); losetup -P "$lin" /tmp/lin.img
meta=$(losetup -f); losetup "$meta" /tmp/meta.img
data=$(losetup -f); losetup "$data" /tmp/data.img
if [ -d /sys/module/raid10 ]; then
	mdadm --create /dev/md2 --run --quiet --level=10 --raid-devices=2 --metadata=1.2 \
		--assume-clean "$r10a" "$r10b" 2>/out/mdadm.err || premise "mdadm raid10: $(cat /out/mdadm.err)"
	built raid10 /dev/md2
fi
dmsetup --noudevsync create linear1 --table "0 63488 linear ${lin}p1 0"
built linear1 /dev/mapper/linear1
if dmsetup --noudevsync create pool --table "0 65536 thin-pool $meta $data 128 0" 2>/out/thin.err; then
	dmsetup message pool 0 "create_thin 0"
	dmsetup --noudevsync create thin --table "0 65536 thin /dev/mapper/pool 0"
	built thin /dev/mapper/thin
	built thin-pool /dev/mapper/pool
fi
sync
sleep 1	# md's superblock writes after assembly, before the counters are read

step "recording"
record
cat /proc/diskstats >/out/stat.before
step "I/O"
# bg COMMAND...: in the background, its pid in $io (a bare wait would wait for the recorder).
io=""
bg() { "$@" 2>/dev/null & io="$io $!"; }
top=$(awk '$1 == "raid0" || $1 == "linear" {print $2}' /out/stacks.log)
bg dd if=/dev/zero of=/dev/mapper/crypt bs=1M count=12 oflag=direct
bg dd if=/dev/mapper/crypt of=/dev/null bs=256k count=48 iflag=direct
bg dd if=/dev/zero of=/dev/mapper/stripe bs=4M count=6 oflag=direct
bg dd if=/dev/mapper/stripe of=/dev/null bs=1M count=24 iflag=direct skip=32
bg dd if=/dev/zero of=/dev/md0 bs=1M count=12 oflag=direct
bg dd if=/dev/md0 of=/dev/null bs=1M count=8 iflag=direct skip=16
bg dd if=/dev/zero of=/dev/$top bs=1M count=8 oflag=direct
bg dd if=/dev/zero of=/dev/$top bs=64k count=128 seek=256
bg dd if=/dev/zero of=/dev/mapper/linear1 bs=1M count=8 oflag=direct
bg dd if=/dev/mapper/linear1 of=/dev/null bs=256k count=16 skip=40 iflag=direct
[ ! -e /dev/md2 ] || bg dd if=/dev/zero of=/dev/md2 bs=4M count=2 oflag=direct
[ ! -e /dev/md2 ] || bg dd if=/dev/md2 of=/dev/null bs=1M count=8 skip=16 iflag=direct
[ ! -e /dev/mapper/thin ] || bg dd if=/dev/zero of=/dev/mapper/thin bs=1M count=8 oflag=direct
for pid in $io; do wait $pid || premise "an I/O failed"; done
step "buffered writes"
# Buffered writes to the stripe, written back by the flusher or by sync.
dd if=/dev/zero of=/dev/mapper/stripe bs=64k count=128 seek=512 2>/dev/null
sync
sleep 1	# md's clean marking, 200 ms after its last write, lands inside
cat /proc/diskstats >/out/stat.after
step "stopping"
kill -INT $rec
wait $rec
step "tearing down"

dmsetup --noudevsync remove crypt
dmsetup --noudevsync remove stripe
dmsetup --noudevsync remove linear1
[ ! -e /dev/mapper/thin ] || { dmsetup --noudevsync remove thin; dmsetup --noudevsync remove pool; }
[ ! -e /dev/md2 ] || mdadm --stop /dev/md2 2>/dev/null
[ ! -e /dev/mapper/linear ] || dmsetup --noudevsync remove linear
mdadm --stop /dev/md0 2>/dev/null
[ ! -e /dev/md1 ] || mdadm --stop /dev/md1 2>/dev/null
for l in "$leg" "$pv" "$r10a" "$r10b" "$lin" "$meta" "$data"; do losetup -d "$l"; done
[ "${MODULE:-0}" = 0 ] || rmmod blkmap
