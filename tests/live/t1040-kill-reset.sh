# A recorder killed with SIGKILL leaves its instance and spool; reset (or the
# next record) writes out everything it recorded until the kill, removes what
# it left, and leaves a live recorder alone.
. "$(dirname "$0")/lib.sh"
need_root
N=40

truncate -s 64M "$T/img"
L=$(new_loop "$T/img")
"$BLKMAP" record -q -o "$T/live.dat" &
live=$!
"$BLKMAP" record -q -o "$T/dead.dat" &
dead=$!
sleep 1
dd if=/dev/zero of="$L" bs=4k count=$N oflag=direct 2>/dev/null
kill -KILL $dead
wait $dead 2>/dev/null || true
inst=$(tracing_dir)/instances
[ -d "$inst/blkmap-$dead" ] || fail "the killed recorder left no instance (test premise)"
ls -d "$T"/.blkmap-$dead-*.spool >/dev/null 2>&1 || fail "the killed recorder left no spool (test premise)"

"$BLKMAP" reset 2>"$T/reset.err" || fail "reset failed"
cat "$T/reset.err"
[ ! -d "$inst/blkmap-$dead" ] || fail "reset left the dead recorder's instance"
! ls -d "$T"/.blkmap-$dead-*.spool >/dev/null 2>&1 || fail "reset left the dead recorder's spool"
[ -d "$inst/blkmap-$live" ] || fail "reset removed the live recorder's instance"
n=$("$BLKMAP" report -f csv "$T/dead.dat" | grep -c ",block_rq_issue,$(devnum "$L")," || true)
note "recovered $n of $N write requests"
[ "$n" -ge "$N" ] || fail "recovered $n write requests of the $N before the kill"

kill -INT $live
wait $live || fail "the live recorder failed after reset"
"$BLKMAP" report "$T/live.dat" >/dev/null || fail "the live recorder's file does not read"

# The next record reclaims too.
"$BLKMAP" record -q -o "$T/dead2.dat" &
dead=$!
sleep 1
kill -KILL $dead
wait $dead 2>/dev/null || true
"$BLKMAP" record -o "$T/next.dat" -- true 2>"$T/next.err"
grep -q "dead recorder $dead" "$T/next.err" || { cat "$T/next.err"; fail "record did not reclaim"; }
[ ! -d "$inst/blkmap-$dead" ] || fail "record left the dead recorder's instance"
"$BLKMAP" report "$T/dead2.dat" >/dev/null || fail "the second dead recording does not read"
assert_clean
[ -z "$(ls /run/blkmap 2>/dev/null)" ] || fail "registry entries left: $(ls /run/blkmap)"
