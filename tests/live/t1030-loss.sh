# Events the kernel loses are counted by record, kept in the file, and
# reported: a stopped recorder cannot drain its small buffers.
. "$(dirname "$0")/lib.sh"
need_root

truncate -s 256M "$T/img"
L=$(new_loop "$T/img")
"$BLKMAP" record -b 8 -o "$T/rec.dat" 2>"$T/record.err" &
rec=$!
sleep 1
kill -STOP $rec
dd if=/dev/zero of="$L" bs=4k count=5000 oflag=direct 2>/dev/null
kill -CONT $rec
sleep 0.5
kill -INT $rec
wait $rec || fail "record exited $?"
cat "$T/record.err"
assert_clean
lost=$(sed -n 's/.*; lost \([0-9]*\) (.*/\1/p' "$T/record.err")
[ "${lost:-0}" -gt 0 ] || fail "record counted no loss"

"$BLKMAP" report "$T/rec.dat" 2>"$T/report.err" >/dev/null || fail "report failed"
cat "$T/report.err"
# The report's per-CPU figures add up to what record counted.
sum=$(sed -n 's/.*lost \(at least \)\{0,1\}\([0-9]*\) events on CPU.*/\2/p' "$T/report.err" |
	awk '{s += $1} END {print s + 0}')
[ "$sum" -eq "$lost" ] || fail "report says $sum events lost, record said $lost"

# The map marks what the gaps may have affected: the loop device, at least.
"$BLKMAP" report --map -f csv "$T/rec.dat" 2>/dev/null >"$T/map.csv"
awk -F, -v d="$(devnum "$L")" 'NR > 1 && $1 == d && $15 == "true" {found = 1} END {exit !found}' \
	"$T/map.csv" || fail "the map does not mark $(devnum "$L") as affected by the loss"
grep -q "events lost on CPU" "$T/report.err" || fail "report names no gap"
