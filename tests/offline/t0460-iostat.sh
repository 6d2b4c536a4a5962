# --disks speaks iostat's words: r/s, w/s, rkB/s, wkB/s, r_await and w_await
# (Q2C, ms), D2C per operation beside them, areq-sz, aqu-sz, %util, f/s and
# f_await, the text with units in its header, CSV and JSON with blkmap top's
# key names; the awaits, D2C, flushes and rates agree with the events
# listing; --sort orders the rows as top's does.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || fail "python3 is missing (scripts/install-deps installs it)"

compared=0
for rec in "$top"/tests/data/*.dat; do
	"$BLKMAP" report -f csv "$rec" >"$T/events.csv" 2>/dev/null
	"$BLKMAP" report --disks -f csv "$rec" >"$T/disks.csv" 2>/dev/null
	rc=0
	python3 "$top/tests/lib/iostat_check.py" "$T/events.csv" "$T/disks.csv" >"$T/check.out" || rc=$?
	[ $rc -eq 77 ] && continue
	[ $rc -eq 0 ] || { cat "$T/check.out"; fail "$(basename "$rec"): --disks against its events"; }
	compared=$((compared + 1))
	note "$(basename "$rec"): $(grep -c '^#' "$T/check.out") figures as the events give them"
done
[ $compared -ge 3 ] || fail "premise missing: only $compared recordings with latencies to compare"

rec=$top/tests/data/host-hotplug.dat
# Text: iostat's columns, units in the header; no merges recorded: "-".
"$BLKMAP" report --disks "$rec" 2>/dev/null >"$T/disks.txt"
for col in r/s w/s rkB/s wkB/s rrqm/s wrqm/s r_await_ms w_await_ms r_d2c_ms w_d2c_ms areq-kB \
	aqu-sz depth %util f/s f_await_ms; do
	head -1 "$T/disks.txt" | tr -s ' ' '\n' | grep -qxF -- "$col" ||
		fail "--disks text has no $col column: $(head -1 "$T/disks.txt")"
done
head -1 "$T/disks.txt" | grep -q 'LAT' && fail "--disks text still has a LAT column of either kind"
awk 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "rrqm/s") c = i} NR > 1 && !NF {exit}
	NR > 1 && (!c || $c != "-") {exit 1}' "$T/disks.txt" ||
	fail "--disks text gives merges the recording does not hold"

# CSV and JSON: blkmap top's names (its interval view's keys), the old ones gone.
"$BLKMAP" report --schema=interval >"$T/interval.schema" 2>/dev/null
"$BLKMAP" report --disks -f csv "$rec" 2>/dev/null >"$T/disks.csv"
"$BLKMAP" report --disks -f json "$rec" 2>/dev/null >"$T/disks.json"
for key in r_s w_s rkb_s wkb_s rrqm_s wrqm_s r_await_ms w_await_ms r_d2c_ms w_d2c_ms areq_kb \
	aqu_sz queue_depth util_pct flushes f_s f_await_ms busy_ns queue_ns; do
	head -1 "$T/disks.csv" | tr ',' '\n' | grep -qxF "$key" || fail "--disks CSV has no $key"
	grep -q "\"key\":\"$key\"" "$T/interval.schema" || fail "top's interval view has no $key"
	grep -q "\"$key\":" "$T/disks.json" || fail "--disks JSON has no $key"
done
for key in read_iops write_iops read_bytes_per_s write_bytes_per_s avg_request_bytes; do
	head -1 "$T/disks.csv" | tr ',' '\n' | grep -qxF "$key" && fail "--disks CSV still has $key"
done
grep -q '"rrqm_s":null' "$T/disks.json" || fail "--disks JSON gives merges it cannot know"
note "--disks: iostat's columns in text, top's keys in CSV and JSON"

# --sort, as top's: the most first, or by name.
rec=$top/tests/data/vm61-module.dat
for key in iops bytes util; do
	"$BLKMAP" report --disks --sort=$key -f csv "$rec" 2>/dev/null >"$T/sorted.csv"
	python3 - "$T/sorted.csv" "$key" <<'PY' || fail "--disks --sort=$key: rows out of order"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
value = {"iops": lambda r: float(r["r_s"]) + float(r["w_s"]),
         "bytes": lambda r: float(r["rkb_s"]) + float(r["wkb_s"]),
         "util": lambda r: float(r["util_pct"])}[sys.argv[2]]
v = [value(r) for r in rows]
assert len(v) > 3 and len(set(v)) > 1, v
sys.exit(0 if all(a >= b for a, b in zip(v, v[1:])) else 1)
PY
done
"$BLKMAP" report --disks --sort=name "$rec" 2>/dev/null | awk 'NR > 1 && !NF {exit} NR > 1 {print $1}' \
	>"$T/names"
[ "$(wc -l <"$T/names")" -gt 3 ] || fail "premise missing: --disks has $(wc -l <"$T/names") rows"
sort -c "$T/names" || fail "--disks --sort=name: $(tr '\n' ' ' <"$T/names")"
if "$BLKMAP" report --disks --sort=size "$rec" >/dev/null 2>"$T/err"; then
	fail "--sort=size was taken"
fi
grep -q "dev, name, iops, bytes, util or latency" "$T/err" || fail "--sort=size said: $(cat "$T/err")"
for key in iops dev; do	# dev: the default, given all the same
	rc=0; "$BLKMAP" report --map --sort=$key "$rec" >/dev/null 2>"$T/err" || rc=$?
	[ $rc -eq 64 ] || fail "--sort=$key with --map: exit $rc, $(cat "$T/err")"
done
note "--sort orders --disks as top's"
