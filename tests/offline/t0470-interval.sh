# report --interval: the recording interval by interval (sar -d -f). On every
# recording in tests/data, at three widths, the rows add up to --disks per
# incarnation: counts and bytes exactly, busy time and time in queue to
# what printing rounds off; text, CSV and JSON hold the same rows; a
# width that is not one, or that cuts the recording too fine, is refused.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || fail "python3 is missing (scripts/install-deps installs it)"

with_io=0
for rec in "$top"/tests/data/*.dat "$top"/tests/data/v7/*.dat "$top"/tests/data/real/*.dat; do
	name=${rec#"$top"/tests/data/}
	"$BLKMAP" report --disks -f csv "$rec" >"$T/disks.csv" 2>/dev/null ||
		fail "$name: report --disks failed"
	[ "$(wc -l <"$T/disks.csv")" -gt 1 ] && with_io=$((with_io + 1))
	for width in 1ms:1000000 37ms:37000000 1s:1000000000; do
		"$BLKMAP" report --interval="${width%:*}" -f csv "$rec" >"$T/series.csv" 2>"$T/err" ||
			fail "$name: report --interval=${width%:*} failed: $(cat "$T/err")"
		python3 "$top/tests/lib/interval_sums.py" "$T/disks.csv" "$T/series.csv" \
			"${width#*:}" >"$T/sums.out" ||
			{ cat "$T/sums.out"; fail "$name: --interval=${width%:*} does not add up to --disks"; }
	done
	note "$name: $(grep -c '^#' "$T/sums.out") incarnations, their intervals add up to --disks"
done
[ $with_io -ge 4 ] || fail "premise missing: only $with_io recordings with I/O"

# Text, CSV and JSON: the same rows; the text's header says its units.
rec=$top/tests/data/host-hotplug.dat
"$BLKMAP" report --interval=50ms "$rec" >"$T/series.txt" 2>/dev/null
"$BLKMAP" report --interval=50ms -f csv "$rec" >"$T/series.csv" 2>/dev/null
"$BLKMAP" report --interval=50ms -f json "$rec" >"$T/series.json" 2>/dev/null
rows=$(($(wc -l <"$T/series.csv") - 1))
[ "$rows" -gt 10 ] || fail "premise missing: $rows rows at 50 ms"
[ "$(($(wc -l <"$T/series.txt") - 1))" -eq "$rows" ] || fail "text and CSV rows differ"
[ "$(wc -l <"$T/series.json")" -eq "$rows" ] || fail "JSON and CSV rows differ"
python3 - "$T/series.csv" "$T/series.json" <<'PY' || fail "CSV and JSON disagree"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
objs = [json.loads(line) for line in open(sys.argv[2])]
for r, o in zip(rows, objs):
    assert list(r) == list(o), (list(r), list(o))
    for k in ("incarnation", "time_ns", "reads", "writes", "write_bytes"):
        assert str(o[k]) == r[k], (k, o[k], r[k])
PY
for col in TIME_END NAME DEV#N r/s w/s rkB/s wkB/s r_await_ms w_await_ms aqu-sz %util; do
	head -1 "$T/series.txt" | tr -s ' ' '\n' | grep -qxF -- "$col" ||
		fail "--interval text has no $col: $(head -1 "$T/series.txt")"
done
# One convention, sar's: text and CSV label a row with its interval's end.
awk -F, 'NR > 1 {printf "%d.%09d\n", $1 / 1e9, $1 % 1000000000}' "$T/series.csv" >"$T/csv.times"
awk 'NR > 1 {print $1}' "$T/series.txt" >"$T/txt.times"
cmp -s "$T/csv.times" "$T/txt.times" ||
	fail "--interval's text and CSV label rows differently: $(paste "$T/txt.times" "$T/csv.times" | head -3)"
# The two zram1 incarnations are two rows, each in the intervals of its own life.
n=$(awk -F, 'NR > 1 && $3 == "zram1"' "$T/series.csv" | cut -d, -f1 | sort -u | wc -l)
incs=$(grep -o '"incarnation":"253:1#[0-9]*"' "$T/series.json" | sort -u | wc -l)
[ "$incs" -eq 2 ] || fail "--interval shows $incs incarnations of zram1, 2 lived"
note "--interval=50ms: $rows rows, the same in text, CSV and JSON; zram1 in $n intervals"

# Widths that are not one.
for bad in 0 0s -1s 1x "" +1s nan; do
	rc=0; "$BLKMAP" report --interval="$bad" "$rec" >/dev/null 2>"$T/err" || rc=$?
	[ $rc -eq 64 ] || fail "--interval='$bad': exit $rc"
	grep -q "interval takes a duration" "$T/err" || fail "--interval='$bad' said: $(cat "$T/err")"
done
rc=0; "$BLKMAP" report --interval=1ns "$rec" >"$T/out" 2>"$T/err" || rc=$?
[ $rc -eq 1 ] || fail "--interval=1ns: exit $rc"
grep -q "more than 100000" "$T/err" || fail "--interval=1ns said: $(cat "$T/err")"
[ ! -s "$T/out" ] || fail "--interval=1ns printed rows"
note "widths that are none, or too fine, refused"

# A window that is a whole number of intervals long still includes --until:
# its last interval is [until, until + 1 ns), one nanosecond long, and a
# rate over no time at all is unknown (null), never 0.
since=775883707388 until=775918515728
"$BLKMAP" report --since=${since}ns --until=${until}ns --interval=$((until - since))ns \
	-f json "$rec" >"$T/exact.json" 2>"$T/err" || fail "exact window: $(cat "$T/err")"
python3 - "$T/exact.json" "$until" <<'PY' || fail "the last interval of an exact window is wrong"
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
until = int(sys.argv[2])
last = [r for r in rows if r["window_to_ns"] > until or r["time_ns"] >= until]
assert last, "premise missing: no row in the last interval"
assert any(r["reads"] + r["writes"] for r in last), "premise missing: no I/O at --until"
for r in rows:
    assert r["window_to_ns"] > r["window_from_ns"], ("interval of 0 ns", r)
    assert r["time_ns"] <= until + 1, r
    if r["writes"]:
        assert r["w_s"] is not None and r["w_s"] > 0, ("writes at a rate of 0", r)
PY
note "an exact window's last interval is 1 ns long, and holds its I/O at a rate"
