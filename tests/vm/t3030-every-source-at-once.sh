# Every map source at once in Debian's kernels (6.1 and 6.12), while device
# numbers change hands back to back: every logged write carries its name,
# and where no event was lost, every such label is certain (basis "only").
# With a ring buffer too small to keep everything, labels are still never
# wrong: an uncertain one says so.
. "$(dirname "$0")/../live/lib.sh"
need_root
command -v apt-get >/dev/null || skip "not a Debian machine"
top=$(cd "$(dirname "$0")/../.." && pwd)

for kernel in default 6.12; do
	for variant in all module small-buffer; do
		out=$T/$kernel-$variant
		set -- SOURCES=all
		case $variant in
		module) set -- "$@" MODULE=1 ;;
		small-buffer) set -- "$@" BUFFER=4 ;;
		esac
		"$top/tests/vm/run" --kernel=$kernel "$top/tests/vm/scenarios/churn.sh" "$out" "$@" ||
			{ cat "$out/console.log"; fail "$kernel, $variant: scenario failed"; }
		"$BLKMAP" report -f csv "$out/rec.dat" >"$out/events.csv" 2>"$out/report.err"
		"$BLKMAP" report --map -f csv "$out/rec.dat" >"$out/map.csv" 2>/dev/null
		# The premise: some 259:N carried p1 and p2 in turn.
		reused=$(awk '$1 ~ /p[12]$/ {print $2, substr($1, length($1))}' "$out/writes.log" |
			sort -u | awk '{n[$1]++} END {for (d in n) if (n[d] > 1) print d}')
		[ -n "$reused" ] || fail "$kernel, $variant: no partition number carried p1 and p2"
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
