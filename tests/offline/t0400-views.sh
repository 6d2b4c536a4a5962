# The per-disk views and the plot on a recorded fixture: every incarnation with
# I/O has a row under its name, the views agree with each other, and the plot
# is well-formed SVG that names each incarnation and marks its add and removal;
# a recording's gaps are shaded on the plot and mark the rows they touch.
. "$(dirname "$0")/lib.sh"
. "$top/tests/lib/labels.sh"
rec=$top/tests/data/vm61-module.dat
log=$top/tests/data/vm61-module.writes

"$BLKMAP" report --disks -f csv "$rec" >"$T/disks.csv" 2>/dev/null
# Each logged write is in its incarnation's row: one row per log line, in order.
while read -r name dev start count; do
	rows=$(awk -F, -v n="$name" -v d="$dev" 'NR > 1 && $1 == n && $2 == d' "$T/disks.csv" | wc -l)
	[ "$rows" -ge 1 ] || fail "no --disks row for $name ($dev)"
done <"$log"
for dev in $(awk '{print $2}' "$log" | sort -u); do
	want=$(awk -v d="$dev" '$2 == d {print $1}' "$log" | tr '\n' ' ')
	got=$(awk -F, -v d="$dev" 'NR > 1 && $2 == d {print $1}' "$T/disks.csv" | tr '\n' ' ')
	[ "$got" = "$want" ] || fail "--disks rows of $dev: '$got', written: '$want'"
	bytes=$(awk -F, -v d="$dev" 'NR > 1 && $2 == d {s += $6} END {print s}' "$T/disks.csv")
	wrote=$(awk -v d="$dev" '$2 == d {s += $4 * 512} END {print s}' "$log")
	[ "$bytes" -eq "$wrote" ] || fail "$dev: --disks says $bytes bytes written, the log $wrote"
done
echo "# --disks: one row per incarnation written to, bytes as logged"

# --top adds up to --disks; --latency counts what --disks counts.
"$BLKMAP" report --top -f csv "$rec" >"$T/top.csv" 2>/dev/null
"$BLKMAP" report --latency -f csv "$rec" >"$T/lat.csv" 2>/dev/null
wb=$(csv_col "$T/disks.csv" write_bytes) dc=$(csv_col "$T/disks.csv" d2c_count)
for name in alpha beta; do
	d=$(awk -F, -v n="$name" -v c="$wb" 'NR > 1 && $1 == n {print $c}' "$T/disks.csv")
	t=$(awk -F, -v n="$name" 'NR > 1 && $1 == n {s += $8} END {print s}' "$T/top.csv")
	[ "$d" = "$t" ] || fail "$name: --top says $t bytes written, --disks $d"
	c=$(awk -F, -v n="$name" 'NR > 1 && $1 == n {s += $6} END {print s}' "$T/lat.csv")
	n=$(awk -F, -v n="$name" -v c="$dc" 'NR > 1 && $1 == n {print $c}' "$T/disks.csv")
	[ "$c" = "$n" ] || fail "$name: --latency counts $c, --disks d2c_count $n"
done
echo "# --top and --latency agree with --disks"

# --stack: what was written to each partition reached its disk from it.
"$BLKMAP" report --stack -f csv "$rec" >"$T/stack.csv" 2>/dev/null
grep 'p[0-9]* ' "$log" | while read -r name dev start count; do
	got=$(awk -F, -v d="${name%p[0-9]*}" -v v="$dev" 'NR > 1 && $1 == d && $4 == v {print $9}' \
		"$T/stack.csv")
	[ "$got" = "$((count * 512))" ] ||
		fail "--stack: ${name%p[0-9]*} got '$got' bytes from $name ($dev), $((count * 512)) written"
done
echo "# --stack: each partition's writes reached its disk from it"

"$BLKMAP" report --plot "$T/plot.svg" "$rec" 2>/dev/null
if command -v python3 >/dev/null; then
	python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$T/plot.svg" ||
		fail "the plot is not well-formed XML"
fi
for name in alpha beta zram1 loop0p1 loop1p1; do
	grep -q ">$name<\|>$name (partition)<" "$T/plot.svg" || fail "the plot does not name $name"
done
grep -q '>added<' "$T/plot.svg" && grep -q '>removed<' "$T/plot.svg" ||
	fail "the plot marks no add or removal"
if command -v rsvg-convert >/dev/null; then
	rsvg-convert "$T/plot.svg" -o "$T/plot.png" || fail "the plot does not render"
	echo "# the plot renders ($(stat -c %s "$T/plot.png") bytes of PNG)"
fi
grep -q 'events lost on CPU' "$T/plot.svg" && fail "the plot shows a loss in a recording without one"

