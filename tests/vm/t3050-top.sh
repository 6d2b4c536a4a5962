# blkmap top in Debian's kernels (6.1 and 6.12), every map source at once:
# two null_blk devices, one after the other on the same number, are two
# rows, their writes counted under their own names, the first marked gone.
. "$(dirname "$0")/lib.sh"

for kernel in default 6.12; do
	out=$T/$kernel
	"$top/tests/vm/run" --kernel=$kernel "$top/tests/vm/scenarios/top.sh" "$out" ||
		{ cat "$out/console.log" "$out/top.err"; fail "$kernel: scenario failed"; }
	csv=$out/top.csv
	nc=$(csv_col "$csv" name) dc=$(csv_col "$csv" dev) sc=$(csv_col "$csv" state)
	wc=$(csv_col "$csv" writes)
	for name in nb1 nb2; do
		dev=$(awk -v n="$name" '$1 == n {print $2; exit}' "$out/writes.log")
		want=$(awk -v n="$name" '$1 == n' "$out/writes.log" | wc -l)
		got=$(awk -F, -v n="$nc" -v d="$dc" -v w="$wc" -v name="$name" -v dev="$dev" \
			'$n == name && $d == dev {s += $w} END {print s + 0}' "$csv")
		note "$kernel: $name ($dev): $got writes in top's rows, $want written"
		[ "$got" -eq "$want" ] || { cat "$csv"; fail "$kernel: $name: $got writes counted, $want done"; }
		awk -F, -v n="$nc" -v s="$sc" -v name="$name" '$n == name && $s ~ /gone/' "$csv" |
			grep -q . || { cat "$csv"; fail "$kernel: $name is never marked gone"; }
	done
	[ "$(awk '$1 == "nb1" {print $2; exit}' "$out/writes.log")" = \
	  "$(awk '$1 == "nb2" {print $2; exit}' "$out/writes.log")" ] ||
		fail "$kernel: premise missing: nb1 and nb2 had different numbers"
done
