# NVMe native multipath in Debian's kernels (6.1 and 6.12), with every
# source, the kprobes alone and the fallback sources: an NVMe subsystem of
# two controllers sharing a namespace (tests/vm/run --nvme-multipath), a
# head over two hidden path disks (scenarios/nvme-multipath.sh). The paths
# are in the map once each, never ended by a statedump that cannot list
# them, named on every event and, by the sysfs statedump, with their
# controller (--map's via); the head and the path that carried the
# I/O agree with the kernel's counters (6.1 does not count the head at all:
# its row must still hold the I/O). One controller is removed while the
# I/O is paused (the kernel zeroes a path's counters before its disk goes,
# so only a path without I/O in flight has a last reading that is its
# last) and added back: the removed path's incarnation ends, and the one that
# came back begins, inside the scenario's times (exact with kernel-side
# sources); per path incarnation, the kernel's counters equal what blkmap
# counted and what --disks (head_*) and --stack say it carried of the
# head's I/O, and the head's figures are their sum (tests/lib/nvme_paths.py).
. "$(dirname "$0")/lib.sh"

for kernel in ${KERNELS:-default 6.12}; do
	for sources in all kprobe tracepoint,uevent,sysfs; do
		out=$T/$kernel-$sources
		module=0
		[ "$sources" != all ] || module=1
		"$top/tests/vm/run" --kernel=$kernel --nvme-multipath \
			"$top/tests/vm/scenarios/nvme-multipath.sh" "$out" SOURCES=$sources MODULE=$module ||
			{ cat "$out/console.log"; fail "$kernel, $sources: scenario failed"; }
		head=$(awk '$1 == "head" {print $2}' "$out/nvme.log")
		note "$kernel, $sources: head $head, paths $(awk '$1 == "path" {printf "%s ", $2}' "$out/nvme.log")"
		"$BLKMAP" report --map -f csv "$out/rec.dat" >"$out/map.csv"
		"$BLKMAP" report -f csv "$out/rec.dat" >"$out/events.csv"
		"$BLKMAP" report --disks -f csv "$out/rec.dat" >"$out/disks.csv"
		"$BLKMAP" report --stack -f csv "$out/rec.dat" >"$out/stack.csv"
		"$BLKMAP" report --map "$out/rec.dat" | sed 's/^/  /'
		exact=
		[ "$sources" = tracepoint,uevent,sysfs ] || exact=--exact
		python3 "$top/tests/lib/nvme_paths.py" $exact "$out" ||
			{ sed 's/^/  record: /' "$out/record.err"
			  fail "$kernel, $sources: the removed and re-added path are not what the kernel says"; }
		nm=$(csv_col "$out/map.csv" name)
		via=$(csv_col "$out/map.csv" via)
		gone=$(awk '$1 == "gone" {print $2}' "$out/nvme.log")
		while read -r what path ctrl; do
			[ "$what" = path ] || [ "$what" = back ] || continue
			# The removed path's two incarnations: nvme_paths.py.
			[ "$what $path" != "path $gone" ] || continue
			[ "$what" = path ] || [ "$path" != "$gone" ] || continue
			rows=$(awk -F, -v n="$nm" -v p="$path" '$n == p' "$out/map.csv" | wc -l)
			[ "$rows" -eq 1 ] || { cat "$out/map.csv"; fail "$kernel, $sources: $path has $rows map rows, not 1"; }
			# The sysfs statedump names each path's controller.
			case $sources in all | *sysfs*) ;; *) continue ;; esac
			got=$(awk -F, -v n="$nm" -v p="$path" -v v="$via" '$n == p {print $v}' "$out/map.csv" |
				tail -n 1)
			case $got in
			"$ctrl pcie "?*) note "$kernel, $sources: $path via $got" ;;
			*) fail "$kernel, $sources: $path is via '$got', not its controller $ctrl over pcie" ;;
			esac
			# --disks says it too, and the text views name the path by it.
			pv=$(csv_col "$out/disks.csv" path_via) dn=$(csv_col "$out/disks.csv" name)
			dvia=$(awk -F, -v n="$dn" -v p="$path" -v v="$pv" '$n == p {print $v}' \
				"$out/disks.csv" | tail -n 1)
			[ -z "$dvia" ] || [ "$dvia" = "$got" ] ||
				fail "$kernel, $sources: --disks has $path via '$dvia', --map '$got'"
			"$BLKMAP" report --map "$out/rec.dat" | grep -qF "$path (path via $ctrl, pcie " ||
				fail "$kernel, $sources: --map text does not name $path by its path via $ctrl"
		done <"$out/nvme.log"
		# Every event on the head and its paths is named.
		dv=$(csv_col "$out/events.csv" dev) en=$(csv_col "$out/events.csv" name)
		unnamed=$(awk -F, -v d="$dv" -v n="$en" 'NR > 1 && $d ~ /^259:/ && $n == ""' \
			"$out/events.csv" | head -3)
		[ -z "$unnamed" ] || fail "$kernel, $sources: unnamed NVMe events: $unnamed"
		# Guests under TCG handle ticks late; 6.12 takes a plug's clock once.
		flags=--late-ticks
		[ "$kernel" != default ] || flags="$flags --uncounted $head"
		[ "$kernel" = default ] || flags="$flags --plug-clock"
		# The head and the path that stayed (the other's two lives: nvme_paths.py).
		python3 "$top/tests/lib/kernel_counters.py" $flags "$out/stat.before" \
			"$out/stat.after" "$out/disks.csv" $head \
			$(awk -v g="$gone" '$1 == "path" && $2 != g {print $2}' "$out/nvme.log") ||
			fail "$kernel, $sources: blkmap's figures are not the kernel's"
	done
done