# A recording with losses: each gap is a band on the plot, and --disks marks the
# incarnation it touched.
loss=$top/tests/data/host-loss.dat
"$BLKMAP" report --plot "$T/loss.svg" "$loss" 2>/dev/null
[ "$(grep -c 'events lost on CPU' "$T/loss.svg")" -eq 2 ] ||
	fail "the plot of host-loss.dat does not show its two gaps"
"$BLKMAP" report --disks -f csv "$loss" 2>/dev/null >"$T/loss.csv"
el=$(csv_col "$T/loss.csv" events_lost)
[ "$(awk -F, -v e="$el" 'NR > 1 {print $e}' "$T/loss.csv")" = true ] ||
	fail "--disks does not mark loop0 of host-loss.dat: $(cat "$T/loss.csv")"
"$BLKMAP" report --disks "$loss" 2>/dev/null | grep -q '^loop0\* ' ||
	fail "--disks text does not mark loop0 of host-loss.dat"
echo "# host-loss.dat: two gaps shaded on the plot, loop0 marked in --disks"

# A --disk or --dev that no incarnation had is refused in every view, with
# the names (or numbers) the recording holds, and prints nothing.
for view in "" --map --disks --latency --top --stack --phases; do
	if "$BLKMAP" report $view --disk=nosuch "$rec" >"$T/none.out" 2>"$T/none.err"; then
		fail "report $view --disk=nosuch exited 0"
	fi
	grep -q "no disk or partition was named 'nosuch'.*(its names: .*alpha.*beta" "$T/none.err" ||
		fail "report $view --disk=nosuch said: $(cat "$T/none.err")"
	[ ! -s "$T/none.out" ] || fail "report $view --disk=nosuch printed: $(head -3 "$T/none.out")"
	if "$BLKMAP" report $view --dev=9:99 "$rec" >"$T/none.out" 2>"$T/none.err"; then
		fail "report $view --dev=9:99 exited 0"
	fi
	grep -q "no disk or partition had device number 9:99.*(its numbers: .*254:0" "$T/none.err" ||
		fail "report $view --dev=9:99 said: $(cat "$T/none.err")"
done
# A name that was there, even without I/O in the window, is not refused.
"$BLKMAP" report --disks --disk=alpha --until=+0 "$rec" >/dev/null 2>&1 ||
	fail "report --disk=alpha was refused"
echo "# a filter naming no incarnation is refused with the recording's names"

# host-hotplug.dat: zram1 removed and re-created on 253:1, loop0 attached to a
# file, detached and attached to another (its change uevents say diskseq 22,
# then 24). Text --disks tells the incarnations apart; each attachment of
# loop0 is an incarnation of its own, with what its partition passed down.
hp=$top/tests/data/host-hotplug.dat
"$BLKMAP" report --disks "$hp" 2>/dev/null >"$T/hp.txt"
[ "$(awk '$1 == "zram1" {print $2, $(NF - 1), $NF}' "$T/hp.txt" | sort -u | wc -l)" -eq 2 ] ||
	fail "--disks text: the two zram1 rows are not told apart: $(grep zram1 "$T/hp.txt")"
seqs=$("$BLKMAP" report "$hp" 2>/dev/null | sed -n 's/.*uevent action=change dev=7:0 .* diskseq=\([0-9]*\) .*/\1/p' |
	sort -un | tr '\n' ' ')
"$BLKMAP" report --disks -f csv --disk loop0 --disk loop0p1 "$hp" 2>/dev/null >"$T/hp.csv"
ds=$(csv_col "$T/hp.csv" diskseq) in=$(csv_col "$T/hp.csv" incarnation) wb=$(csv_col "$T/hp.csv" write_bytes)
got=$(awk -F, -v s="$ds" '$1 == "loop0" {print $s}' "$T/hp.csv" | tr '\n' ' ')
[ "$got" = "$seqs" ] || fail "loop0's --disks rows have diskseq '$got', its change uevents '$seqs'"
disk=$(awk -F, -v w="$wb" '$1 == "loop0" {print $w}' "$T/hp.csv" | tr '\n' ' ')
part=$(awk -F, -v w="$wb" '$1 == "loop0p1" {print $w}' "$T/hp.csv" | tr '\n' ' ')
[ "$disk" = "$part" ] || fail "loop0's attachments wrote '$disk', its partitions '$part'"
[ "$(awk -F, -v i="$in" '$1 == "loop0" {print $i}' "$T/hp.csv" | sort -u | wc -l)" -eq 2 ] ||
	fail "loop0's attachments share an incarnation key"
echo "# host-hotplug.dat: zram1's two incarnations told apart in text; loop0's attachments (diskseq $seqs) are two"
