# Checks of a report against what a scenario did, shared by the live and VM
# tests. A scenario logs each write as "NAME MAJ:MIN FIRST_SECTOR SECTORS",
# one write per incarnation of a device.
# Needs fail() and note() from the caller.

# csv_col FILE NAME: the column number of NAME in FILE's header.
csv_col() { head -n 1 "$1" | tr ',' '\n' | grep -nx "$2" | cut -d: -f1; }

# check_writes LOG EVENTS_CSV: every logged write is reported on its device
# number, under its name, with all its sectors. Prints the events checked.
check_writes() {
	log=$1 csv=$2
	ev=$(csv_col "$csv" event); dv=$(csv_col "$csv" dev); nm=$(csv_col "$csv" name)
	sc=$(csv_col "$csv" sector); ns=$(csv_col "$csv" nr_sector)
	od=$(csv_col "$csv" old_dev); on=$(csv_col "$csv" old_name)
	os=$(csv_col "$csv" old_sector)
	checked=0
	while read -r name dev start count; do
		case $name in
		*[0-9]p[0-9]*|sd[a-z][0-9]*)	# a partition: its I/O is the remap from it
			event=block_bio_remap d=$od n=$on s=$os ;;
		*)	event=block_bio_queue d=$dv n=$nm s=$sc ;;
		esac
		set -- $(awk -F, -v e="$ev" -v d="$d" -v n="$n" -v s="$s" -v c="$ns" \
			-v event="$event" -v dev="$dev" -v lo="$start" -v hi=$((start + count)) \
			-v want="$name" '
			$e == event && $d == dev && $s >= lo && $s < hi {
				sum += $c; rows++; if ($n != want) bad = bad " " ($n == "" ? "(none)" : $n) }
			END { print sum + 0, rows + 0, (bad == "" ? "-" : bad) }' "$csv")
		note "$name ($dev): $1 of $count sectors in $2 events, wrongly named:$3"
		[ "$1" -eq "$count" ] || fail "$name: $1 sectors reported at $dev, $count written"
		[ "$3" = "-" ] || fail "$name: events labelled$3"
		checked=$((checked + $2))
	done <"$log"
	note "$checked I/O events checked against the log"
}

# check_map LOG MAP_CSV [EVENTS_CSV]: each device number written to has, in
# the map, one incarnation per write of the script, with its name, in the
# same order, and every interval closed and ordered in time. With
# EVENTS_CSV, only the incarnations some event lands on (or comes from, a
# remap's) are compared: a disk whose diskseq changes without I/O in between
# (md's array started on the disk its open made) is an incarnation of its
# own that the script did not write to; such are noted.
check_map() {
	log=$1 map=$2 events=${3:-}
	mi=$(csv_col "$map" incarnation) used=
	if [ -n "$events" ]; then
		used=$(awk -F, -v i="$(csv_col "$events" incarnation)" \
			-v o="$(csv_col "$events" old_incarnation)" \
			'NR > 1 { if ($i != "") print $i; if ($o != "") print $o }' "$events" |
			sort -u | tr '\n' ' ')
	fi
	for dev in $(awk '{print $2}' "$log" | sort -u); do
		want=$(awk -v d="$dev" '$2 == d {print $1}' "$log" | tr '\n' ' ')
		got=$(awk -F, -v d="$dev" -v i="$mi" -v used=" $used" -v all="$([ -n "$events" ] && echo 0 || echo 1)" '
			NR > 1 && $1 == d {
				if (all == 1 || index(used, " " $i " ")) print $2
				else print "# " $i " (" $2 "): no I/O" > "/dev/stderr" }' "$map" |
			tr '\n' ' ')
		[ "$got" = "$want" ] || fail "map of $dev: '$got', the script wrote to '$want'"
		awk -F, -v d="$dev" 'NR > 1 && $1 == d {
			if ($5 == "") { print "open interval"; exit 1 }
			if (prev != "" && $4 < prev) { print "out of order"; exit 1 }
			prev = $5 }' "$map" || fail "map of $dev is not a sequence of closed intervals"
	done
}

