#!/bin/sh
# --disks' tail of each operation: r_ and w_ d2c_max_us are the longest
# block_rq_issue to block_rq_complete of that operation on the incarnation,
# computed from the events themselves; p99.9 lies between the p99 and the max.
# --interval's: the longest of an incarnation's intervals is that too.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }
rec=$top/tests/data/host-names.dat
"$BLKMAP" report -q -f csv "$rec" >"$T/events.csv" || fail "report -f csv: exit $?"
"$BLKMAP" report -q --disks -f csv "$rec" >"$T/disks.csv" || fail "report --disks: exit $?"
"$BLKMAP" report -q --interval=50ms -f csv "$rec" >"$T/interval.csv" || fail "report --interval: exit $?"
python3 - "$T/events.csv" "$T/disks.csv" "$T/interval.csv" <<'PY' || fail "--disks' tails are not the events'"
import csv, sys

issued, worst = {}, {}
for e in csv.DictReader(open(sys.argv[1])):
    if not e["sector"] or not e["incarnation"]:
        continue
    op = "r" if "R" in e["rwbs"] else "w" if "W" in e["rwbs"] else None
    if op is None or e["nr_sector"] == "0":
        continue
    key = (e["incarnation"], e["sector"], op)
    if e["event"] == "block_rq_issue":
        issued[key] = int(e["ts_ns"])
    elif e["event"] == "block_rq_complete" and key in issued:
        d2c = int(e["ts_ns"]) - issued.pop(key)
        w = (e["incarnation"], op)
        worst[w] = max(worst.get(w, 0), d2c)
assert len(worst) >= 2, f"premise missing: {worst}"
checked = 0
for r in csv.DictReader(open(sys.argv[2])):
    for op in "rw":
        want = worst.get((r["incarnation"], op))
        got = r[op + "_d2c_max_us"]
        if want is None:
            continue
        assert got != "", f"{r['incarnation']} {op}: no {op}_d2c_max_us, the events' {want} ns"
        assert abs(float(got) - want / 1e3) < 0.0015, f"{r['incarnation']} {op}: {got}, the events' {want / 1e3}"
        p99, p999 = float(r[op + "_d2c_p99_us"]), float(r[op + "_d2c_p999_us"])
        assert p99 <= p999 <= float(got) * 1.001, f"{r['incarnation']} {op}: p99 {p99} p99.9 {p999} max {got}"
        checked += 1
assert checked >= 2, f"premise missing: {checked} checked"
longest, rows = {}, 0
for r in csv.DictReader(open(sys.argv[3])):
    for op in "rw":
        if r[op + "_d2c_max_us"] != "":
            w = (r["incarnation"], op)
            longest[w] = max(longest.get(w, 0), float(r[op + "_d2c_max_us"]))
            p99, p999 = float(r[op + "_d2c_p99_us"]), float(r[op + "_d2c_p999_us"])
            assert p99 <= p999 <= float(r[op + "_d2c_max_us"]) * 1.001, f"--interval {w}: {p99} {p999}"
            rows += 1
    if r["d2c_p999_us"] != "":
        assert float(r["d2c_p99_us"]) <= float(r["d2c_p999_us"]) <= float(r["d2c_max_us"]) * 1.001
for w, want in worst.items():
    assert abs(longest.get(w, -1) - want / 1e3) < 0.0015, f"--interval {w}: longest {longest.get(w)}, the events' {want / 1e3}"
assert rows > len(worst), f"premise missing: {rows} interval rows with a tail"
print(f"# {checked} incarnation and operation tails as the events give them")
PY
