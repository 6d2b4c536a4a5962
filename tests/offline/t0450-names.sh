#!/bin/sh
# The names people know, from a recording of the host (tests/data/host-names.dat):
# loop0 attached to a.img, written, detached; attached to core22_1380.snap, its
# ext4 mounted on .../mnt/srv, a file written, unmounted, detached. The script's
# own log (host-names.writes: NAME MAJ:MIN SECTOR SECTORS FILE MOUNT) is the
# truth: every logged write carries its file and mount point in the events, each
# attachment is its own incarnation in --map with its file, --disk takes a file
# or a mount point, the text views name the device by them, completion offers them.
. "$(dirname "$0")/lib.sh"
REC=$top/tests/data/host-names.dat
LOG=$top/tests/data/names.writes
. "$top/tests/lib/labels.sh"

"$BLKMAP" report -f csv "$REC" >"$T/events.csv"
ev=$(csv_col "$T/events.csv" event); dv=$(csv_col "$T/events.csv" dev)
sc=$(csv_col "$T/events.csv" sector); ns=$(csv_col "$T/events.csv" nr_sector)
bf=$(csv_col "$T/events.csv" backing_file); mt=$(csv_col "$T/events.csv" mount)
ic=$(csv_col "$T/events.csv" incarnation); cm=$(csv_col "$T/events.csv" comm)
"$BLKMAP" report --map -f csv "$REC" >"$T/map.csv"
mi=$(csv_col "$T/map.csv" incarnation); mb=$(csv_col "$T/map.csv" backing_file)
mm=$(csv_col "$T/map.csv" mounts)
incs=
while read -r name dev start count file mount; do
	[ "$mount" = "-" ] && mount=
	# dd's writes there (the file system writes its own too, anywhere).
	set -- $(awk -F, -v e="$ev" -v d="$dv" -v s="$sc" -v c="$ns" -v b="$bf" -v m="$mt" \
		-v i="$ic" -v k="$cm" -v dev="$dev" -v lo="$start" -v hi=$((start + count)) -v file="$file" \
		-v mount="$mount" '
		$e == "block_bio_queue" && $d == dev && $s >= lo && $s < hi && $k == "dd" {
			sum += $c; inc = $i
			if ($b != file || $m != mount) bad = bad " " $b "/" ($m == "" ? "-" : $m) }
		END { print sum + 0, (inc == "" ? "-" : inc), (bad == "" ? "-" : bad) }' "$T/events.csv")
	note "$file ${mount:-(not mounted)}: $1 of $count sectors, in $2, wrongly labelled:$3"
	[ "$1" -eq "$count" ] || fail "$file: $1 sectors reported, $count written"
	[ "$3" = "-" ] || fail "$file: labelled$3"
	got=$(awk -F, -v i="$mi" -v b="$mb" -v inc="$2" 'NR > 1 && $i == inc {print $b}' "$T/map.csv")
	[ "$got" = "$file" ] || fail "--map: $2 has backing file '$got', not $file"
	case " $incs " in *" $2 "*) fail "two attachments in one incarnation $2" ;; esac
	incs="$incs $2"
	# --disk FILE: that attachment alone; --disk MOUNT: the writes made through it.
	"$BLKMAP" report --disks -f csv --disk "$file" "$REC" >"$T/disks.csv"
	di=$(csv_col "$T/disks.csv" incarnation)
	[ "$(awk -F, -v i="$di" 'NR > 1 {print $i}' "$T/disks.csv")" = "$2" ] ||
		fail "--disk $file: not $2 alone"
	if [ -n "$mount" ]; then
		"$BLKMAP" report -f csv --disk "$mount" "$REC" >"$T/sel.csv"
		sel=$(awk -F, -v e="$ev" -v d="$dv" -v s="$sc" -v c="$ns" -v k="$cm" -v dev="$dev" \
			-v lo="$start" -v hi=$((start + count)) '$e == "block_bio_queue" && $d == dev &&
			$s >= lo && $s < hi && $k == "dd" { sum += $c } END { print sum + 0 }' "$T/sel.csv")
		[ "$sel" -eq "$count" ] || fail "--disk $mount: $sel of the $count sectors written there"
		awk -F, -v m="$(csv_col "$T/sel.csv" mount)" 'NR > 1 && $m == "" { exit 1 }' "$T/sel.csv" ||
			fail "--disk $mount: events from while it was not mounted"
		awk -F, -v i="$mi" -v m="$mm" -v inc="$2" 'NR > 1 && $i == inc {print $m}' "$T/map.csv" |
			grep -q "^$mount@[0-9]*\.\.[0-9]*/[0-9]*\.\.[0-9]*$" ||
			fail "--map: $2 has no closed mount on $mount"
	fi
	# The text views: the file's name and the mount point beside the kernel's.
	want="$name ($(basename "$file")${mount:+ on $mount})"
	"$BLKMAP" report --map "$REC" | grep -qF "$want" || fail "--map text lacks '$want'"
	"$BLKMAP" report --disks --disk "$file" "$REC" | grep -qF "$want" ||
		fail "--disks text lacks '$want'"
done <"$LOG"

# Detached between and after: incarnations without a file, none of them written.
got=$(awk -F, -v b="$mb" 'NR > 1 && $1 == "7:0" {print ($b == "" ? "-" : "f")}' "$T/map.csv" | tr -d '\n')
[ "$got" = "-f-f-" ] || fail "loop0's incarnations: '$got', the script: detached, a.img, detached, snap, detached"

# Completion offers the files and the mount point for --disk.
if command -v bash >/dev/null; then
	bash -c '. "$1"; words=("$2" report "$3"); _blkmap_recorded 2' \
		sh "$top/scripts/blkmap.bash-completion" "$BLKMAP" "$REC" >"$T/names"
	while read -r name dev start count file mount; do
		grep -qxF "$file" "$T/names" || fail "completion lacks $file"
		[ "$mount" = "-" ] || grep -qxF "$mount" "$T/names" || fail "completion lacks $mount"
	done <"$LOG"
fi
# --names=kernel: the kernel names alone, in every text view.
for view in "" --map --disks --top; do
	"$BLKMAP" report $view --names=kernel "$REC" >"$T/kernel.txt"
	! grep -q "loop0 (" "$T/kernel.txt" || fail "--names=kernel $view still names loop0 by its file"
	grep -q "loop0" "$T/kernel.txt" || fail "--names=kernel $view: no loop0"
done
"$BLKMAP" report "$REC" | grep -qF "loop0 (a.img)" || fail "the events text does not name loop0 (a.img)"
"$BLKMAP" report --names=other "$REC" >/dev/null 2>&1 && fail "--names=other accepted"
note "--names=kernel leaves the kernel names alone"
note "labels, --disk, text and completion agree with the script's log"
