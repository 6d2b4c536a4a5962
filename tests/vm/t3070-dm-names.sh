# Device-mapper volumes in Debian's kernels (6.1, 6.12 and 5.10) under QEMU:
# created, renamed, removed, and another created on the same minor under
# another name. Every write through /dev/mapper is labelled with the kernel
# name and the device-mapper name it had at that moment, with every source,
# the kprobes alone and the fallback sources, and reaches the partition and
# the disk below as coming from its volume.
# In the same recordings, the other names people know: a loop device
# re-attached to ten files in turn, each write labelled with its file, each
# attachment an incarnation whose attach and detach are exact with the
# kernel-side sources (the loop driver's probes) and stated windows that
# hold the truth otherwise; and a file system on a volume, mounted on /srv
# and then /mnt/b: its writes carry the mount point (from the mount table,
# with the uevent listener), --disk /srv selects them, the bare volume's
# writes carry none.
. "$(dirname "$0")/lib.sh"

# check_loop OUT KERNEL SOURCES
check_loop() {
	out=$1 ctx="$2, $3" srcs=$3
	ev=$(csv_col "$out/events.csv" event) dv=$(csv_col "$out/events.csv" dev)
	nm=$(csv_col "$out/events.csv" name) sc=$(csv_col "$out/events.csv" sector)
	ns=$(csv_col "$out/events.csv" nr_sector) bf=$(csv_col "$out/events.csv" backing_file)
	ic=$(csv_col "$out/events.csv" incarnation)
	mb=$(csv_col "$out/map.csv" backing_file) mi=$(csv_col "$out/map.csv" incarnation)
	[ "$(wc -l <"$out/loop.log")" -eq 10 ] || fail "$ctx: premise missing: not ten attachments"
	seen=
	while read -r want dev start count file a0 a1 d0 d1 counted; do
		set -- $(awk -F, -v e="$ev" -v d="$dv" -v n="$nm" -v s="$sc" -v c="$ns" -v b="$bf" \
			-v i="$ic" -v dev="$dev" -v lo="$start" -v hi=$((start + count)) \
			-v want="$want" -v file="$file" '
			$e == "block_bio_queue" && $d == dev && $s >= lo && $s < hi {
				sum += $c; inc[$i] = 1
				if ($n != want || $b != file) bad = bad " " $n "/" ($b == "" ? "(none)" : $b) }
			END { k = ""; for (x in inc) k = k x; print sum + 0, (k == "" ? "-" : k),
				(bad == "" ? "-" : bad) }' "$out/events.csv")
		[ "$1" -eq "$count" ] || fail "$ctx: $file: $1 sectors reported, $count written"
		[ "$3" = "-" ] || fail "$ctx: $file: writes labelled$3"
		case " $seen " in *" $2 "*) fail "$ctx: $file: incarnation $2 carried another file" ;; esac
		seen="$seen $2" inc=$2
		# --disk FILE: that attachment alone, its writes as the kernel counted them.
		set -- $("$BLKMAP" report --disks -f csv --disk "$file" "$out/rec.dat" | awk -F, '
			NR == 1 { for (k = 1; k <= NF; k++) { if ($k == "incarnation") c = k
				if ($k == "write_bytes") w = k }; next }
			{ rows = rows $c " "; bytes += $w } END { print bytes + 0, rows }')
		[ "$*" = "$((counted * 512)) $inc" ] ||
			fail "$ctx: --disk $file: '$*', not $((counted * 512)) bytes in $inc"
		# The attachment's incarnation: its file, its boundaries.
		set -- $(awk -F, -v i="$mi" -v b="$mb" -v inc="$inc" 'NR > 1 && $i == inc {
			print $b, $8, $9, $10, $11, $6, $7 }' "$out/map.csv")
		[ "${1:-}" = "$file" ] || fail "$ctx: map: the attachment of $file has file '${1:-}'"
		note "$ctx: $file: attached in $a0..$a1, map $2..$3 ($6); detached in $d0..$d1, map $4..$5 ($7)"
		# The truth lies in the stated window: the windows overlap.
		[ "$2" -le "$a1" ] && [ "$3" -ge "$a0" ] || fail "$ctx: $file: attach window $2..$3 misses $a0..$a1"
		[ "$4" -le "$d1" ] && [ "$5" -ge "$d0" ] || fail "$ctx: $file: detach window $4..$5 misses $d0..$d1"
		case $srcs in
		tracepoint,uevent,sysfs) ;;
		*)	[ "$2" = "$3" ] && [ "$4" = "$5" ] ||
				fail "$ctx: $file: boundaries not exact with the loop driver's probes"
			case "$6 $7" in *kprobe*kprobe*) ;; *) fail "$ctx: $file: bounded by $6, $7" ;; esac ;;
		esac
	done <"$out/loop.log"
}

