# A file system on a loop device mounted, written, unmounted and mounted
# elsewhere during a recording: every write to its files carries the mount
# point it was made through, writes to the device while nothing was mounted
# carry none, --disk MOUNTPOINT selects the device only while it was mounted
# there, and --map lists both mounts with their windows.
. "$(dirname "$0")/lib.sh"
need_root
command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4"
command -v filefrag >/dev/null || skip "no filefrag (e2fsprogs)"
truncate -s 64M "$T/fs.img"
L=$(new_loop "$T/fs.img")
name=$(basename "$L")
mkfs.ext4 -q "$L" 32M || fail "mkfs.ext4 $L"
mkdir "$T/first" "$T/second"
LOG=$T/writes.log
: >"$LOG"

# write_file DIR FILE: 256 KiB written directly to DIR/FILE; logs where they went.
write_file() {
	dd if=/dev/urandom of="$1/$2" bs=64k count=4 oflag=direct 2>/dev/null
	sync "$1/$2"
	filefrag -v -b512 "$1/$2" | awk -v m="$1" '$1 ~ /^[0-9]+:$/ {
		split($0, f, ":"); split(f[3], p, "\\.\\."); print m, p[1] + 0, p[2] - p[1] + 1 }' >>"$LOG"
}

scenario() {
	mount "$L" "$T/first"
	write_file "$T/first" a
	umount "$T/first"
	sleep 0.3
	# Past the file system's 32 MiB: the bare device, mounted nowhere.
	dd if=/dev/urandom of="$L" bs=4k seek=10000 count=4 oflag=direct 2>/dev/null
	echo "- $((10000 * 8)) 32" >>"$LOG"
	sleep 0.3
	mount "$L" "$T/second"
	write_file "$T/second" b
	umount "$T/second"
}

"$BLKMAP" record -o "$T/rec.dat" 2>"$T/record.err" &
rec=$!
wait_line "$T/record.err" "recording into"
scenario
sleep 0.3
kill -INT $rec
wait $rec || { cat "$T/record.err"; fail "record failed"; }
cat "$LOG"
assert_clean
[ "$(awk '$1 != "-"' "$LOG" | wc -l)" -ge 2 ] || fail "premise missing: no extents logged"

"$BLKMAP" report -f csv "$T/rec.dat" >"$T/events.csv"
"$BLKMAP" report --map -f csv --disk "$name" "$T/rec.dat" >"$T/map.csv"
"$BLKMAP" report --map --disk "$name" "$T/rec.dat"
dev=$(devnum "$L")
ev=$(csv_col "$T/events.csv" event); dv=$(csv_col "$T/events.csv" dev)
sc=$(csv_col "$T/events.csv" sector); ns=$(csv_col "$T/events.csv" nr_sector)
mt=$(csv_col "$T/events.csv" mount)
[ -n "$mt" ] || fail "the events have no mount column"

# Every logged write in full, labelled with the mount expected.
while read -r want start count; do
	[ "$want" = "-" ] && want=
	set -- $(awk -F, -v e="$ev" -v d="$dv" -v s="$sc" -v c="$ns" -v m="$mt" \
		-v dev="$dev" -v lo="$start" -v hi=$((start + count)) -v want="$want" '
		$e == "block_bio_queue" && $d == dev && $s >= lo && $s < hi {
			sum += $c; if ($m != want) bad = bad " " ($m == "" ? "(none)" : $m) }
		END { print sum + 0, (bad == "" ? "-" : bad) }' "$T/events.csv")
	note "${want:-(no mount)} $start+$count: $1 sectors, wrongly labelled:$2"
	[ "$1" -eq "$count" ] || fail "$start+$count: $1 sectors reported, $count written"
	[ "$2" = "-" ] || fail "$start+$count: labelled$2, not '${want:-(none)}'"
done <"$LOG"

# --disk MOUNTPOINT: the writes made through it, none of the others.
for m in "$T/first" "$T/second"; do
	"$BLKMAP" report -f csv --disk "$m" "$T/rec.dat" >"$T/sel.csv"
	while read -r want start count; do
		got=$(awk -F, -v e="$ev" -v d="$dv" -v s="$sc" -v c="$ns" -v dev="$dev" \
			-v lo="$start" -v hi=$((start + count)) '
			$e == "block_bio_queue" && $d == dev && $s >= lo && $s < hi { sum += $c }
			END { print sum + 0 }' "$T/sel.csv")
		exp=0; [ "$want" = "$m" ] && exp=$count
		[ "$got" -eq "$exp" ] || fail "--disk $m: $got sectors of $want $start+$count, not $exp"
	done <"$LOG"
	note "--disk $m: its writes and no others"
done

# The map: both mounts, in order, each with its windows closed.
mo=$(csv_col "$T/map.csv" mounts)
awk -F, -v m="$mo" 'NR > 1 && $m != "" {print $m}' "$T/map.csv" >"$T/mounts"
cat "$T/mounts"
[ "$(wc -l <"$T/mounts")" -eq 1 ] || fail "the mounts are not on one incarnation"
tr ';' '\n' <"$T/mounts" | sed 's/@.*//' | tr '\n' ' ' >"$T/points"
[ "$(cat "$T/points")" = "$T/first $T/second " ] || fail "map mounts: $(cat "$T/points")"
tr ';' '\n' <"$T/mounts" | grep -v '@[0-9]*\.\.[0-9]*/[0-9]*\.\.[0-9]*$' &&
	fail "a mount without both windows"
"$BLKMAP" report --disks --disk "$name" "$T/rec.dat" | grep -qF "$name (fs.img on $T/first;$T/second)" ||
	fail "--disks text does not name the mount points"
# A mount made before the recording (the root file system): its device
# carries it from before the recording on, still mounted at the end.
root=$(awk '$5 == "/" {print $3}' /proc/self/mountinfo | tail -n 1)
case $root in
0:*|"") note "/ is on no block device ($root): not checked" ;;
*)
	"$BLKMAP" report --map -f csv "$T/rec.dat" >"$T/all.csv"
	mo=$(csv_col "$T/all.csv" mounts)
	awk -F, -v m="$mo" -v d="$root" 'NR > 1 && $1 == d {print $m}' "$T/all.csv" | grep -qx '/@/' ||
		fail "$root does not carry / from before the recording: $(awk -F, -v m="$mo" -v d="$root" 'NR > 1 && $1 == d {print $m}' "$T/all.csv")"
	note "$root carries / from before the recording" ;;
esac
exit 0
