# report --slowest against the raw events: on a loop device with a 1 MiB
# writer and a 1 MiB reader competing (fio, libaio, queue depth 8), each of
# the five slowest I/Os has the D2C its block_rq_issue and block_rq_complete
# give, the process whose block_bio_queue queued it, and an in-flight count
# equal to the device's requests issued before its issue and completed after
# it, and who queued those; no other I/O of the device took longer from its queue to its completion.
. "$(dirname "$0")/lib.sh"
need_root
command -v fio >/dev/null || skip "no fio"

truncate -s 256M "$T/img"
L=$(new_loop "$T/img")
l=$(basename "$L")

cat >"$T/job.fio" <<JOB
[global]
filename=$L
runtime=1
time_based
ioengine=libaio
direct=1
iodepth=8
bs=1M
[writer]
rw=write
size=100m
[reader]
rw=read
offset=128m
size=100m
JOB
"$BLKMAP" record -o "$T/rec.dat" -- fio --output="$T/fio.out" "$T/job.fio" 2>"$T/record.err" ||
	{ cat "$T/record.err" "$T/fio.out"; fail "record or fio failed"; }
grep -q "lost 0 " "$T/record.err" || { cat "$T/record.err"; fail "events were lost"; }
"$BLKMAP" report -f csv --disk "$l" "$T/rec.dat" >"$T/events.csv" || fail "report -f csv failed"
"$BLKMAP" report --slowest=5 -f csv --disk "$l" "$T/rec.dat" >"$T/slowest.csv" ||
	fail "report --slowest failed"
"$BLKMAP" report --slowest=5 --disk "$l" "$T/rec.dat" >"$T/slowest.txt" ||
	fail "report --slowest (text) failed"
"$BLKMAP" report --slowest -f json "$T/rec.dat" >"$T/slowest.json" ||
	fail "report --slowest (JSON) failed"
python3 - "$T/events.csv" "$T/slowest.csv" "$T/slowest.json" "$l" <<'PY' || fail "--slowest is not the events'"
import csv, json, sys

events, slowest, js, name = sys.argv[1:]
def op(rwbs):
    return "read" if "R" in rwbs else "write" if "W" in rwbs else None
# A request at a sector no bio was queued at is a split piece (1 MiB reads
# split at the loop device's 512 KiB): the latest bio queued that covers it,
# however many were queued since (the slowest pieces waited the longest).
queued, issued, reqs, recent = {}, {}, [], []
def queue_of(key):
    if key in queued:
        return queued[key]
    for s, n, op_, q in reversed(recent):
        if op_ == key[1] and s <= key[0] < s + n:
            return q
    return None
for e in csv.DictReader(open(events)):
    if e["name"] != name or not e["sector"]:
        continue
    key = (int(e["sector"]), op(e["rwbs"]))
    ts = int(e["ts_ns"])
    if e["event"] == "block_bio_queue":
        queued[key] = (ts, int(e["pid"]), e["comm"])
        recent.append((key[0], int(e["nr_sector"]), key[1], queued[key]))
    elif e["event"] == "block_rq_issue":
        issued[key] = (ts, queue_of(key))
        queued.pop(key, None)
    elif e["event"] == "block_rq_complete" and key in issued:
        d, q = issued.pop(key)
        reqs.append({"key": key, "d": d, "c": ts, "q": q})
assert len(reqs) > 100, f"premise missing: {len(reqs)} requests"
rows = list(csv.DictReader(open(slowest)))
assert len(rows) == 5, f"{len(rows)} rows, not 5"
q2c = []
for r in rows:
    key = (int(r["sector"]), r["op"])
    m = [x for x in reqs if x["key"] == key and x["c"] == int(r["ts_ns"])]
    assert len(m) == 1, f"no request completed at {key} at {r['ts_ns']}"
    x = m[0]
    d2c = (x["c"] - x["d"]) / 1000
    assert abs(float(r["d2c_us"]) - d2c) < 0.002, f"{key}: d2c {r['d2c_us']}, the events' {d2c}"
    behind = [y for y in reqs if y is not x and y["d"] < x["d"] < y["c"]]
    want = len(behind)
    assert int(r["inflight"]) == want, f"{key}: inflight {r['inflight']}, the events' {want}"
    who = {}
    for y in behind:
        assert y["q"], f"premise missing: a request in flight with no queue seen"
        who[(y["q"][2], y["q"][1])] = who.get((y["q"][2], y["q"][1]), 0) + 1
    by = [p.rsplit(":", 1) for p in r["inflight_by"].split(";")] if r["inflight_by"] else []
    got = {(p.rsplit("(", 1)[0], int(p.rsplit("(", 1)[1].rstrip(")"))): int(n) for p, n in by}
    assert got == who, f"{key}: inflight_by {r['inflight_by']}, the events' {who}"
    assert [int(n) for _, n in by] == sorted((int(n) for _, n in by), reverse=True), \
        f"{key}: inflight_by {r['inflight_by']} is not most first"
    assert x["q"], f"{key}: no queue seen"
    assert int(r["pid"]) == x["q"][1] and r["comm"] == x["q"][2], \
        f"{key}: pid {r['pid']} {r['comm']}, queued by {x['q'][1]} {x['q'][2]}"
    assert r["name"] == name and r["bytes"] != ""
    q2c.append(float(r["q2c_us"]))
assert q2c == sorted(q2c, reverse=True), f"not slowest first: {q2c}"
listed = {(int(r["sector"]), r["op"], int(r["ts_ns"])) for r in rows}
others = [(x["c"] - x["q"][0]) / 1000 for x in reqs
          if x["q"] and (x["key"][0], x["key"][1], x["c"]) not in listed]
assert max(others) <= q2c[-1] + 0.002, f"an I/O took {max(others)} us, the fifth listed {q2c[-1]}"
print(f"slowest q2c {q2c}, others' max {max(others):.1f} us, inflight "
      f"{[r['inflight'] for r in rows]} by {[r['inflight_by'] for r in rows]}, "
      f"queued by {[r['comm'] + '(' + r['pid'] + ')' for r in rows]}")
j = [json.loads(s) for s in open(js)]
assert 1 <= len(j) <= 10 and all("inflight" in o and "q2c_us" in o for o in j), "JSON rows"
PY
note "$(cat "$T/slowest.txt")"
drop_loop "$L"
assert_clean
