# A flight recording's I/O is whole from its window's start (window-begin,
# blkmap.dat(5)) on, while its map reaches back to the recording's start.
# --since before the window is clipped to it, with a note; a window that
# ends before it is refused, as one outside the recording is: before the
# window some CPU's events were let go, so figures there would be invented
# (a busy disk with no I/O, a depth of thousands).
. "$(dirname "$0")/lib.sh"

f=$top/tests/data/ring/host-ring.dat
"$BLKMAP" report -f csv "$f" >"$T/events.csv"
from=$(awk -F, '$0 ~ /blkmap:window-begin/ {print $1; exit}' "$T/events.csv")
[ -n "$from" ] || fail "premise: no window-begin marker in $f"
before=$((from - 1000))

# A window wholly before: refused, naming the window's start.
set +e
"$BLKMAP" report --disks --until=${before}ns "$f" >"$T/out" 2>"$T/err"
status=$?
set -e
[ $status -eq 1 ] || fail "--until before the window: exit $status, printed $(cat "$T/out")"
grep -q "before the I/O of .* begins" "$T/err" || fail "--until before the window: '$(cat "$T/err")'"
[ ! -s "$T/out" ] || fail "--until before the window printed figures: $(cat "$T/out")"
# The map is whole from the start: --map still answers there.
"$BLKMAP" report --map --until=${before}ns "$f" >/dev/null 2>"$T/err" ||
	fail "--map --until before the window: exit $?: $(cat "$T/err")"

# --since before the window: clipped, said, and the figures are the window's.
"$BLKMAP" report --disks -f csv "$f" >"$T/want" 2>/dev/null
for view in --disks "--interval 1s" --top; do
	"$BLKMAP" report $view -f csv --since=+0 "$f" >"$T/got" 2>"$T/err" ||
		fail "$view --since before the window: exit $?: $(cat "$T/err")"
	grep -q "lies before the I/O .* holds whole" "$T/err" ||
		fail "$view --since before the window: no note: '$(cat "$T/err")'"
done
"$BLKMAP" report --disks -f csv --since=+0 "$f" >"$T/got" 2>/dev/null
cmp -s "$T/want" "$T/got" || fail "--since before the window changes --disks: $(diff "$T/want" "$T/got")"
# No --since: no note; the window is where figures start, as always.
"$BLKMAP" report --disks "$f" >/dev/null 2>"$T/err"
! grep -q "lies before" "$T/err" || fail "a note with no --since: $(cat "$T/err")"
note "--since before the window clipped with a note; a window before it refused"
