#!/bin/sh
# A recording cut short (a full disk, a copy interrupted) reads as far as it
# goes: every whole page there is, a warning naming the CPU, the bytes lost
# and the time from which its events are missing, the incarnations alive
# from then on marked (events_lost), exit 0.
. "$(dirname "$0")/lib.sh"

f=$top/tests/data/host-names.dat
head -c -529 "$f" >"$T/cut.dat"
events() { cut -d, -f1-3,5,6,8-10; }
"$BLKMAP" report -f csv "$f" | events >"$T/whole"
"$BLKMAP" report -f csv "$T/cut.dat" 2>"$T/err" | events >"$T/cut" ||
	fail "exit $? on a file missing its last 529 bytes: $(cat "$T/err")"
whole=$(($(wc -l <"$T/whole") - 1))
cut=$(($(wc -l <"$T/cut") - 1))
[ $((cut * 10)) -ge $((whole * 9)) ] || fail "a file missing 529 bytes lists $cut of $whole events"
# Every event listed is the whole file's, in its order.
awk 'NR == FNR {want[++n] = $0; next}
	{while (i < n && want[++i] != $0) ; if (want[i] != $0) {print "new " $0; exit}}' \
	"$T/whole" "$T/cut" >"$T/wrong"
[ ! -s "$T/wrong" ] || fail "cut file: $(cat "$T/wrong")"
grep -Eq "cut short: CPU [0-9]+ lacks [0-9]+ bytes of its pages; its events after [0-9.]+ are missing" \
	"$T/err" || fail "no warning saying what was cut: '$(cat "$T/err")'"
cpu=$(sed -n 's/.*cut short: CPU \([0-9]*\) lacks.*/\1/p' "$T/err")
from=$(sed -n 's/.*its events after \([0-9.]*\) are missing.*/\1/p' "$T/err")
# The time named is that CPU's last event in the pages kept.
last=$(awk -F, -v c="$cpu" '$2 == c {t = $1} END {printf "%d.%s", substr(t, 1, length(t) - 9), substr(t, length(t) - 8)}' "$T/cut")
[ "$from" = "$last" ] || fail "the cut is said to be at $from; CPU $cpu's last event kept is at $last"
note "$cut of $whole events listed: $(cat "$T/err")"
# Every view reads it, and --disks marks what was alive after the cut.
for view in --map --disks --latency --top --stack --phases "--interval 1s"; do
	"$BLKMAP" report $view -f csv "$T/cut.dat" >"$T/view" 2>"$T/err" ||
		fail "$view: exit $?: $(cat "$T/err")"
	grep -q "cut short" "$T/err" || fail "$view says nothing of the cut: '$(cat "$T/err")'"
done
"$BLKMAP" report --disks -f csv "$T/cut.dat" 2>/dev/null >"$T/disks.csv"
el=$(head -n 1 "$T/disks.csv" | tr ',' '\n' | grep -nx events_lost | cut -d: -f1)
awk -F, -v e="$el" 'NR > 1 && $e == "true" {found = 1} END {exit !found}' "$T/disks.csv" ||
	fail "--disks marks no incarnation as partial after the cut"
# --interval marks the intervals from the cut on, not those before it.
"$BLKMAP" report --interval 100ms -f csv "$T/cut.dat" 2>/dev/null >"$T/series.csv"
python3 - "$T/series.csv" "$cpu" "$(echo "$from" | tr -d .)" <<'PY' || fail "--interval's events_lost after the cut"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cut = int(sys.argv[3])
after = [r for r in rows if int(r["time_ns"]) > cut]
assert after and all(r["events_lost"] == "true" for r in after), [r["time_ns"] for r in after]
early = [r for r in rows if int(r["time_ns"]) < cut]
assert early and all(r["events_lost"] == "false" for r in early), "intervals before the cut marked"
PY
# Cut inside the page header section: still refused, with the reason.
head -c 2000 "$f" >"$T/head.dat"
set +e
"$BLKMAP" report "$T/head.dat" >/dev/null 2>"$T/err"
status=$?
set -e
[ $status -eq 1 ] || fail "a file cut in its headers: exit $status"
