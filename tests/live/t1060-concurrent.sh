# Two recorders at once, and perf at the same time: each sees all the I/O,
# and the top-level tracing state is as it was.
. "$(dirname "$0")/lib.sh"
need_root
N=32
top=$(tracing_dir)
state() { for f in tracing_on trace_clock buffer_size_kb set_event current_tracer; do
	echo "$f: $(cat "$top/$f" 2>/dev/null | tr '\n' ' ')"; done; }

truncate -s 64M "$T/img"
L=$(new_loop "$T/img")
before=$(state)
"$BLKMAP" record -q -o "$T/a.dat" & a=$!
"$BLKMAP" record -q -o "$T/b.dat" & b=$!
perf_pid=""
if command -v perf >/dev/null && perf record -e block:block_rq_issue -a -o "$T/perf.data" \
	-- sleep 4 >/dev/null 2>&1 & then perf_pid=$!; fi
sleep 1
dd if=/dev/zero of="$L" bs=4k count=$N oflag=direct 2>/dev/null
sleep 0.5
kill -INT $a $b
wait $a || fail "recorder a failed"
wait $b || fail "recorder b failed"
[ -z "$perf_pid" ] || wait "$perf_pid" || true
for f in a b; do
	n=$("$BLKMAP" report -f csv "$T/$f.dat" | grep -c ",block_rq_issue,$(devnum "$L")," || true)
	note "recorder $f: $n write requests on $(devnum "$L")"
	[ "$n" -ge "$N" ] || fail "recorder $f saw $n of $N writes"
done
if [ -s "$T/perf.data" ]; then
	p=$(perf script -i "$T/perf.data" 2>/dev/null | grep -c "block_rq_issue: $(devnum "$L" | tr : ,) W" || true)
	note "perf: $p write requests"
	[ "$p" -ge "$N" ] || fail "perf saw $p of $N writes while blkmap recorded"
fi
[ "$(state)" = "$before" ] || fail "the top-level instance changed: $(state)"
assert_clean
