# LVM in Debian's kernels (6.1 and 6.12) under QEMU, with Debian's lvm2 (no
# udev, no daemons) on a hot-added virtio disk (scenarios/lvm.sh): a volume
# created, written, renamed, written, removed; another created on its minor,
# written; a snapshot written, its origin written; a thin pool and a thin
# volume written. One boot a kernel records the kprobes alone, the fallback
# sources, then every source with the module. Every write is labelled with
# its volume (VG/LV as LVM named it at that moment), and every device-mapper
# event meanwhile with the volume and layer LVM gave that device (an
# origin's -real, a snapshot's -cow, a pool's -tpool and _tdata), as dmsetup
# splitname splits its name; every boundary lies in the lvm command that
# made it, exact with kernel-side sources, a window without; the module's
# add records name each volume; --disk finds a volume by VG/LV, /dev/VG/LV
# and /dev/mapper/NAME, never its layers.
. "$(dirname "$0")/lib.sh"

sets="kprobe tracepoint,uevent,sysfs all"
for kernel in ${KERNELS:-default 6.12}; do
	in_vm $kernel lvm "$T/$kernel" SETS="$sets" MODULE=1
	for sources in $sets; do
		out=$T/$kernel/$sources
		note "$kernel, $sources:"
		reports "$out"
		check_writes "$out/writes.log" "$out/events.csv"
		check_map "$out/writes.log" "$out/map.csv" "$out/events.csv"
		exact=--exact module=
		case $sources in
		tracepoint,uevent,sysfs) exact= ;;
		all) module=--module ;;
		esac
		[ -z "$exact" ] || check_exact "$out/writes.log" "$out/map.csv"
		python3 "$top/tests/lib/lvm_labels.py" $exact $module "$out" ||
			fail "$kernel, $sources: labels or boundaries are not what LVM did"
		# A volume by any of its names, one incarnation, none of its layers.
		for name in vg0/old /dev/vg0/logs /dev/mapper/vg0-thin; do
			"$BLKMAP" report --disks -f csv --disk "$name" "$out/rec.dat" >"$out/lv.csv" ||
				fail "$kernel, $sources: --disk $name found nothing"
			[ "$(awk -F, 'NR > 1' "$out/lv.csv" | wc -l)" -eq 1 ] ||
				{ cat "$out/lv.csv"; fail "$kernel, $sources: --disk $name: not one row"; }
		done
		# The snapshot: lvcreate -s had a vg0-snap of its own for a moment
		# (before its -cow and the origin's -real): two incarnations, one
		# written, neither a layer.
		"$BLKMAP" report --disks -f csv --disk vg0/snap "$out/rec.dat" >"$out/lv.csv" ||
			fail "$kernel, $sources: --disk vg0/snap found nothing"
		wb=$(csv_col "$out/lv.csv" write_bytes) ly=$(csv_col "$out/lv.csv" lv_layer)
		awk -F, -v w="$wb" -v l="$ly" 'NR > 1 && $l != "" { exit 1 }
			NR > 1 && $w > 0 { n++ } END { exit n != 1 }' "$out/lv.csv" ||
			{ cat "$out/lv.csv"; fail "$kernel, $sources: --disk vg0/snap: not one snapshot written"; }
		# The text views name a layer by what it is to its volume.
		"$BLKMAP" report --map "$out/rec.dat" >"$out/map.txt"
		for layer in "vg0/logs, origin layer real" "vg0/snap, snapshot layer cow" \
			"vg0/pool, thin pool layer tpool"; do
			grep -qF "($layer)" "$out/map.txt" ||
				{ cat "$out/map.txt"; fail "$kernel, $sources: --map does not say '$layer'"; }
		done
	done
done
