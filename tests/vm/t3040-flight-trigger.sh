# The flight recorder's latency trigger in Debian's kernels (6.1 and 6.12):
# null_blk devices with a set completion time make slow I/O on demand
# (scenarios/trigger.sh). A snapshot holds exactly the first slow I/O of
# the watched disk and the time after it; a slow I/O elsewhere, or fast
# I/O, writes none; the limit a minute holds.
. "$(dirname "$0")/lib.sh"

for kernel in default 6.12; do
	out=$T/$kernel
	"$top/tests/vm/run" --kernel=$kernel "$top/tests/vm/scenarios/trigger.sh" "$out" ||
		{ cat "$out/console.log" "$out/record.err"; fail "$kernel: scenario failed"; }
	cat "$out/record.err"
	# Four slow writes, a limit of two a minute: two snapshots.
	[ -e "$out/rec.1.dat" ] && [ -e "$out/rec.2.dat" ] ||
		fail "$kernel: two snapshots expected: $(ls "$out")"
	[ ! -e "$out/rec.3.dat" ] || fail "$kernel: a third snapshot, over the limit"
	grep -q 'no snapshot, 2 were written in the last minute' "$out/record.err" ||
		fail "$kernel: the recorder did not say the limit held"
	# Snapshot 1: the first slow write, issued and completed, 80 ms apart...
	"$BLKMAP" report -f csv "$out/rec.1.dat" >"$out/snap1.csv"
	first=$(head -n 1 "$out/slow.log")
	ev=$(csv_col "$out/snap1.csv" event) nm=$(csv_col "$out/snap1.csv" name)
	sc=$(csv_col "$out/snap1.csv" sector)
	d2c=$(awk -F, -v e="$ev" -v n="$nm" -v s="$sc" -v want="$first" '
		$n == "slow" && $s == want && $e == "block_rq_issue" { issue = $1 }
		$n == "slow" && $s == want && $e == "block_rq_complete" { done = $1 }
		END { if (issue && done) print int((done - issue) / 1000000); else print "none" }' \
		"$out/snap1.csv")
	note "$kernel: snapshot 1 holds the first slow write, D2C $d2c ms"
	[ "$d2c" != none ] && [ "$d2c" -ge 75 ] ||
		fail "$kernel: snapshot 1 lacks the slow write at sector $first (D2C: $d2c)"
	# ...no later slow write, and the fast I/O of the 0.5 s after it.
	second=$(sed -n 2p "$out/slow.log")
	awk -F, -v n="$nm" -v s="$sc" -v want="$second" '$n == "slow" && $s == want' \
		"$out/snap1.csv" | grep -q . && fail "$kernel: snapshot 1 holds the second slow write"
	after=$(awk -F, -v e="$ev" -v n="$nm" -v s="$sc" -v want="$first" '
		$n == "slow" && $s == want && $e == "block_rq_complete" { done = $1 }
		done && $n == "fast" && $1 > done + 400000000 { c++ } END { print c + 0 }' \
		"$out/snap1.csv")
	[ "$after" -gt 0 ] || fail "$kernel: snapshot 1 ends before 0.4 s after the slow write"
	# The slow I/O on "other" made none: snapshot 1 is about "slow".
	grep -c 'snapshot in' "$out/record.err" | grep -qx 2 ||
		fail "$kernel: $(grep -c 'snapshot in' "$out/record.err") snapshots triggered, not 2"
	# The whole recording: every logged write named right.
	"$BLKMAP" report -f csv "$out/rec.dat" >"$out/events.csv"
	check_writes "$out/writes.log" "$out/events.csv"
done
