# Record direct writes to a loop device; blkmap and trace-cmd agree on it.
. "$(dirname "$0")/lib.sh"
need_root
N=64

truncate -s 64M "$T/img"
L=$(new_loop "$T/img")
DEV=$(devnum "$L")
"$BLKMAP" record -o "$T/rec.dat" -- dd if=/dev/zero of="$L" bs=4k count=$N oflag=direct \
	2>"$T/record.err" || { cat "$T/record.err"; fail "record exited $?"; }
cat "$T/record.err"
assert_clean
grep -q "lost 0 " "$T/record.err" || fail "events were lost"

"$BLKMAP" report -f csv "$T/rec.dat" >"$T/events.csv"
ev=$(csv_col "$T/events.csv" event)
dv=$(csv_col "$T/events.csv" dev)
nm=$(csv_col "$T/events.csv" name)
rw=$(csv_col "$T/events.csv" rwbs)
writes=$(awk -F, -v e="$ev" -v d="$dv" -v r="$rw" -v dev="$DEV" \
	'$e == "block_rq_issue" && $d == dev && $r ~ /W/' "$T/events.csv" | wc -l)
note "$writes write requests issued on $DEV (wrote $N blocks)"
[ "$writes" -ge "$N" ] || fail "expected at least $N write requests on $DEV, got $writes"

# Every event on the loop device carries its name.
names=$(awk -F, -v d="$dv" -v n="$nm" -v dev="$DEV" '$d == dev {print $n}' "$T/events.csv" | sort -u)
[ "$names" = "$(basename "$L")" ] || fail "events on $DEV named '$names', not $(basename "$L")"

# trace-cmd reads the same file and sees the same block events.
if command -v trace-cmd >/dev/null; then
	ours=$(awk -F, -v e="$ev" '$e ~ /^block_/' "$T/events.csv" | wc -l)
	theirs=$(trace-cmd report "$T/rec.dat" 2>/dev/null | grep -c ' block_[a-z_]*:')
	note "block events: blkmap $ours, trace-cmd $theirs"
	[ "$ours" -eq "$theirs" ] || fail "blkmap reports $ours block events, trace-cmd $theirs"
	[ "$ours" -gt 0 ] || fail "no block events"
fi
