#!/bin/sh
# --since/--until take the times the report prints (seconds or nanoseconds
# of the trace clock) and times from the recording's start; filters that
# cannot mean anything are refused, never read as "everything" or "nothing";
# --plot never replaces what is not a plot.
. "$(dirname "$0")/lib.sh"
rec=$top/tests/data/vm61-module.dat

# refused EXIT PATTERN ARGS...: the report exits EXIT and says PATTERN.
refused() {
	want=$1 pattern=$2
	shift 2
	set +e
	"$BLKMAP" report "$@" "$rec" >"$T/out" 2>"$T/err"
	status=$?
	set -e
	[ $status -eq "$want" ] || fail "$*: exit $status, not $want ($(cat "$T/err"))"
	[ ! -s "$T/out" ] || fail "$*: printed $(wc -l <"$T/out") lines"
	grep -q -- "$pattern" "$T/err" || fail "$*: said '$(cat "$T/err")'"
}

# A time pasted from the text listing starts the listing there.
"$BLKMAP" report "$rec" >"$T/all"
t=$(awk 'NR == 40 {print $1}' "$T/all")
"$BLKMAP" report --since "$t" "$rec" | head -n 1 | awk '{print $1}' >"$T/first"
[ "$(cat "$T/first")" = "$t" ] || fail "--since $t (pasted) starts at $(cat "$T/first")"
# And one from CSV's ts_ns.
ns=$("$BLKMAP" report -f csv "$rec" | awk -F, 'NR == 41 {print $1}')
"$BLKMAP" report -f csv --since "${ns}ns" --until "${ns}ns" "$rec" | awk -F, 'NR > 1 {print $1}' | sort -u >"$T/got"
[ "$(cat "$T/got")" = "$ns" ] || fail "--since/--until ${ns}ns gave $(tr '\n' ' ' <"$T/got")"
# Offsets from the start: +S, Ss, Nms, Nus, all the same instant.
first=$("$BLKMAP" report -f csv "$rec" | awk -F, 'NR == 2 {print $1}')
for off in +0.25 0.25s 250ms 250000us; do
	"$BLKMAP" report -f csv --since "$off" "$rec" | awk -F, 'NR == 2 {print $1}' >"$T/got"
	"$BLKMAP" report -f csv --since "$((first + 250000000))ns" "$rec" | awk -F, 'NR == 2 {print $1}' >"$T/want"
	cmp -s "$T/got" "$T/want" || fail "--since $off: $(cat "$T/got"), not $(cat "$T/want")"
done
note "pasted seconds and nanoseconds, and +S, Ss, ms, us offsets, select what they say"

# --time=rel prints seconds from the start, which --since takes back as printed;
# the views' times follow it; a recording without a wall clock refuses --time=wall.
"$BLKMAP" report --time=rel "$rec" 2>/dev/null >"$T/rel"
[ "$(awk 'NR == 1 {print $1}' "$T/rel")" = "+0.000000000" ] || fail "--time=rel starts at $(head -c 40 "$T/rel")"
t=$(awk 'NR == 40 {print $1}' "$T/rel")
"$BLKMAP" report --time=rel --since "$t" "$rec" 2>/dev/null | head -n 1 | awk '{print $1}' >"$T/first"
[ "$(cat "$T/first")" = "$t" ] || fail "--since $t (pasted from --time=rel) starts at $(cat "$T/first")"
"$BLKMAP" report --disks --time=rel "$rec" 2>/dev/null | grep -q '^zram1 .* +0\.[0-9]\{9\} *+0\.[0-9]\{9\}$' ||
	fail "--disks --time=rel does not print zram1's times from the start"
refused 1 "holds no wall-clock time .*use --time=abs or --time=rel" --time=wall
refused 1 "holds no wall-clock time" --since 2026-12-01T21:00:00Z
refused 64 "time takes abs, rel or wall" --time=utc
# Wall-clock times exactly as --time=wall prints them: two digits, no signs or spaces.
for bad in +-1:00 "+ 1:00" +1:00 -01:0 +0100 +01:00x; do
	refused 64 "takes a time of the trace clock" --since "2026-12-01T21:00:00$bad"
