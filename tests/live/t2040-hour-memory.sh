# Report memory does not grow with a recording's length either: an hour of
# recording (a 3 s one with a zram device added and removed, repeated 1200
# times) whose map records include the uevent listener's idle markers. The
# statedumps, two a recording whatever its length, are left out (no sysfs
# source) so that the copies do not multiply them, and so are the per-disk
# views, whose memory is per incarnation (1200 here, one a minute would be 60).
# sanitized: no (AddressSanitizer keeps freed memory in quarantine: RSS says nothing)
# Processes are the other thing the report keeps one of each: every fork,
# exit and cgroup record of the recording is kept by the first pass, and
# every process forked has a life in the cgroup map, so a machine busy
# forking while the 3 s are recorded (a guest's initramfs being built beside
# this test) gives the hour 1200 times its processes (about 210 bytes each,
# a fork and an exit, measured): each such record may cost PER_RECORD bytes
# on top of the margin.
. "$(dirname "$0")/lib.sh"
need_root
[ -x "${MKBIG:-}" ] || skip "no mkbig (make check builds it)"
[ -x /usr/bin/time ] || skip "no /usr/bin/time"
[ "${SANITIZED:-}" != 1 ] || skip "AddressSanitizer keeps freed memory in quarantine: RSS says nothing"

"$BLKMAP" record -q -d 3 --sources=uevent,tracepoint -o "$T/one.dat" &
pid=$!
sleep 0.5
z=$(new_zram)
dd if=/dev/zero of=/dev/zram$z bs=4k count=64 oflag=direct 2>/dev/null
drop_zram "$z"
wait $pid || fail "record failed"
"$MKBIG" "$T/one.dat" "$T/hour.dat" 1200 || fail "mkbig failed"
idle=$("$BLKMAP" report "$T/one.dat" | grep -c 'uevent-idle') || true
[ "$idle" -ge 10 ] || fail "only $idle idle markers in 3 s: the premise (many map records) is missing"
note "$((idle * 1200)) idle markers in the hour"
records=$("$BLKMAP" report -f csv "$T/one.dat" |
	awk -F, '$5 ~ /^(sched_process_(fork|exit)|cgroup_.*)$/' | wc -l)
PER_RECORD=160
margin=$((8192 + records * 1200 * PER_RECORD / 1024))
note "$((records * 1200)) fork, exit and cgroup records in the hour: a margin of $margin KiB"
for view in "" --map; do
	for f in one hour; do
		/usr/bin/time -f %M -o "$T/rss" "$BLKMAP" report $view "$T/$f.dat" >/dev/null 2>&1 ||
			fail "report $view $f failed"
		eval "rss_$f=$(cat "$T/rss")"
	done
	note "report ${view:-(events)}: peak RSS ${rss_one} KiB for 3 s, ${rss_hour} KiB for an hour"
	[ $((rss_hour - rss_one)) -lt $margin ] ||
		fail "report $view grows with the recording's length: $rss_one -> $rss_hour KiB"
done
