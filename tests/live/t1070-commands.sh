# The traced command: exits at once, ignores signals, or reads the terminal's
# signal; the documented behaviour holds. Report needs no privileges.
. "$(dirname "$0")/lib.sh"
need_root

# Exits at once: a complete recording, its status.
"$BLKMAP" record -q -o "$T/quick.dat" -- true || fail "record of 'true' failed"
"$BLKMAP" report "$T/quick.dat" | grep -q 'blkmap:record-end' || fail "quick: incomplete"

# Ignores signals: the first is passed on and ignored, the second stops
# recording at once and leaves the command running.
"$BLKMAP" record -o "$T/stubborn.dat" -- sh -c 'trap "" INT TERM; sleep 3' 2>"$T/err" &
pid=$!
sleep 1
kill -INT $pid
sleep 0.3
kill -0 $pid || fail "record stopped at the first signal"
kill -INT $pid
set +e
wait $pid
set -e
grep -q "still running" "$T/err" || { cat "$T/err"; fail "no word of the running command"; }
"$BLKMAP" report "$T/stubborn.dat" >/dev/null || fail "stubborn: the file does not read"
assert_clean

# Report needs no privileges.
chmod 644 "$T/quick.dat"; chmod 755 "$T"
if command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$BLKMAP" report "$T/quick.dat" \
		>/dev/null || fail "report as nobody failed"
fi
