# A statedump that fails (tracing switched off under the recorder while it
# dumps) costs that dump and says so; the recording and its file are kept.
. "$(dirname "$0")/lib.sh"
need_root

truncate -s 16M "$T/img"
L=$(new_loop "$T/img")
dev=$(devnum "$L")

for when in request end; do
	"$BLKMAP" record -o "$T/$when.dat" 2>"$T/$when.err" &
	pid=$!
	wait_line "$T/$when.err" "recording into instance"
	on=$(tracing_dir)/instances/blkmap-$pid/tracing_on
	dd if=/dev/zero of="$L" bs=4k count=3 oflag=direct 2>/dev/null
	echo 0 >"$on"
	if [ $when = request ]; then
		kill -USR1 $pid
		wait_line "$T/$when.err" "warning: the statedump on request failed"
		echo 1 >"$on"
		dd if=/dev/zero of="$L" bs=4k count=5 seek=10 oflag=direct 2>/dev/null
	fi
	kill -INT $pid
	wait $pid || fail "$when: record exited $? after a failed statedump: $(cat "$T/$when.err")"
	assert_clean
	[ -s "$T/$when.dat" ] || fail "$when: no file after a failed statedump"
	"$BLKMAP" report "$T/$when.dat" --format=csv >"$T/$when.csv" ||
		fail "$when: the file does not read"
	issues=$(awk -F, -v d="$dev" '$5 == "block_rq_issue" && $6 == d' "$T/$when.csv" | wc -l)
	want=3; [ $when = request ] && want=8
	[ "$issues" -eq $want ] || fail "$when: $issues writes to $dev in the file, not $want"
	note "$when: $(grep warning "$T/$when.err")"
done
grep -q "warning: the statedump at the end failed" "$T/end.err" ||
	fail "the failed end dump was not reported: $(cat "$T/end.err")"
"$BLKMAP" report "$T/request.dat" | grep -q "blkmap:record-end" || fail "the request run has no end marker"
