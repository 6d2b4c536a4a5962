# A live test that fails leaves what it started in the background running;
# its cleanup stops them and returns. A background job of sh ignores
# SIGINT (a FUSE daemon then keeps ignoring it, and so may anything that
# only installs handlers over the default): the cleanup goes on to SIGTERM,
# then SIGKILL, rather than waiting for good.
. "$(dirname "$0")/lib.sh"
# The live tests' helpers as they are, beside a test that fails.
mkdir -p "$T/tests/live" "$T/tests/lib"
cp "$top/tests/live/lib.sh" "$T/tests/live/"
cp -r "$top/tests/lib/." "$T/tests/lib/"
cat >"$T/tests/live/failing.sh" <<SH
. "\$(dirname "\$0")/lib.sh"
sh -c 'trap "" INT TERM; exec sleep 300' &
echo \$! >"$T/deaf.pid"
sh -c 'trap "" INT; exec sleep 300' &
echo \$! >"$T/no-int.pid"
sleep 300 &
echo \$! >"$T/plain.pid"
sleep 0.2
fail "on purpose"
SH
start=$(date +%s)
set +e
TMPDIR=$T timeout 120 sh "$T/tests/live/failing.sh" >"$T/out" 2>&1
got=$?
set -e
took=$(($(date +%s) - start))
cat "$T/out"
# The test's shell is gone: a process still there under a job's pid is ours.
left=
for p in deaf no-int plain; do
	pid=$(cat "$T/$p.pid")
	if [ -e "/proc/$pid" ] && grep -q sleep "/proc/$pid/cmdline" 2>/dev/null; then
		kill -KILL "$pid"
		left="$left $p"
	fi
done
[ "$got" -ne 124 ] || fail "the cleanup still waited after 120 s"
[ "$got" -eq 1 ] || fail "the failing test exited $got, not its own status 1"
[ -z "$left" ] || fail "jobs outlived the cleanup:$left"
[ "$took" -le 30 ] || fail "the cleanup took $took s"
left=$(ls -d "$T"/blkmap-live.* 2>/dev/null || true)
[ -z "$left" ] || fail "the failing test's directory was left: $left"
note "a failing test's background jobs stopped in $took s"
