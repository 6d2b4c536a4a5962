# Devices come, go and reuse numbers during one recording: every I/O event
# must carry the name of the device the script wrote to at that moment, and
# the map must hold each incarnation, in order.
#
# The script logs each write (name, MAJ:MIN, first sector, sectors); the
# report is checked against that log, not against a hand-written output.
. "$(dirname "$0")/lib.sh"
need_root
[ -e /sys/class/zram-control/hot_add ] || skip "no zram-control"
command -v addpart >/dev/null || skip "no addpart (util-linux)"
truncate -s 64M "$T/a.img" "$T/b.img"
LOG=$T/writes.log
: >"$LOG"

# write NAME SEEK COUNT: COUNT 4 KiB blocks at block SEEK of /dev/NAME, logged.
write() {
	dd if=/dev/zero of="/dev/$1" bs=4k seek="$2" count="$3" oflag=direct 2>/dev/null
	echo "$1 $(devnum "/dev/$1") $(($2 * 8)) $(($3 * 8))" >>"$LOG"
}

scenario() {
	# zram: the same number twice, removed and re-added.
	z=$(new_zram); write "zram$z" 10 3; drop_zram "$z"
	z2=$(new_zram); [ "$z2" = "$z" ] || fail "premise missing: zram id not reused ($z then $z2)"
	write "zram$z2" 20 5; drop_zram "$z2"

	# A partition on loop A; then one on loop B that reuses its MAJ:MIN.
	A=$(new_loop "$T/a.img" -P)
	B=$(losetup -f)		# the next free loop device, for later
	addpart "$A" 1 2048 20480
	write "$(basename "$A")p1" 4 2
	first=$(devnum "${A}p1")
	drop_loop "$A"
	sleep 0.5		# the partition's number returns to the pool on release
	losetup -P "$B" "$T/b.img"; track loop "$B"
	for try in 1 2 3 4 5; do
		addpart "$B" 1 4096 20480
		[ "$(devnum "${B}p1")" = "$first" ] && break
		delpart "$B" 1; sleep 0.5
	done
	[ "$(devnum "${B}p1")" = "$first" ] || fail "premise missing: partition number $first was not reused"
	write "$(basename "$B")p1" 6 4
	drop_loop "$B"
}

# The scenario runs in this shell (it uses the helpers); record in the background.
"$BLKMAP" record -o "$T/rec.dat" 2>"$T/record.err" &
rec=$!
sleep 1
scenario
sleep 0.2
kill -INT $rec
wait $rec || { cat "$T/record.err"; fail "record failed"; }
cat "$T/record.err"
cat "$LOG"
assert_clean

"$BLKMAP" report -f csv "$T/rec.dat" >"$T/events.csv"
"$BLKMAP" report --map -f csv "$T/rec.dat" >"$T/map.csv"
"$BLKMAP" report --map "$T/rec.dat"

check_writes "$LOG" "$T/events.csv"
check_map "$LOG" "$T/map.csv"
