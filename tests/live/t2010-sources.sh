# Each source alone still labels a hot-plugged device, with the precision it
# can give: sysfs statedumps (on SIGUSR1) bracket the change, uevents bound it.
. "$(dirname "$0")/lib.sh"
need_root
[ -e /sys/class/zram-control/hot_add ] || skip "no zram-control"

run() {	# run SOURCES: record a zram device's life with only these sources
	"$BLKMAP" record --sources="$1" -o "$T/$1.dat" 2>"$T/$1.err" &
	rec=$!
	sleep 1
	z=$(new_zram)
	kill -USR1 $rec; sleep 0.3
	dd if=/dev/zero of=/dev/zram$z bs=4k count=6 oflag=direct 2>/dev/null
	drop_zram "$z"
	kill -USR1 $rec; sleep 0.3
	kill -INT $rec
	wait $rec || { cat "$T/$1.err"; fail "record --sources=$1 failed"; }
	grep -q "map sources: $1\$" "$T/$1.err" || fail "record did not say it used $1"
	"$BLKMAP" report --map -f csv "$T/$1.dat" >"$T/$1.map"
	"$BLKMAP" report -f csv "$T/$1.dat" >"$T/$1.csv"
	echo "zram$z $(awk -F, -v z="zram$z" '$2 == z' "$T/$1.map")"
}

check() {	# check SOURCES LINE: one closed incarnation, its writes labelled
	set -- "$1" $2
	name=$2 row=$3
	[ -n "$row" ] || fail "$1: no interval for $name in the map"
	note "$1: $row"
	[ "$(awk -F, -v z="$name" '$2 == z' "$T/$1.map" | wc -l)" -eq 1 ] ||
		fail "$1: $name has more than one interval"
	echo "$row" | awk -F, '{ if ($4 == "" || $5 == "") exit 1 }' ||
		fail "$1: $name's interval is not closed on both sides"
	dv=$(csv_col "$T/$1.csv" dev); nm=$(csv_col "$T/$1.csv" name)
	ev=$(csv_col "$T/$1.csv" event)
	dev=$(echo "$row" | cut -d, -f1)
	n=$(awk -F, -v e="$ev" -v d="$dv" -v n="$nm" -v dev="$dev" -v z="$name" \
		'$e == "block_bio_queue" && $d == dev && $n == z' "$T/$1.csv" | wc -l)
	bad=$(awk -F, -v e="$ev" -v d="$dv" -v n="$nm" -v dev="$dev" -v z="$name" \
		'$e == "block_bio_queue" && $d == dev && $n != z' "$T/$1.csv" | wc -l)
	[ "$n" -ge 6 ] && [ "$bad" -eq 0 ] || fail "$1: $n writes labelled $name, $bad otherwise"
}

check sysfs "$(run sysfs)"
grep -q ',sysfs,sysfs,' "$T/sysfs.map" || fail "sysfs: boundaries not from sysfs"
check uevent "$(run uevent)"
check tracepoint,uevent "$(run tracepoint,uevent)"
grep -q ',tracepoint+uevent,uevent,' "$T/tracepoint,uevent.map" ||
	fail "tracepoint,uevent: the add is not exact from the tracepoint"
