# The wall clock read beside the trace clock at the start of a recording:
# --time=wall prints each event at the time `date` saw it happen, in ISO 8601,
# and a time so printed, pasted into --since, starts the listing there.
. "$(dirname "$0")/lib.sh"
need_root
export TZ=Europe/Paris	# an offset other than Z, to read back

truncate -s 16M "$T/img"
L=$(new_loop "$T/img")
DEV=$(devnum "$L")
"$BLKMAP" record -o "$T/rec.dat" -- sh -c "date +%s%N >'$T/before'; dd if=/dev/zero of='$L' \
	bs=4k count=4 oflag=direct 2>/dev/null; date +%s%N >'$T/after'" 2>"$T/record.err" ||
	{ cat "$T/record.err"; fail "record exited $?"; }
assert_clean

"$BLKMAP" report -q --time=wall "$T/rec.dat" >"$T/wall.txt" || fail "--time=wall: exit $?"
first=$(awk -v d="$DEV" '$4 == "block_rq_issue" && $5 == d {print $1; exit}' "$T/wall.txt")
last=$(awk -v d="$DEV" '$4 == "block_rq_complete" && $5 == d {t = $1} END {print t}' "$T/wall.txt")
[ -n "$first" ] && [ -n "$last" ] || fail "no I/O on $DEV in: $(head -5 "$T/wall.txt")"
case $first in
????-??-??T??:??:??.?????????+0[12]:00) ;;
*) fail "a wall-clock time is not ISO 8601 with ns and the offset: $first" ;;
esac
b=$(cat "$T/before") a=$(cat "$T/after")
f=$(date -d "$first" +%s%N) l=$(date -d "$last" +%s%N)
note "date: $b to $a; the I/O by --time=wall: $f to $l"
# The two clocks are read within microseconds: allow 2 ms for the reading of date itself.
[ "$f" -ge $((b - 2000000)) ] && [ "$l" -le $((a + 2000000)) ] && [ "$f" -le "$l" ] ||
	fail "the I/O is placed at $first..$last, not between date's $b and $a"

# Pasted back: --since takes it, in this zone's offset, in UTC, and as the listing prints.
"$BLKMAP" report -q --time=wall --since "$first" "$T/rec.dat" | head -n 1 | awk '{print $1}' >"$T/got"
[ "$(cat "$T/got")" = "$first" ] || fail "--since $first starts at $(cat "$T/got")"
utc=$(TZ=UTC date -d "$first" +%Y-%m-%dT%H:%M:%S.%NZ)
"$BLKMAP" report -q --time=wall --since "$utc" "$T/rec.dat" | head -n 1 | awk '{print $1}' >"$T/got"
[ "$(cat "$T/got")" = "$first" ] || fail "--since $utc starts at $(cat "$T/got"), not $first"
# CSV keeps the trace clock's nanoseconds, whatever --time says.
"$BLKMAP" report -q -f csv "$T/rec.dat" >"$T/a.csv"
"$BLKMAP" report -q -f csv --time=wall "$T/rec.dat" | cmp -s - "$T/a.csv" || fail "--time=wall changed the CSV"
note "--time=wall: the I/O within date's readings around it; $first pasted back selects it"