done
refused 1 "holds no wall-clock time" --since 2026-12-01T21:00:00-01:00
note "--time=rel printed and pasted back; --time=wall refused without a wall clock"

# --time=rel prints -S.N before the start; --since and --until read it back.
"$BLKMAP" report -f csv --since -0.5 --until +0.25 "$rec" >"$T/got" 2>"$T/err" ||
	fail "--since -0.5: $(cat "$T/err")"
"$BLKMAP" report -f csv --until +0.25 "$rec" >"$T/want"
cmp -s "$T/got" "$T/want" || fail "--since -0.5 (before the start) is not the start"
refused 1 "it lies outside the recording" --until -0.000000001
refused 1 "it lies outside the recording" --until -1ms
note "-S.N times (before the start, as --time=rel prints) are read back"

# What cannot mean a time.
for bad in nan inf --1 -+1 - 0x10 1e3 1.2.3 "" +-1 2.5m; do
	refused 64 "takes a time of the trace clock" --since "$bad"
done
# Windows that hold nothing of the recording: the recording's span is named.
refused 1 "it ends before it starts; the recording runs from" --since +0.5 --until +0.1
refused 1 "it lies outside the recording; the recording runs from" --until 0.5
refused 1 "it lies outside the recording; the recording runs from" --since +1000
refused 1 "it lies outside the recording" --disks --since 99999.5
# Device numbers: out of range (not wrapped), 0:0, junk.
for bad in 4294967303:0 4096:0 7:1048576 0:0 7: :1 7:1x " 7:1"; do
	refused 64 "takes a block device's MAJ:MIN" --dev "$bad"
done
# Filters that exclude each other, or that would replace one another.
refused 1 "was both 'loop0' and 7:1" --disks --disk loop0 --dev 7:1
refused 1 "no disk or partition was named 'nosuch'" --disk loop0 --disk nosuch
refused 1 "no disk or partition had device number 9:9" --dev 7:0 --dev 9:9
note "times, windows and device numbers that mean nothing are refused with the span or the form"

# A repeated --disk or --dev: the union, in every view.
"$BLKMAP" report --disks -f csv "$rec" 2>/dev/null >"$T/all.csv"
# union ARGS AWK_CONDITION: --disks and the listing with ARGS keep what the condition says.
union() {
	args=$1 cond=$2
	# shellcheck disable=SC2086
	"$BLKMAP" report --disks -f csv $args "$rec" 2>/dev/null >"$T/union.csv" ||
		fail "--disks $args: exit $?"
	awk -F, "NR == 1 || ($cond)" "$T/all.csv" >"$T/want.csv"
	cmp -s "$T/union.csv" "$T/want.csv" ||
		fail "--disks $args: $(cut -d, -f1,2 "$T/union.csv" | tr '\n' ' ')"
}
union "--disk zram1 --disk alpha" '$1 == "zram1" || $1 == "alpha"'
union "--dev 253:1 --dev 254:0" '$2 == "253:1" || $2 == "254:0"'
[ "$(awk -F, 'NR > 1' "$T/union.csv" | wc -l)" -eq 4 ] || fail "--dev 253:1 --dev 254:0: not 4 rows"
n=$("$BLKMAP" report -f csv --disk zram1 --disk alpha "$rec" 2>/dev/null |
	awk -F, 'NR > 1 && $7 != "zram1" && $7 != "alpha" && $14 != "zram1" && $14 != "alpha"' | wc -l)
[ "$n" -eq 0 ] || fail "the listing with --disk zram1 --disk alpha has $n events of other devices"
note "a repeated --disk or --dev keeps each"

