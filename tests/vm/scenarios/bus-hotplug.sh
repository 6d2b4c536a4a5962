# Guest scenario (busybox sh): virtio, SCSI and NVMe disks pulled and others
# put in their place through QEMU's monitor, while blkmap records with the
# sources in $SOURCES (default: all) and a reader polls every disk's serial
# number, as smartd and udev would (the drivers' own requests, N in RWBS).
# Each kind's two disks get the same number and name: only their serials
# (the IDs below) and the time tell them apart.
# Writes /out/rec.dat, /out/record.err, /out/writes.log ("NAME MAJ:MIN
# FIRST_SECTOR SECTORS" a write), /out/serials.log ("NAME MAJ:MIN SERIAL" a
# disk) and /out/ticks.log ("NAME IO_TICKS_MS" at the start and the end).
set -e
. /scenario-lib.sh
[ "${MODULE:-0}" = 0 ] || insmod /lib/blkmap/blkmap.ko

# The modules first: their first scan is not what the recording is about.
for m in virtio_pci virtio_blk virtio_scsi sd_mod nvme; do
	modprobe $m 2>/dev/null || [ -d /sys/module/$m ] || premise "cannot load $m"
done

poll_serials() {
	while [ ! -e /tmp/stop-polling ]; do
		for b in /sys/class/block/*; do
			cat "$b/serial" "$b/device/vpd_pg80" >/dev/null 2>&1 || true
		done
		sleep 0.3
	done
}

record
poll_serials &
poller=$!

seek=8
for kind in virtio scsi nvme; do
	first=
	for id in ${kind}-one ${kind}-two; do
		echo "bus-hotplug: adding $kind disk $id"
		name=$(vm-hotplug add $kind $id 64) || premise "cannot hot-add a $kind disk"
		echo "bus-hotplug: $id is $name; writing"
		dev=$(devnum "$name")
		echo "$name $dev $id" >>/out/serials.log
		echo "$name $(awk '{print $10}' /sys/block/$name/stat)" >>/out/ticks.log
		write "$name" $seek 2
		sleep 1		# the serial reader sees it a few times
		echo "$name $(awk '{print $10}' /sys/block/$name/stat)" >>/out/ticks.log
		echo "bus-hotplug: removing $name ($id)"
		vm-hotplug del $id || premise "cannot hot-remove $name ($id)"
		[ -z "$first" ] || [ "$first" = "$name $dev" ] ||
			premise "$id came as $name $dev, not as $first"
		first="$name $dev"
		seek=$((seek + 8))
	done
done

touch /tmp/stop-polling
wait $poller
echo "bus-hotplug: stopping the recorder"
kill -INT $rec
wait $rec
[ "${MODULE:-0}" = 0 ] || rmmod blkmap
