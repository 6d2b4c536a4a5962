# SIGINT, SIGTERM and SIGHUP each end a recording with a complete file.
. "$(dirname "$0")/lib.sh"
need_root

truncate -s 16M "$T/img"
L=$(new_loop "$T/img")
for sig in INT TERM HUP; do
	"$BLKMAP" record -q -o "$T/$sig.dat" &
	pid=$!
	sleep 1
	dd if=/dev/zero of="$L" bs=4k count=8 oflag=direct 2>/dev/null
	kill -s "$sig" $pid
	wait $pid || fail "record exited $? after SIG$sig"
	assert_clean
	"$BLKMAP" report "$T/$sig.dat" >"$T/$sig.txt" || fail "the SIG$sig recording does not read"
	grep -q 'blkmap:record-end' "$T/$sig.txt" || fail "the SIG$sig recording has no end marker"
	grep -q "block_rq_issue .*$(basename "$L")" "$T/$sig.txt" ||
		fail "the SIG$sig recording misses the I/O"
	note "SIG$sig: $(wc -l <"$T/$sig.txt") events"
done

# With a command, the signal goes to the command and its status is ours.
"$BLKMAP" record -q -o "$T/cmd.dat" -- sleep 30 &
pid=$!
sleep 1
kill -TERM $pid
set +e
wait $pid
status=$?
set -e
[ "$status" -eq 143 ] || fail "record of a command killed by SIGTERM exited $status, not 143"
"$BLKMAP" report "$T/cmd.dat" >/dev/null || fail "the command's recording does not read"
assert_clean