# check_mounts OUT KERNEL SOURCES: the mount points of the volume's I/O
# while mounted (between the mount's return and the unmount's call), none
# on the bare volume's write.
check_mounts() {
	out=$1 ctx="$2, $3" srcs=$3
	ev=$(csv_col "$out/events.csv" event) dv=$(csv_col "$out/events.csv" dev)
	ts=$(csv_col "$out/events.csv" ts_ns) mt=$(csv_col "$out/events.csv" mount)
	sc=$(csv_col "$out/events.csv" sector)
	while read -r dev at t0 t1; do
		if [ "$at" = - ]; then
			want= lo=$t0 hi=$((t0 + t1)) range='$s >= lo && $s < hi' col=$sc
		else
			want=$at lo=$t0 hi=$t1 col=$ts
		fi
		set -- $(awk -F, -v e="$ev" -v d="$dv" -v c="$col" -v m="$mt" -v dev="$dev" \
			-v lo="$lo" -v hi="$hi" -v want="$want" '
			$e == "block_bio_queue" && $d == dev && $c >= lo && $c < hi {
				n++; if ($m != want) bad = bad " " ($m == "" ? "(none)" : $m) }
			END { print n + 0, (bad == "" ? "-" : bad) }' "$out/events.csv")
		note "$ctx: ${want:-(no mount)} on $dev: $1 writes, wrongly labelled:$2"
		[ "$1" -gt 0 ] || fail "$ctx: premise missing: no write on $dev for ${want:-the bare volume}"
		[ "$2" = "-" ] || fail "$ctx: writes on $dev labelled$2, not '${want:-(none)}'"
		[ "$at" != - ] || continue
		# --disk MOUNTPOINT: those writes, and none not labelled so.
		got=$("$BLKMAP" report -f csv --disk "$at" "$out/rec.dat" | awk -F, -v e="$ev" \
			-v m="$mt" -v t="$ts" -v at="$at" -v lo="$lo" -v hi="$hi" '
			$e == "block_bio_queue" { if ($m != at) n = -1e9; if ($t >= lo && $t < hi) n++ }
			END { print n + 0 }')
		[ "$got" -eq "$1" ] || fail "$ctx: --disk $at: $got writes, $1 made through it"
	done <"$out/mounts.log"
	"$BLKMAP" report --disks "$out/rec.dat" | grep -q "(vg0/srv on /srv;/mnt/b)" ||
		fail "$ctx: --disks text does not name the volume by its mount points"
}

# 5.10 has no BTF of modules (5.11+): no dm_name probe, no loop driver
# probes there. dm names come from uevents and sysfs, even with every source,
# and the kprobes alone name no volume; loop attachments are bounded by
# bd_set_nr_sectors() and named by the uevent listener.
on_510=all
for kernel in $lanes; do
	kprobe=kprobe
	[ $kernel != 5.10 ] || { note "SKIP: 5.10, kprobe: no dm_name probe without dm_mod's BTF"; kprobe=; }
	for sources in $(runs $kernel all $kprobe tracepoint,uevent,sysfs); do
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
		case $kernel:$sources in
		5.10:*) [ "$2" -lt "$3" ] || fail "$kernel, $sources: a rename from uevents given as exact: $rename" ;;
		*:all|*:kprobe) [ "$2" = "$3" ] || fail "$kernel, $sources: the rename is not exact: $rename" ;;
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
		if [ $kernel:$sources = 5.10:tracepoint,uevent,sysfs ]; then
			note "SKIP: 5.10, $sources: loop attachments are not told apart by uevents without diskseq"
		else
			check_loop "$out" $kernel $sources
		fi
		case $sources in
		kprobe) note "$kernel, $sources: no mount table without the uevent listener" ;;
		*) check_mounts "$out" $kernel $sources ;;
		esac
	done
done
