# md and dm-crypt in Debian's kernels (6.1, 6.12 and 5.10) under QEMU, with every
# source, the module alone and the fallback sources: two raid1 arrays of
# loop devices one after the other on md0, a dm-crypt volume over a loop
# partition. Every write to the top of each stack is labelled with its
# incarnation, counted once there, and reaches each device below as coming
# from the top, written by the writer (not by dm's or md's threads).
. "$(dirname "$0")/lib.sh"

on_510=""
for run in $(for kernel in $lanes; do
		for sources in $(runs $kernel all module tracepoint,uevent,sysfs); do
			echo $kernel:$sources
		done
	     done); do
	kernel=${run%%:*} sources=${run#*:}
	out=$T/$kernel-$sources
	module=0
	[ "$sources" = tracepoint,uevent,sysfs ] || module=1
	in_vm $kernel md-crypt "$out" SOURCES=$sources MODULE=$module
	what="$kernel, $sources"
	note "$what: the volume was dm-$(cat "$out/crypt.log")"
	reports "$out"
	"$BLKMAP" report --disks "$out/rec.dat"
	check_writes "$out/writes.log" "$out/events.csv"
	check_map "$out/writes.log" "$out/map.csv" "$out/events.csv"
	[ "$sources" = tracepoint,uevent,sysfs ] || check_exact "$out/writes.log" "$out/map.csv"

	# Each array and the volume count their own writes, once.
	"$BLKMAP" report --disks -f csv "$out/rec.dat" >"$out/disks.csv"
	nm=$(csv_col "$out/disks.csv" name) wb=$(csv_col "$out/disks.csv" write_bytes)
	while read -r name dev start count; do
		got=$(awk -F, -v n="$nm" -v w="$wb" -v name="$name" '$n == name {print $w}' \
			"$out/disks.csv" | tr '\n' ' ')
		note "$name: wrote ${got}bytes"
		case $name in
		md0) [ "$got" = "$((count * 512)) $((count * 512)) " ] ||
			fail "$what: the arrays wrote '$got' bytes, each $((count * 512))" ;;
		*) [ "$got" = "$((count * 512)) " ] ||
			fail "$what: $name wrote '$got' bytes, not $((count * 512))" ;;
		esac
	done <"$out/writes.log"

	# The stacks: each leg got its array's writes, the partition and its disk the volume's.
	"$BLKMAP" report --stack -f csv "$out/rec.dat" >"$out/stack.csv"
	"$BLKMAP" report --stack "$out/rec.dat"
	check_stacked "$out/stack.csv" 9:0 "" "$(cat "$out/legs.log")" 8192
	volume=$(awk '$1 ~ /^dm-/ {print $2}' "$out/writes.log")
	# The module alone has no dm names.
	dm=secret
	[ "$sources" != module ] || dm=
	if [ $kernel = 5.10 ] && [ "$(cat "$out/crypt.log")" = crypt ]; then
		# dm-crypt traces block_bio_remap for its clones since 5.18
		# (dm_submit_bio_remap()): before, nothing links them to the volume.
		note "SKIP: 5.10, $sources: the volume's stack (dm-crypt remaps no clone before 5.18)"
	else
		check_stacked "$out/stack.csv" "$volume" "$dm" "$(cat "$out/pv.log")" 8192

		# Below the volume, dd wrote, not dm-crypt's thread.
		for lower in $(cat "$out/pv.log"); do
			writers=$(writers "$out/rec.dat" "$lower")
			note "$lower: written by $writers"
			[ "$writers" = "dd " ] || fail "$what: $lower written by '$writers', not by dd"
		done
	fi

	# The volume is busy while its writes are, not until they go stale.
	ts=$(csv_col "$out/events.csv" ts_ns) ev=$(csv_col "$out/events.csv" event)
	dv=$(csv_col "$out/events.csv" dev)
	window=$(awk -F, -v t="$ts" -v e="$ev" -v d="$dv" -v dev="$volume" '
		$d == dev && $e == "block_bio_queue" && !first { first = $t }
		$d == dev && $e == "block_bio_complete" { last = $t }
		END { print last - first }' "$out/events.csv")
	busy=$(awk -F, -v n="$nm" -v d="$(csv_col "$out/disks.csv" dev)" \
		-v u="$(csv_col "$out/disks.csv" util_pct)" -v s="$(csv_col "$out/disks.csv" seconds)" \
		-v dev="$volume" '$d == dev {printf "%.0f", $u / 100 * $s * 1e9}' "$out/disks.csv")
	note "$volume: busy $busy ns, its first write queued to its last completed $window ns"
	[ "$busy" -le "$((window + 1000000))" ] || fail "$what: $volume busy $busy ns, its writes took $window"
done
