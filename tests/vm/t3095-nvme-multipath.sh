# NVMe native multipath in Debian's kernels (6.1 and 6.12), with every
# source, the kprobes alone and the fallback sources: an NVMe subsystem of
# two controllers sharing a namespace (tests/vm/run --nvme-multipath), a
# head over two hidden path disks (scenarios/nvme-multipath.sh). The paths
# are in the map once each, never ended by a statedump that cannot list
# them, named on every event and, by the sysfs statedump, with their
# controller (--map's via); the head and the path that carried the
# I/O agree with the kernel's counters (6.1 does not count the head at all:
# its row must still hold the I/O).
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
		nm=$(csv_col "$out/map.csv" name)
		via=$(csv_col "$out/map.csv" via)
		while read -r what path ctrl; do
			[ "$what" = path ] || continue
			rows=$(awk -F, -v n="$nm" -v p="$path" '$n == p' "$out/map.csv" | wc -l)
			[ "$rows" -eq 1 ] || { cat "$out/map.csv"; fail "$kernel, $sources: $path has $rows map rows, not 1"; }
			# The sysfs statedump names each path's controller.
			case $sources in all | *sysfs*) ;; *) continue ;; esac
			got=$(awk -F, -v n="$nm" -v p="$path" -v v="$via" '$n == p {print $v}' "$out/map.csv")
			case $got in
			"$ctrl pcie "?*) note "$kernel, $sources: $path via $got" ;;
			*) fail "$kernel, $sources: $path is via '$got', not its controller $ctrl over pcie" ;;
			esac
			# --disks says it too, and the text views name the path by it.
			pv=$(csv_col "$out/disks.csv" path_via) dn=$(csv_col "$out/disks.csv" name)
			dvia=$(awk -F, -v n="$dn" -v p="$path" -v v="$pv" '$n == p {print $v}' \
				"$out/disks.csv" | sort -u)
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
		python3 "$top/tests/lib/kernel_counters.py" $flags "$out/stat.before" \
			"$out/stat.after" "$out/disks.csv" ||
			fail "$kernel, $sources: blkmap's figures are not the kernel's"
	done
done
