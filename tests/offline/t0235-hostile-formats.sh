#!/bin/sh
# Recordings whose print formats read past their records, pad for minutes
# or divide by zero (tests/data/print): every view reads them to their end
# (the suite's timeout bounds how long), the events whose format fails are
# printed by their fields, and one warning per event type names the event
# and why. Before the formats were checked, libtraceevent crashed on them
# (SIGSEGV, SIGFPE) or ran for minutes.
. "$(dirname "$0")/lib.sh"

for f in "$top"/tests/data/print/*.dat; do
	name=$(basename "$f")
	for view in "" --map --disks --top; do
		for format in text json; do
			"$BLKMAP" report $view -f $format "$f" >"$T/out" 2>"$T/err" ||
				fail "$name $view $format: exit $? ($(cat "$T/err"))"
			[ -s "$T/out" ] || fail "$name $view $format: empty"
		done
	done
	# The listing: every event of the untouched recording is there.
	"$BLKMAP" report -f csv "$f" 2>"$T/err" | cut -d, -f1-6 >"$T/got" ||
		fail "$name: exit $?"
	"$BLKMAP" report -f csv "$top/tests/data/vm61-module.dat" | cut -d, -f1-6 >"$T/want"
	cmp -s "$T/want" "$T/got" || fail "$name: the events listed are not the recording's"
	case $name in
	print-*) event=ftrace:print ;;
	dev-*) event=synthetic:blkmap_dev ;;
	esac
	[ "$(grep -c "warning: $event events are printed by their fields alone: their print format is not safe to follow (..*)" "$T/err")" -eq 1 ] ||
		fail "$name: not one warning naming $event and why: '$(cat "$T/err")'"
	"$BLKMAP" report -f json "$f" 2>/dev/null | grep "\"event\":\"${event#*:}\"" >"$T/details"
	[ -s "$T/details" ] || fail "$name: no $event events listed"
	note "$name: $(cat "$T/err")"
done

# Where the format reads past some records only, those are printed by their
# fields, the others by the format.
"$BLKMAP" report -f json "$top/tests/data/print/dev-array-diskseq.dat" 2>/dev/null |
	grep '"event":"blkmap_dev"' >"$T/dev"
grep -q '"details":"op=[0-9]* dev=[0-9]* name=loop0 ' "$T/dev" ||
	fail "dev-array-diskseq.dat: no record printed by its fields: $(head -3 "$T/dev")"
grep -q '"details":""' "$T/dev" ||
	fail "dev-array-diskseq.dat: no record (diskseq 0) printed by its format: $(head -3 "$T/dev")"
