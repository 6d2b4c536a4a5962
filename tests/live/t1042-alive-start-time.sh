# A recorder is alive only if its pid is still the process that wrote its
# registry entry (its start time, /proc/PID/stat field 22, is the one
# saved there), not any process that calls itself blkmap: a dead
# recorder's entry under the pid of such a process is reclaimed.
. "$(dirname "$0")/lib.sh"
need_root

"$BLKMAP" record -o "$T/dead.dat" 2>"$T/dead.err" &
rec=$!
wait_line "$T/dead.err" "recording into"
kill -KILL $rec
wait $rec 2>/dev/null || true
[ -f "/run/blkmap/$rec" ] || fail "the killed recorder left no registry entry (test premise)"

# An impostor: another program named blkmap, under the pid the entry names
# (as if the dead recorder's pid had been given to it).
cp /bin/sleep "$T/blkmap"
"$T/blkmap" 60 &
fake=$!
[ "$(cat /proc/$fake/comm)" = blkmap ] || fail "the impostor is not named blkmap (test premise)"
[ ! -e "/run/blkmap/$fake" ] || fail "the impostor's pid has an entry already (test premise)"
mv "/run/blkmap/$rec" "/run/blkmap/$fake"

"$BLKMAP" reset 2>"$T/reset.err" || { cat "$T/reset.err"; fail "reset failed"; }
cat "$T/reset.err"
grep -q "recovered what dead recorder $fake had recorded" "$T/reset.err" ||
	fail "a process named blkmap under the recorder's pid was taken for the recorder"
[ ! -e "/run/blkmap/$fake" ] || fail "reset left the dead recorder's entry"
"$BLKMAP" report "$T/dead.dat" | grep -q "blkmap:record-begin" || fail "the recovered recording does not read"
kill $fake
wait $fake 2>/dev/null || true

# A live recorder is still alive.
"$BLKMAP" record -o "$T/live.dat" 2>"$T/live.err" &
live=$!
wait_line "$T/live.err" "recording into"
"$BLKMAP" reset 2>"$T/reset2.err" || fail "reset failed"
[ -f "/run/blkmap/$live" ] || fail "reset took the live recorder for dead"
kill -TERM $live
wait $live || fail "the live recorder failed"
assert_clean
