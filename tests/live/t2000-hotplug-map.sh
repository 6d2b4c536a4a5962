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
	z2=$(new_zram); [ "$z2" = "$z" ] || note "zram id not reused ($z then $z2)"
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
	[ "$(devnum "${B}p1")" = "$first" ] || note "partition number $first was not reused"
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

# Each logged write: its events are on the device, carry its name, and add up.
ev=$(csv_col "$T/events.csv" event); dv=$(csv_col "$T/events.csv" dev)
nm=$(csv_col "$T/events.csv" name); sc=$(csv_col "$T/events.csv" sector)
ns=$(csv_col "$T/events.csv" nr_sector); od=$(csv_col "$T/events.csv" old_dev)
on=$(csv_col "$T/events.csv" old_name); os=$(csv_col "$T/events.csv" old_sector)
labelled=0
while read -r name dev start count; do
	case $name in
	*p[0-9]*) # partition I/O is seen as the remap from the partition
		set -- $(awk -F, -v e="$ev" -v d="$od" -v n="$on" -v s="$os" -v c="$ns" \
			-v dev="$dev" -v lo="$start" -v hi=$((start + count)) -v want="$name" '
			$e == "block_bio_remap" && $d == dev && $s >= lo && $s < hi {
				sum += $c; rows++; if ($n != want) bad = bad " " $n }
			END { print sum + 0, rows + 0, (bad == "" ? "-" : bad) }' "$T/events.csv") ;;
	*)
		set -- $(awk -F, -v e="$ev" -v d="$dv" -v n="$nm" -v s="$sc" -v c="$ns" \
			-v dev="$dev" -v lo="$start" -v hi=$((start + count)) -v want="$name" '
			$e == "block_bio_queue" && $d == dev && $s >= lo && $s < hi {
				sum += $c; rows++; if ($n != want) bad = bad " " $n }
			END { print sum + 0, rows + 0, (bad == "" ? "-" : bad) }' "$T/events.csv") ;;
	esac
	note "$name ($dev): $1 of $count sectors in $2 events, wrong names: $3"
	[ "$1" -eq "$count" ] || fail "$name: $1 sectors reported at $dev, $count written"
	[ "$3" = "-" ] || fail "$name: events labelled$3"
	labelled=$((labelled + $2))
done <"$LOG"
note "$labelled I/O events checked"

# The map: every device the script wrote to has one incarnation per write, in order.
for dev in $(awk '{print $2}' "$LOG" | sort -u); do
	want=$(awk -v d="$dev" '$2 == d {print $1}' "$LOG" | tr '\n' ' ')
	got=$(awk -F, -v d="$dev" 'NR > 1 && $1 == d {print $2}' "$T/map.csv" | tr '\n' ' ')
	[ "$got" = "$want" ] || fail "map of $dev: '$got', script wrote to '$want'"
	# Intervals in order and closed (every device was removed).
	awk -F, -v d="$dev" 'NR > 1 && $1 == d {
		if ($5 == "") { print "open interval"; exit 1 }
		if (prev != "" && $4 < prev) { print "out of order"; exit 1 }
		prev = $5 }' "$T/map.csv" || fail "map of $dev is not a sequence of closed intervals"
done
