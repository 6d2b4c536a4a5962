# A triggered snapshot's log line names the slow I/O it was written for (its
# device, sector, latency and completion), and report SNAPSHOT --slowest=1
# on that device lists that very I/O: the write the test made, whose
# block_rq_issue and block_rq_complete in the snapshot give the latency.
. "$(dirname "$0")/lib.sh"
need_root
SECTOR=6216	# block 777 of 4 KiB

truncate -s 16M "$T/img"
L=$(new_loop "$T/img")
LDEV=$(devnum "$L")
"$BLKMAP" record --ring=8M -o "$T/ring.dat" --post=0.2 \
	--snapshot-on="latency>1us,disk=$(basename "$L")" 2>"$T/record.err" &
rec=$!
wait_line "$T/record.err" "recording into"
dd if=/dev/zero of="$L" bs=4k seek=777 count=1 oflag=direct 2>/dev/null
wait_line "$T/record.err" "of the slow I/O"
kill -INT $rec
wait $rec || fail "record exited $?: $(cat "$T/record.err")"
line=$(grep "of the slow I/O" "$T/record.err")
note "$line"
snap=$(echo "$line" | sed -n 's/.*snapshot \([^ ]*\) (.*/\1/p')
dev=$(echo "$line" | sed -n 's/.*slow I\/O: \([0-9]*:[0-9]*\) sector.*/\1/p')
sector=$(echo "$line" | sed -n 's/.* sector \([0-9]*\),.*/\1/p')
ts=$(echo "$line" | sed -n 's/.*completed at ts_ns \([0-9]*\) .*/\1/p')
[ -f "$snap" ] || fail "the line names no snapshot file: $line"
[ "$dev" = "$LDEV" ] && [ "$sector" = "$SECTOR" ] ||
	fail "the line names $dev sector $sector, not the write ($LDEV sector $SECTOR): $line"
"$BLKMAP" report --slowest=1 -f csv --dev "$dev" "$snap" >"$T/slowest.csv" ||
	fail "report --slowest=1 of the snapshot failed"
"$BLKMAP" report -f csv "$snap" >"$T/events.csv" || fail "report of the snapshot failed"
python3 - "$T/slowest.csv" "$T/events.csv" "$dev" "$sector" "$ts" <<'PY' || fail "--slowest=1 is not the snapshot's I/O"
import csv, sys
slow, events, dev, sector, ts = sys.argv[1:]
rows = list(csv.DictReader(open(slow)))
assert len(rows) == 1, f"{len(rows)} rows"
r = rows[0]
assert (r["dev"], r["sector"], r["ts_ns"]) == (dev, sector, ts), \
    f"--slowest=1 lists {r['dev']} {r['sector']} {r['ts_ns']}, the line {dev} {sector} {ts}"
issue = [int(e["ts_ns"]) for e in csv.DictReader(open(events))
         if e["event"] == "block_rq_issue" and e["dev"] == dev and e["sector"] == sector]
assert len(issue) == 1, f"{len(issue)} issues of the write in the snapshot"
d2c = (int(ts) - issue[0]) / 1e3
assert abs(float(r["d2c_us"]) - d2c) < 0.002, f"d2c {r['d2c_us']}, the events' {d2c}"
print(f"# the snapshot's slowest: {dev} sector {sector}, D2C {d2c} us")
PY
assert_clean
