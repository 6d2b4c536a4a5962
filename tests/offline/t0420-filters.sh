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

# What cannot mean a time.
for bad in nan inf -1 0x10 1e3 1.2.3 "" +-1 2.5m; do
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
refused 64 "one --disk at a time" --disk loop0 --disk loop1
refused 64 "one --dev at a time" --dev 7:0 --dev 7:1
note "times, windows and device numbers that mean nothing are refused with the span or the form"

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
