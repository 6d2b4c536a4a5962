# Device-mapper volumes in Debian's kernels (6.1 and 6.12) under QEMU:
# created, renamed, removed, and another created on the same minor under
# another name. Every write through /dev/mapper is labelled with the kernel
# name and the device-mapper name it had at that moment, with every source,
# the kprobes alone and the fallback sources, and reaches the partition and
# the disk below as coming from its volume.
. "$(dirname "$0")/lib.sh"

for kernel in default 6.12; do
	for sources in all kprobe tracepoint,uevent,sysfs; do
		out=$T/$kernel-$sources
		module=0
		[ "$sources" != all ] || module=1
		in_vm $kernel dm-names "$out" SOURCES=$sources MODULE=$module
		note "$kernel, $sources:"
		reports "$out"
		check_writes "$out/writes.log" "$out/events.csv"
		check_map "$out/writes.log" "$out/map.csv"
		# The dm name of each write's queued bios, at their time.
		ev=$(csv_col "$out/events.csv" event) dv=$(csv_col "$out/events.csv" dev)
		sc=$(csv_col "$out/events.csv" sector) dm=$(csv_col "$out/events.csv" dm)
		while read -r name dev start count want; do
			got=$(awk -F, -v e="$ev" -v d="$dv" -v s="$sc" -v m="$dm" -v dev="$dev" \
				-v lo="$start" -v hi=$((start + count)) \
				'$e == "block_bio_queue" && $d == dev && $s >= lo && $s < hi {print $m}' \
				"$out/events.csv" | sort -u | tr '\n' ' ')
			note "$name ($dev) sectors $start+$count: dm '$got', written through '$want'"
			[ "$got" = "$want " ] || fail "$kernel, $sources: $name sectors $start+$count: dm '$got', not '$want'"
			# The LVM volume, from the dm UUID (read beside the name by every source set).
			lv=$(awk -F, -v e="$ev" -v d="$dv" -v s="$sc" -v l="$(csv_col "$out/events.csv" lv)" \
				-v dev="$dev" -v lo="$start" -v hi=$((start + count)) \
				'$e == "block_bio_queue" && $d == dev && $s >= lo && $s < hi {print $l}' \
				"$out/events.csv" | sort -u | tr '\n' ' ')
			wantlv="$(echo "$want" | sed 's|-|/|') "
			[ "$lv" = "$wantlv" ] || fail "$kernel, $sources: $name sectors $start+$count: lv '$lv', not '$wantlv'"
		done <"$out/dm.log"
		# The volumes are on the partition, the partition on its disk: what was
		# written through each volume came down to both, counted from it.
		"$BLKMAP" report --stack -f csv "$out/rec.dat" >"$out/stack.csv"
		"$BLKMAP" report --stack "$out/rec.dat"
		volume=$(awk 'NR == 1 {print $2}' "$out/writes.log")
		for first in vg0-data vg0-logs; do
			bytes=$(awk -v f="$first" '$5 == f || (f == "vg0-data" && $5 == "vg0-old") {
				s += $4 } END { print s * 512 }' "$out/dm.log")
			check_stacked "$out/stack.csv" "$volume" "$first" "$(cat "$out/pv.log")" "$bytes"
		done
		# The rename: exact from dm_kobject_uevent's probe, else the window
		# between two uevents.
		rename=$("$BLKMAP" report --map -f json "$out/rec.dat" | python3 -c '
import json, sys
for line in sys.stdin:
    for item in (json.loads(line)["dm_renames"] or "").split(";"):
        if item:
            name, window = item.rsplit("@", 1)
            print(name, *window.split(".."))')
		note "$kernel, $sources: renamed $rename"
		set -- $rename
		[ "${1:-}" = vg0-old ] || fail "$kernel, $sources: the rename is not in the map ('$rename')"
		case $sources in
		all|kprobe) [ "$2" = "$3" ] || fail "$kernel, $sources: the rename is not exact: $rename" ;;
		*) [ "$2" -lt "$3" ] || fail "$kernel, $sources: a rename from uevents given as exact: $rename" ;;
		esac
		# Any of its names finds the first volume.
		"$BLKMAP" report --disks -f csv --disk vg0-old "$out/rec.dat" >"$out/old.csv" ||
			fail "$kernel, $sources: --disk vg0-old found nothing"
		[ "$(awk -F, 'NR > 1' "$out/old.csv" | wc -l)" -eq 1 ] ||
			{ cat "$out/old.csv"; fail "$kernel, $sources: --disk vg0-old: not one row"; }
		# As LVM names them: VG/LV, /dev/VG/LV, /dev/mapper/NAME.
		for name in /dev/mapper/vg0-logs vg0/old /dev/vg0/logs; do
			"$BLKMAP" report --disks -f csv --disk "$name" "$out/rec.dat" >"$out/lv.csv" ||
				fail "$kernel, $sources: --disk $name found nothing"
			[ "$(awk -F, 'NR > 1' "$out/lv.csv" | wc -l)" -eq 1 ] ||
				{ cat "$out/lv.csv"; fail "$kernel, $sources: --disk $name: not one row"; }
		done
	done
done
