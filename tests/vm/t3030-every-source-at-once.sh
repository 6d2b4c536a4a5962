# Every map source at once in Debian's kernels (6.1, 6.12 and 5.10), while device
# numbers change hands back to back: every logged write carries its name,
# and where no event was lost, every such label is certain (basis "only").
# With a ring buffer too small to keep everything, labels are still never
# wrong: an uncertain one says so. A flight recorder whose ring lets the
# partitions' writes go still has every incarnation in its map, from the
# same sources.
. "$(dirname "$0")/lib.sh"

# check_flight OUT: the partitions' writes left the ring, their incarnations
# did not leave the map; the writes still in it are named right, for certain.
check_flight() {
	"$BLKMAP" report "$1/rec.dat" | grep -q 'blkmap:window-begin' ||
		fail "$kernel, ring: the ring never went round"
	first=$(awk '$1 ~ /p[12]$/ {print $2, $3; exit}' "$1/writes.log")
	od=$(csv_col "$1/events.csv" old_dev) os=$(csv_col "$1/events.csv" old_sector)
	ev=$(csv_col "$1/events.csv" event)
	awk -F, -v e="$ev" -v d="$od" -v s="$os" -v want="$first" \
		'$e == "block_bio_remap" && $d " " $s == want' "$1/events.csv" | grep -q . &&
		fail "$kernel, ring: the first partition write ($first) is still in the window"
	# (The last partition is still there when the recording stops.)
	for dev in $(awk '{print $2}' "$1/writes.log" | sort -u); do
		want=$(awk -v d="$dev" '$2 == d {print $1}' "$1/writes.log" | tr '\n' ' ')
		got=$(awk -F, -v d="$dev" 'NR > 1 && $1 == d {print $2}' "$1/map.csv" | tr '\n' ' ')
		[ "$got" = "$want" ] || fail "$kernel, ring: map of $dev: '$got', written: '$want'"
	done
	awk '$1 !~ /p[12]$/' "$1/writes.log" >"$1/window.log"
	check_writes "$1/window.log" "$1/events.csv" >/dev/null
	write_labels "$1/window.log" "$1/events.csv" >"$1/labels"
	wrong=$(awk '$1 != $2 || $3 != "only"' "$1/labels" | head -3)
	[ -z "$wrong" ] || fail "$kernel, ring: $wrong"
	note "$kernel, ring: $(wc -l <"$1/window.log") writes in the window, all named for certain;" \
		"the map has every partition incarnation"
}

on_510=""
for kernel in $lanes; do
	for variant in $(runs $kernel all module small-buffer ring); do
		out=$T/$kernel-$variant
		set -- SOURCES=all
		case $variant in
		module) set -- "$@" MODULE=1 ;;
		small-buffer) set -- "$@" BUFFER=4 ;;
		ring) set -- "$@" RING=128K ;;
		esac
		in_vm $kernel churn "$out" "$@"
		"$BLKMAP" report -f csv "$out/rec.dat" >"$out/events.csv" 2>"$out/report.err"
		"$BLKMAP" report --map -f csv "$out/rec.dat" >"$out/map.csv" 2>/dev/null
		# The premise: some 259:N carried p1 and p2 in turn.
		reused=$(awk '$1 ~ /p[12]$/ {print $2, substr($1, length($1))}' "$out/writes.log" |
			sort -u | awk '{n[$1]++} END {for (d in n) if (n[d] > 1) print d}')
		[ -n "$reused" ] || fail "$kernel, $variant: no partition number carried p1 and p2"
		if [ $variant = ring ]; then
			check_flight "$out"
			continue
		fi
		lost=$(grep -c 'lost' "$out/report.err" || true)
		[ $variant != small-buffer ] || [ "$lost" -gt 0 ] ||
			fail "$kernel: the small buffer lost no event: the test's premise"
		write_labels "$out/writes.log" "$out/events.csv" >"$out/labels"
		bases=$(awk '{n[$3]++} END {for (b in n) printf "%s %d, ", b, n[b]}' "$out/labels")
		note "$kernel, $variant: $(wc -l <"$out/writes.log") writes, $(wc -l <"$out/labels")" \
			"events: $bases loss warnings: $lost"
		[ -s "$out/labels" ] || fail "$kernel, $variant: no event of a logged write"
		# Never a confident wrong name.
		wrong=$(awk '$1 != $2 && $3 == "only"' "$out/labels" | head -3)
		[ -z "$wrong" ] || fail "$kernel, $variant: labelled wrongly as certain: $wrong"
		if [ "$lost" -eq 0 ]; then
			check_writes "$out/writes.log" "$out/events.csv" >/dev/null
			uncertain=$(awk '$3 != "only"' "$out/labels" | head -3)
			[ -z "$uncertain" ] || fail "$kernel, $variant: uncertain without loss: $uncertain"
		fi
	done
done
