# One loop device attached to ten files in turn, as snap refreshes do:
# each attachment is an incarnation of its own (attach and detach change the
# diskseq) with its backing file, every write is labelled with the file it
# went to, --disk FILE selects that attachment, and its figures are the
# kernel's own (the loop device's stat, read before and after each one).
. "$(dirname "$0")/lib.sh"
need_root
N=10
LOG=$T/writes.log
: >"$LOG"
for i in $(seq 1 $N); do truncate -s 16M "$T/core22_$i.snap"; done
L=$(losetup -f) || skip "no free loop device"
track loop "$L"
name=$(basename "$L")

# written sectors of the loop device, from its stat (field 7)
written() { awk '{print $7}' "/sys/class/block/$name/stat"; }

scenario() {
	for i in $(seq 1 $N); do
		f=$T/core22_$i.snap
		losetup "$L" "$f" || fail "losetup $L $f"
		before=$(written)
		dd if=/dev/zero of="$L" bs=4k seek=$((i * 16)) count="$i" oflag=direct 2>/dev/null
		after=$(written)
		echo "$name $(devnum "$L") $((i * 128)) $((i * 8)) $f $((after - before))" >>"$LOG"
		losetup -d "$L"
		sleep 0.2
	done
}

"$BLKMAP" record -o "$T/rec.dat" 2>"$T/record.err" &
rec=$!
wait_line "$T/record.err" "recording into"
scenario
sleep 0.3
kill -INT $rec
wait $rec || { cat "$T/record.err"; fail "record failed"; }
untrack loop "$L"
cat "$LOG"; [ -z "${KEEP:-}" ] || cp "$T/rec.dat" "$KEEP"
assert_clean
grep -q "uevent" "$T/record.err" || fail "premise missing: the uevent source was not used"

"$BLKMAP" report -f csv "$T/rec.dat" >"$T/events.csv"
"$BLKMAP" report --map -f csv "$T/rec.dat" >"$T/map.csv"
"$BLKMAP" report --map "$T/rec.dat" | grep -A1 "$name" | head -n 40

ev=$(csv_col "$T/events.csv" event); dv=$(csv_col "$T/events.csv" dev)
nm=$(csv_col "$T/events.csv" name); sc=$(csv_col "$T/events.csv" sector)
ns=$(csv_col "$T/events.csv" nr_sector); bf=$(csv_col "$T/events.csv" backing_file)
ic=$(csv_col "$T/events.csv" incarnation)
[ -n "$bf" ] || fail "the events have no backing_file column"
mb=$(csv_col "$T/map.csv" backing_file); mi=$(csv_col "$T/map.csv" incarnation)
seen=
while read -r want dev start count file kernel; do
	# Every queued write in the logged range: the loop device, this file.
	set -- $(awk -F, -v e="$ev" -v d="$dv" -v n="$nm" -v s="$sc" -v c="$ns" -v b="$bf" \
		-v i="$ic" -v dev="$dev" -v lo="$start" -v hi=$((start + count)) \
		-v want="$want" -v file="$file" '
		$e == "block_bio_queue" && $d == dev && $s >= lo && $s < hi {
			sum += $c; rows++; inc[$i] = 1
			if ($n != want || $b != file) bad = bad " " $n "/" ($b == "" ? "(none)" : $b) }
		END { k = ""; for (x in inc) k = k x; print sum + 0, rows + 0, (k == "" ? "-" : k),
			(bad == "" ? "-" : bad) }' "$T/events.csv")
	note "$file: $1 of $count sectors in $2 events of $3, wrongly labelled:$4"
	[ "$1" -eq "$count" ] || fail "$file: $1 sectors reported, $count written"
	[ "$4" = "-" ] || fail "$file: writes labelled$4"
	case " $seen " in *" $3 "*) fail "$file: incarnation $3 carried another file too" ;; esac
	seen="$seen $3"
	# The map has that incarnation with that file.
	got=$(awk -F, -v i="$mi" -v b="$mb" -v inc="$3" 'NR > 1 && $i == inc {print $b}' "$T/map.csv")
	[ "$got" = "$file" ] || fail "map: $3 has backing file '$got', not $file"
	# --disk FILE: that attachment's writes, as the kernel counted them.
	"$BLKMAP" report --disks -f csv --disk "$file" "$T/rec.dat" >"$T/disks.csv"
	wb=$(csv_col "$T/disks.csv" write_bytes); di=$(csv_col "$T/disks.csv" incarnation)
	rows=$(awk -F, -v i="$di" 'NR > 1 {print $i}' "$T/disks.csv" | tr '\n' ' ')
	[ "$rows" = "$3 " ] || fail "--disk $file: rows '$rows', not $3"
	bytes=$(awk -F, -v w="$wb" 'NR > 1 {print $w}' "$T/disks.csv")
	note "--disk $file: $bytes bytes written; the kernel counted $((kernel * 512))"
	[ "$bytes" -eq $((kernel * 512)) ] || fail "--disk $file: $bytes bytes, the kernel counted $((kernel * 512))"
done <"$LOG"
"$BLKMAP" report --disks "$T/rec.dat" | grep -q "$name (core22_5.snap)" ||
	fail "--disks text does not name $name by its file"
# Each detach ends its attachment: the incarnation after it has no file.
dev=$(devnum "$L")
awk -F, -v i="$mi" -v b="$mb" -v d="$dev" 'NR > 1 && $1 == d { print $i, ($b == "" ? "-" : $b) }' \
	"$T/map.csv" >"$T/incs"
attached=$(awk '$2 != "-"' "$T/incs" | wc -l)
[ "$attached" -eq $N ] || fail "$attached incarnations with a file, $N attachments"
awk -v n=$N 'prev != "" && prev != "-" && $2 != "-" { print "no detach between " p " and " $1; bad = 1 }
	{ prev = $2; p = $1 } END { exit bad }' "$T/incs" || fail "an attachment's detach is missing"