# --pid, --comm and --op: the listing's events of those processes or operations,
# as the whole listing has them; what matches nothing is refused, naming what
# the recording has; views they cannot filter refuse them.
"$BLKMAP" report -f csv "$rec" 2>/dev/null >"$T/events.csv"
pid=$(awk -F, 'NR > 1 && $4 == "sh" && $5 ~ /^block_/ {print $3; exit}' "$T/events.csv")
[ -n "$pid" ] || fail "vm61-module.dat has no block event of sh"
awk -F, -v p="$pid" 'NR == 1 || $3 == p' "$T/events.csv" >"$T/want"
"$BLKMAP" report -f csv --pid "$pid" "$rec" 2>/dev/null >"$T/got" || fail "--pid $pid: exit $?"
cmp -s "$T/got" "$T/want" || fail "--pid $pid: $(wc -l <"$T/got") lines, not $(wc -l <"$T/want")"
awk -F, 'NR == 1 || $4 == "dd" || $4 == "losetup"' "$T/events.csv" >"$T/want"
"$BLKMAP" report -f csv --comm dd --comm losetup "$rec" 2>/dev/null >"$T/got" ||
	fail "--comm dd --comm losetup: exit $?"
cmp -s "$T/got" "$T/want" || fail "--comm dd --comm losetup: $(wc -l <"$T/got") lines, not $(wc -l <"$T/want")"
awk -F, 'NR == 1 || ($5 ~ /^block_/ && $8 ~ /R/)' "$T/events.csv" >"$T/want"
[ "$(wc -l <"$T/want")" -gt 1 ] || fail "vm61-module.dat has no read"
"$BLKMAP" report -f csv --op read "$rec" 2>/dev/null >"$T/got" || fail "--op read: exit $?"
cmp -s "$T/got" "$T/want" || fail "--op read: $(wc -l <"$T/got") lines, not $(wc -l <"$T/want")"
"$BLKMAP" report -f csv -j1 --op read "$rec" 2>/dev/null | cmp -s - "$T/want" || fail "--op read -j1 differs"
"$BLKMAP" report --top -f csv --comm dd "$rec" 2>/dev/null >"$T/top.csv"
[ "$(awk -F, 'NR > 1 && $4 != "dd"' "$T/top.csv" | wc -l)" -eq 0 ] &&
	[ "$(awk -F, 'NR > 1' "$T/top.csv" | wc -l)" -gt 0 ] || fail "--top --comm dd: $(cat "$T/top.csv")"
set +e
"$BLKMAP" report -f csv --pid 99999 "$rec" >/dev/null 2>"$T/err"; s1=$?
"$BLKMAP" report --op discard "$rec" >/dev/null 2>"$T/err2"; s2=$?
"$BLKMAP" report --disks --comm dd "$rec" >/dev/null 2>"$T/err3"; s3=$?
set -e
[ $s1 -eq 1 ] && grep -q "of the processes --pid and --comm name (its processes: .*dd (" "$T/err" ||
	fail "--pid 99999: exit $s1, '$(cat "$T/err")'"
[ $s2 -eq 1 ] && grep -q "is a discard (its operations there: read, write" "$T/err2" ||
	fail "--op discard: exit $s2, '$(cat "$T/err2")'"
[ $s3 -eq 64 ] && grep -q "not the other views" "$T/err3" ||
	fail "--disks --comm dd: exit $s3, '$(cat "$T/err3")'"
# --top: a process that did no I/O has an empty table, and no error; the
# note names only processes that did I/O.
"$BLKMAP" report --top -f csv "$rec" 2>/dev/null >"$T/top-all.csv"
! awk -F, 'NR > 1 && $3 == 1' "$T/top-all.csv" | grep -q . ||
	fail "premise: pid 1 did I/O in $rec"
"$BLKMAP" report --top --pid 1 "$rec" >"$T/top1" 2>"$T/err" ||
	fail "--top --pid 1 (no I/O): exit $?, '$(cat "$T/err")'"
[ "$(wc -l <"$T/top1")" -eq 1 ] && grep -q "^NAME .*PID" "$T/top1" ||
	fail "--top --pid 1 (no I/O) printed more or less than the empty table: $(cat "$T/top1")"