# check_exact LOG MAP_CSV: the intervals of the devices written to start and
# end exactly, from a kernel-side record. A boundary two incarnations of one
# disk share, where its diskseq changed while it stayed (md's array started
# on the disk its open made), is known from the change uevent alone: noted,
# not required exact.
check_exact() {
	log=$1 map=$2
	for dev in $(awk '{print $2}' "$log" | sort -u); do
		awk -F, -v d="$dev" 'NR > 1 && $1 == d { n++; name[n] = $2; fs[n] = $6; ts[n] = $7
				flo[n] = $8; fhi[n] = $9; tlo[n] = $10; thi[n] = $11 }
			END {
				for (k = 1; k <= n; k++) {
					shared_from = k > 1 && name[k - 1] == name[k] &&
						tlo[k - 1] == flo[k] && thi[k - 1] == fhi[k]
					shared_to = k < n && name[k + 1] == name[k] &&
						flo[k + 1] == tlo[k] && fhi[k + 1] == thi[k]
					if (shared_from || shared_to)
						print "# " d " " name[k] ": a diskseq change at " \
							(shared_from ? flo[k] : tlo[k])
					if ((!shared_from && (flo[k] != fhi[k] || fs[k] !~ /kprobe|module/)) ||
					    (!shared_to && (tlo[k] != thi[k] || ts[k] !~ /kprobe|module/))) {
						print d " " name[k] ": from " flo[k] ".." fhi[k] " (" fs[k] \
							"), to " tlo[k] ".." thi[k] " (" ts[k] ")"
						bad = 1 } }
				exit bad }' "$map" || fail "map boundaries of $dev are not exact"
	done
}

# write_labels LOG EVENTS_CSV: for every write event of a logged write (the
# remap from a partition, the queued bio otherwise), "WRITTEN_NAME LABEL BASIS".
write_labels() {
	log=$1 csv=$2
	ev=$(csv_col "$csv" event); dv=$(csv_col "$csv" dev); nm=$(csv_col "$csv" name)
	sc=$(csv_col "$csv" sector); nb=$(csv_col "$csv" name_basis)
	od=$(csv_col "$csv" old_dev); on=$(csv_col "$csv" old_name)
	os=$(csv_col "$csv" old_sector); ob=$(csv_col "$csv" old_name_basis)
	rw=$(csv_col "$csv" rwbs)
	while read -r name dev start count; do
		case $name in
		*[0-9]p[0-9]*|sd[a-z][0-9]*) event=block_bio_remap d=$od n=$on s=$os b=$ob ;;
		*) event=block_bio_queue d=$dv n=$nm s=$sc b=$nb ;;
		esac
		awk -F, -v e="$ev" -v d="$d" -v n="$n" -v s="$s" -v b="$b" -v r="$rw" \
			-v event="$event" -v dev="$dev" -v lo="$start" -v hi=$((start + count)) \
			-v want="$name" '
			$e == event && $d == dev && $s >= lo && $s < hi && $r ~ /W/ {
				print want, ($n == "" ? "-" : $n), $b }' "$csv"
	done <"$log"
}

# check_stacked STACK_CSV VIA_DEV VIA_DM "LOWER..." BYTES: what was written to
# the device VIA_DEV (of device-mapper name VIA_DM, or any if empty) reached
# each LOWER device, BYTES of it each, and the report says it came from there.
check_stacked() {
	csv=$1 via=$2 via_dm=$3 bytes=$5
	nm=$(csv_col "$csv" name); vd=$(csv_col "$csv" via_dev); vm=$(csv_col "$csv" via_dm)
	wb=$(csv_col "$csv" write_bytes)
	for lower in $4; do
		got=$(awk -F, -v n="$nm" -v d="$vd" -v m="$vm" -v w="$wb" -v lower="$lower" \
			-v via="$via" -v dm="$via_dm" \
			'NR > 1 && $n == lower && $d == via && (dm == "" || $m == dm) { s += $w }
			END { print s + 0 }' "$csv")
		note "$lower: $got bytes written through $via $via_dm, $bytes expected"
		[ "$got" -eq "$bytes" ] || fail "$lower: $got bytes written through $via $via_dm, not $bytes"
	done
}

# writers REC DISK: the processes that wrote to DISK in REC (--top), sorted,
# each followed by a space.
writers() {
	"$BLKMAP" report --top -f csv --disk "$2" "$1" >"$T/writers.csv"
	cm=$(csv_col "$T/writers.csv" comm) wb=$(csv_col "$T/writers.csv" write_bytes)
	awk -F, -v c="$cm" -v w="$wb" 'NR > 1 && $w > 0 {print $c}' "$T/writers.csv" |
		sort -u | tr '\n' ' '
}
