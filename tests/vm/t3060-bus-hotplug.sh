# Real hot-plug in Debian's kernels (6.1 and 6.12) under QEMU: virtio, SCSI
# and NVMe disks removed through the monitor and others added on the same
# number and name, while their serial numbers are polled. Every write is
# labelled with the incarnation it went to; with kprobes or the module every
# boundary is exact; requests without data (the virtio serial reads) are
# counted apart, and each incarnation's busy time agrees with the kernel's
# io_ticks; where the uevent listener runs, each carries its disk's serial.
. "$(dirname "$0")/lib.sh"

# Each kernel-side source alone on 6.1; on 6.12, all of them together and
# the fallback sources (t3000 has each alone there): the suite's time.
for kernel in default 6.12; do
	sets="all kprobe module tracepoint,uevent,sysfs"
	[ $kernel = default ] || sets="all tracepoint,uevent,sysfs"
	for sources in $sets; do
		out=$T/$kernel-$sources
		module=0
		[ "$sources" != all ] && [ "$sources" != module ] || module=1
		in_vm $kernel bus-hotplug "$out" SOURCES=$sources MODULE=$module
		note "$kernel, $sources:"
		reports "$out"
		"$BLKMAP" report --disks -f csv "$out/rec.dat" >"$out/disks.csv"
		check_writes "$out/writes.log" "$out/events.csv"
		check_map "$out/writes.log" "$out/map.csv"
		[ "$sources" = tracepoint,uevent,sysfs ] || check_exact "$out/writes.log" "$out/map.csv"

		# Busy time against io_ticks, incarnation by incarnation (the
		# rows of a number are in time order, as the ticks were logged).
		nc=$(csv_col "$out/disks.csv" name) dc=$(csv_col "$out/disks.csv" dev)
		uc=$(csv_col "$out/disks.csv" util_pct) sc=$(csv_col "$out/disks.csv" seconds)
		rc=$(csv_col "$out/disks.csv" reads) wc=$(csv_col "$out/disks.csv" writes)
		oc=$(csv_col "$out/disks.csv" others)
		while read -r name dev serial; do
			k=$(awk -v n="$name" -v s="$serial" '$1 == n {k++} $3 == s {print k; exit}' \
				"$out/serials.log")
			set -- $(awk -F, -v n="$nc" -v d="$dc" -v name="$name" -v dev="$dev" -v k="$k" \
				-v u="$uc" -v s="$sc" -v r="$rc" -v w="$wc" -v o="$oc" '
				$n == name && $d == dev && ++seen == k {
					printf "%d %d %d", $u * $s * 10, $r + $w, $o }' "$out/disks.csv")
			[ $# -eq 3 ] || { cat "$out/disks.csv"; fail "$kernel, $sources: no row $k of $name ($serial)"; }
			# A new disk's counters start at zero: its io_ticks at the
			# end cover its whole life, as its busy time does (the
			# partition scan's reads come before the first reading).
			ticks=$(awk -v n="$name" '$1 == n {t[++k] = $2} END {print t[2 * KK], t[2 * KK - 1]}' \
				KK="$k" "$out/ticks.log")
			first=${ticks#* } ticks=${ticks% *}
			note "$name ($serial): busy $1 ms, io_ticks $ticks ms ($first once it was seen); $2 reads and writes, $3 without data"
			[ "$1" -le $((ticks + 20 + 10 * $2)) ] ||
				fail "$kernel, $sources: $name ($serial) busy $1 ms, io_ticks $ticks ms"
			case $name in vd*) [ "$3" -ge 1 ] ||
				fail "$kernel, $sources: $name ($serial): its serial reads are not counted" ;;
			esac
		done <"$out/serials.log"

		# The serials, incarnation by incarnation, in the map's order.
		case $sources in kprobe|module) continue ;; esac	# no listener: no serials
		nc=$(csv_col "$out/map.csv" name) dc=$(csv_col "$out/map.csv" dev)
		sc=$(csv_col "$out/map.csv" serial)
		for dev in $(awk '{print $2}' "$out/serials.log" | sort -u); do
			want=$(awk -v d="$dev" '$2 == d {print $3}' "$out/serials.log" | tr '\n' ' ')
			got=$(awk -F, -v d="$dev" -v dc="$dc" -v sc="$sc" 'NR > 1 && $dc == d {print $sc}' \
				"$out/map.csv" | tr '\n' ' ')
			note "$dev: serials '$got' in the map, '$want' hot-plugged"
			[ "$got" = "$want" ] || fail "$kernel, $sources: $dev: serials '$got', not '$want'"
		done
	done
done