"$BLKMAP" report --top -f csv --pid 1 "$rec" 2>/dev/null >"$T/top1.csv" || fail "--top -f csv --pid 1: exit $?"
[ "$(wc -l <"$T/top1.csv")" -eq 1 ] || fail "--top -f csv --pid 1: $(cat "$T/top1.csv")"
grep -q "did I/O: " "$T/err" || fail "--top --pid 1: no note of the processes that did I/O: '$(cat "$T/err")'"
for p in $(grep -o '([0-9]*)' "$T/err" | tr -d '()'); do
	awk -F, -v p="$p" 'NR > 1 && $3 == p {found = 1} END {exit !found}' "$T/top-all.csv" ||
		fail "--top --pid 1 names pid $p, which did no I/O: $(cat "$T/err")"
done
refused 64 "op takes read, write, flush or discard" --op trim
refused 64 "pid takes a process id" --pid -1
note "--pid, --comm, --op keep what they name, refuse what matches nothing"

# --plot: the format from the name, in any case; never the recording, nor a
# file that is not a plot; "-" is standard output.
cp "$rec" "$T/copy.dat"
for bad in "$T/copy.dat" "$T/x.png" "$T/x"; do
	set +e
	"$BLKMAP" report --plot="$bad" "$T/copy.dat" >/dev/null 2>"$T/err"
	status=$?
	set -e
	[ $status -eq 1 ] || fail "--plot=$bad: exit $status"
	grep -q "plot writes SVG" "$T/err" || fail "--plot=$bad: '$(cat "$T/err")'"
done
cmp -s "$rec" "$T/copy.dat" || fail "--plot changed the recording"
echo "my notes" >"$T/notes.svg"
set +e
"$BLKMAP" report --plot="$T/notes.svg" "$rec" 2>"$T/err"
status=$?
set -e
[ $status -eq 1 ] && grep -q "is not a plot blkmap wrote" "$T/err" ||
	fail "--plot over a file that is not a plot: exit $status, '$(cat "$T/err")'"
[ "$(cat "$T/notes.svg")" = "my notes" ] || fail "--plot replaced a file that is not a plot"
"$BLKMAP" report --plot="$T/p.SVG" "$rec" 2>/dev/null || fail "--plot=p.SVG: exit $?"
"$BLKMAP" report --plot="$T/p.SVG" "$rec" 2>/dev/null || fail "--plot over its own plot: exit $?"
grep -q "^<svg" "$T/p.SVG" || fail "p.SVG holds no SVG"
"$BLKMAP" report --plot="$T/p.HTML" "$rec" 2>/dev/null && grep -q "^<!DOCTYPE html>" "$T/p.HTML" ||
	fail "--plot=p.HTML is no HTML page"
"$BLKMAP" report --plot=- "$rec" 2>/dev/null | grep -q "^<svg" || fail "--plot=- wrote no SVG out"
[ "$(ls "$T" | grep -c 'XXXXXX\|\.svg\.\|\.SVG\.')" -eq 0 ] || fail "a temporary plot was left: $(ls "$T")"
note "--plot: formats by name in any case; the recording and other files refused; - is standard output"

# --cgroup: the events, --top and --cgroups alone; a cgroup no event was of is an error.
set +e
"$BLKMAP" report --disks --cgroup=/x "$rec" >/dev/null 2>"$T/err"
status=$?
set -e
[ $status -eq 64 ] && grep -q "cgroup filters the events" "$T/err" ||
	fail "--disks --cgroup: exit $status, '$(cat "$T/err")'"
set +e
"$BLKMAP" report --cgroup=/nosuch "$rec" >/dev/null 2>"$T/err"
status=$?
set -e
[ $status -eq 1 ] && grep -q "cgroup /nosuch or below" "$T/err" ||
	fail "--cgroup=/nosuch over a recording of no cgroup: exit $status, '$(cat "$T/err")'"
"$BLKMAP" report --cgroups --cgroup=/nosuch -f csv "$rec" >"$T/cg.csv" 2>/dev/null ||
	fail "--cgroups --cgroup=/nosuch: exit $?"
[ "$(wc -l <"$T/cg.csv")" -eq 1 ] || fail "--cgroups --cgroup=/nosuch kept rows: $(cat "$T/cg.csv")"
note "--cgroup: refused by --disks, an error where no event is of it, no --cgroups row of another"
