#!/bin/sh
# A damaged ring-buffer page costs its own events, not the file's: the
# report lists every other event, names the page's offset and CPU, and
# marks the incarnations the gap may touch. A recording read from standard
# input ("-"), a pipe or a FIFO reads as the file does, and leaves no copy
# behind.
. "$(dirname "$0")/lib.sh"

command -v trace-cmd >/dev/null || fail "trace-cmd is needed to find a CPU's pages (scripts/install-deps)"
f=$top/tests/data/vm61-module.dat
# CPU 1's pages, as trace-cmd sees the file: damage its second page's commit.
cpu1=$(trace-cmd dump --flyrecord "$f" 2>/dev/null | awk '/size of cpu 1/ {print $1}')
page=$((cpu1 + 4096))
[ -n "$cpu1" ] || fail "trace-cmd names no pages of CPU 1 in $f"
cp "$f" "$T/damaged.dat"
printf '\377\377\377\000\000\000\000\000' | dd of="$T/damaged.dat" bs=1 seek=$((page + 8)) conv=notrunc 2>/dev/null

# Events by time, CPU, pid, event, device, RWBS, sector and size.
events() { cut -d, -f1-3,5,6,8-10; }
"$BLKMAP" report -f csv "$f" | events >"$T/whole"
"$BLKMAP" report -f csv "$T/damaged.dat" 2>"$T/err" | events >"$T/damaged" ||
	fail "exit $? on a damaged page: $(cat "$T/err")"
grep -q "offset $page: damaged ring-buffer page of CPU 1 (commit size exceeds the page): its events are left out, between" \
	"$T/err" || fail "no warning naming the page at $page: '$(cat "$T/err")'"
[ "$(wc -l <"$T/damaged")" -lt "$(wc -l <"$T/whole")" ] || fail "no event was left out"
# Every event listed is the file's, in order; every one left out is CPU 1's.
awk -F, 'NR == FNR {want[++n] = $0; next}
	{while (i < n && want[++i] != $0) if (want[i] ~ /^[0-9]/ && want[i] !~ /^[0-9]*,1,/) {print "lost " want[i]; exit}
	 if (want[i] != $0) {print "new " $0; exit}}' "$T/whole" "$T/damaged" >"$T/wrong"
[ ! -s "$T/wrong" ] || fail "damaged page: $(cat "$T/wrong")"
note "$(($(wc -l <"$T/whole") - $(wc -l <"$T/damaged"))) of $(wc -l <"$T/whole") events left out: $(cat "$T/err")"
# The other views read it too; --disks marks what the gap may touch.
for view in --map --disks --latency --top --stack; do
	"$BLKMAP" report $view -f csv "$T/damaged.dat" >"$T/view" 2>"$T/err" ||
		fail "$view: exit $?: $(cat "$T/err")"
done
"$BLKMAP" report --disks -f csv "$T/damaged.dat" 2>/dev/null >"$T/disks.csv"
el=$(head -n 1 "$T/disks.csv" | tr ',' '\n' | grep -nx events_lost | cut -d: -f1)
awk -F, -v e="$el" 'NR > 1 && $e == "true" {found = 1} END {exit !found}' "$T/disks.csv" ||
	fail "--disks marks no incarnation as touched by the gap"

# Standard input, a pipe, a FIFO: as the file reads, and no copy left in TMPDIR.
mkdir "$T/tmp"
export TMPDIR=$T/tmp
"$BLKMAP" report --disks "$f" >"$T/want"
"$BLKMAP" report --disks - <"$f" >"$T/got" || fail "report - <FILE: exit $?"
cmp -s "$T/want" "$T/got" || fail "report - <FILE is not report FILE"
cat "$f" | "$BLKMAP" report --disks - >"$T/got" || fail "a pipe: exit $?"
cmp -s "$T/want" "$T/got" || fail "report - from a pipe is not report FILE"
mkfifo "$T/fifo"
cat "$f" >"$T/fifo" &
"$BLKMAP" report --disks "$T/fifo" >"$T/got" || fail "a FIFO: exit $?"
wait
cmp -s "$T/want" "$T/got" || fail "report FIFO is not report FILE"
set +e
"$BLKMAP" report - </dev/null >/dev/null 2>"$T/err"
status=$?
set -e
[ $status -eq 1 ] || fail "an empty standard input: exit $status"
grep -q "not a trace file" "$T/err" || fail "an empty standard input: '$(cat "$T/err")'"
[ -z "$(ls -A "$T/tmp")" ] || fail "left in TMPDIR: $(ls -A "$T/tmp")"
note "standard input, a pipe and a FIFO read as the file; nothing left in TMPDIR"
