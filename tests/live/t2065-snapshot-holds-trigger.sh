# A triggered snapshot holds the I/O that triggered it and what led to it,
# however much comes after: a slow write on one disk (any loop write is
# slower than a microsecond), then, during --post, a flood on another
# disk many times the ring. The snapshot must hold the write's issue and
# completion and every flood write from the trigger on (the ring held
# since the trigger: none let go), and be brought forward, saying so, once
# the ring went round since; a recording stopped with a snapshot due
# writes it first.
. "$(dirname "$0")/lib.sh"
need_root
RING=8M SECTOR=6216	# block 777 of 4 KiB

truncate -s 16M "$T/img"
L=$(new_loop "$T/img")
LDEV=$(devnum "$L")
z=$(new_zram)
ZDEV=$(devnum zram$z)

# slow_write ERR: a flight recorder watching the loop device, its messages
# in ERR (a new file: the recorder's own), and the slow write it sees; $rec.
slow_write() {
	"$BLKMAP" record --ring=$RING -o "$T/ring.dat" --post=30 \
		--snapshot-on="latency>1us,disk=$(basename "$L")" 2>"$1" &
	rec=$!
	wait_line "$1" "recording into"
	dd if=/dev/zero of="$L" bs=4k seek=777 count=1 oflag=direct 2>/dev/null
	wait_line "$1" "sector $SECTOR, ending at"
}

slow_write "$T/record.err"
# 8 x 16000 writes of 4 KiB: about 12 MiB of events, three times a CPU's ring,
# from one CPU: its pages are read in order, so none of the flood is
# missing from the snapshot but at its end.
for pass in 1 2 3 4 5 6 7 8; do
	taskset -c 0 dd if=/dev/zero of=/dev/zram$z bs=4k count=16000 oflag=direct 2>/dev/null
done
wait_line "$T/record.err" "snapshot $T/ring.1.dat"
kill -INT $rec
wait $rec || fail "record exited $?: $(cat "$T/record.err")"
assert_clean
note "$(grep -e 'ending at' -e 'went round' -e 'ring.1.dat' "$T/record.err" | tr '\n' ';')"
grep -q "a CPU.s ring went round once since the slow I/O: the snapshot now" "$T/record.err" ||
	fail "the flood did not bring the snapshot forward: $(cat "$T/record.err")"

"$BLKMAP" report -f csv "$T/ring.1.dat" >"$T/snap.csv" || fail "report of the snapshot failed"
ev=$(csv_col "$T/snap.csv" event) dv=$(csv_col "$T/snap.csv" dev) sc=$(csv_col "$T/snap.csv" sector)
for e in block_rq_issue block_rq_complete; do
	n=$(awk -F, -v e="$ev" -v d="$dv" -v s="$sc" -v E=$e -v D="$LDEV" -v S=$SECTOR \
		'$e == E && $d == D && $s == S' "$T/snap.csv" | wc -l)
	[ "$n" -eq 1 ] || fail "the snapshot holds $n $e of the slow write ($LDEV sector $SECTOR)"
done
# Every flood write from the trigger to the snapshot is there: the zram
# writes' sectors run 0, 8, 16... in each pass, so the snapshot's, in
# order, are whole passes and the start of one, with none missing.
rw=$(csv_col "$T/snap.csv" rwbs)
awk -F, -v e="$ev" -v d="$dv" -v s="$sc" -v w="$rw" -v D="$ZDEV" \
	'$e == "block_bio_queue" && $d == D && $w ~ /W/ { print $s }' "$T/snap.csv" >"$T/zsectors"
n=$(wc -l <"$T/zsectors")
[ "$n" -gt 16000 ] || fail "the snapshot holds only $n flood writes: the ring was not held"
first=$(head -n 1 "$T/zsectors")
[ "$first" -eq 0 ] || fail "the snapshot's first flood write is at sector $first: the start was let go"
gaps=$(awk 'NR > 1 && $1 != 0 && $1 != prev + 8 { g++ } { prev = $1 } END { print g + 0 }' "$T/zsectors")
[ "$gaps" -eq 0 ] || fail "$gaps gaps in the snapshot's flood writes"
note "the snapshot holds the slow write and $n flood writes, in order, from the first"

# A recording that stops with a triggered snapshot due writes it first.
rm -f "$T"/ring*.dat
slow_write "$T/stop.err"
kill -INT $rec
wait $rec || fail "record exited $?: $(cat "$T/stop.err")"
assert_clean
grep -q "stopping with a triggered snapshot due: written now" "$T/stop.err" ||
	fail "no word of the snapshot due at the stop: $(cat "$T/stop.err")"
"$BLKMAP" report -f csv "$T/ring.1.dat" >"$T/snap.csv" || fail "no snapshot written at the stop"
grep -q ",block_rq_complete,$LDEV,.*,$SECTOR," "$T/snap.csv" ||
	fail "the snapshot written at the stop lacks the slow write"
