# Recorded fixtures read in every view and format, without privileges; damaged
# files are refused with the offset of the problem, never a crash.
. "$(dirname "$0")/lib.sh"
. "$top/tests/lib/labels.sh"

command -v python3 >/dev/null || fail "python3 is needed to parse CSV and JSON (scripts/install-deps)"
# Every CSV row, quoted fields and all, has the header's number of fields.
csv_rows_agree() {
	python3 -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1], encoding="utf-8", errors="surrogateescape", newline="")))
for n, r in enumerate(rows[1:], 2):
    if len(r) != len(rows[0]):
        sys.exit("row %d has %d fields, the header %d: %r" % (n, len(r), len(rows[0]), r))' "$1"
}

for f in "$top"/tests/data/*.dat; do
	name=$(basename "$f")
	for view in "" --map --disks --latency --top --stack; do
		for format in text csv json; do
			"$BLKMAP" report $view -f $format "$f" >"$T/out" 2>"$T/err" ||
				fail "$name $view $format: exit $? ($(cat "$T/err"))"
			# A recording without stacks has no --stack objects.
			[ -s "$T/out" ] || [ "$view $format" = "--stack json" ] ||
				fail "$name $view $format: empty"
			case $format in
			csv)	csv_rows_agree "$T/out" || fail "$name $view csv: rows and header disagree" ;;
			json)	python3 -c 'import json, sys
for line in sys.stdin.buffer: json.loads(line.decode("utf-8"))' <"$T/out" ||
					fail "$name $view json: not JSON Lines" ;;
			esac
		done
	done
	note "$name: every view, in every format, parses"
done

# A recording made in a guest with the module: each write the scenario logged
# carries its device's name.
"$BLKMAP" report -f csv "$top/tests/data/vm61-module.dat" >"$T/events.csv"
check_writes "$top/tests/data/vm61-module.writes" "$T/events.csv"
"$BLKMAP" report --map -f csv "$top/tests/data/vm61-module.dat" >"$T/map.csv"
check_map "$top/tests/data/vm61-module.writes" "$T/map.csv"
check_exact "$top/tests/data/vm61-module.writes" "$T/map.csv"

# Damaged and hostile files (field offsets past a record, sizes of -1, a v7
# BUFFER at 2^64, decompression bombs, options sections in a loop): refused
# with the offset of the problem, by every view whatever the jobs.
for f in "$top"/tests/data/bad/*.dat; do
	for view in "" --disks --map --latency; do
		for jobs in 1 3; do
			set +e
			"$BLKMAP" report $view -j $jobs "$f" >/dev/null 2>"$T/err"
			status=$?
			set -e
			[ $status -eq 1 ] || fail "$(basename "$f") $view -j $jobs: exit $status, not 1"
			grep -q "offset [1-9][0-9]*:" "$T/err" ||
				fail "$(basename "$f") $view: no offset in '$(cat "$T/err")'"
		done
	done
	note "$(basename "$f"): $(cat "$T/err")"
done

# Inputs the fuzzer once crashed report with: now they read, or are refused.
for f in "$top"/tests/data/fuzz/*.dat; do
	set +e
	"$BLKMAP" report --disks "$f" >/dev/null 2>"$T/err"
	status=$?
	set -e
	[ $status -le 1 ] || fail "$(basename "$f"): exit $status"
	note "$(basename "$f"): exit $status"
done
# An ftrace:print whose format puts its text past the end of the record:
# libtraceevent would print it with a length of minus 34 (a 4 GiB malloc).
"$BLKMAP" report -f json "$top/tests/data/fuzz/print-buf-past-record.dat" >"$T/out" 2>/dev/null ||
	fail "print-buf-past-record.dat: report failed"
grep -q '"details":"(record shorter than its format says)"' "$T/out" ||
	fail "print-buf-past-record.dat: a record its format overruns is printed as if whole"
note "print-buf-past-record.dat: the overrun record is shown as such"
