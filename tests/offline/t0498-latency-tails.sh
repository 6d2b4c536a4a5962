#!/bin/sh
# --disks' tail of each operation: r_ and w_ d2c_max_us are the longest
# block_rq_issue to block_rq_complete of that operation on the incarnation,
# computed from the events themselves; p99.9 lies between the p99 and the max.
# --interval's: the longest of an incarnation's intervals is that too.
# --latency marks p50, p99 and p99.9 each once, in the log2 bucket that holds
# the events' own percentile (within the histogram's 3%).
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }
rec=$top/tests/data/host-names.dat
"$BLKMAP" report -q -f csv "$rec" >"$T/events.csv" || fail "report -f csv: exit $?"
"$BLKMAP" report -q --disks -f csv "$rec" >"$T/disks.csv" || fail "report --disks: exit $?"
"$BLKMAP" report -q --interval=50ms -f csv "$rec" >"$T/interval.csv" || fail "report --interval: exit $?"
"$BLKMAP" report -q --latency -f csv "$rec" >"$T/latency.csv" || fail "report --latency: exit $?"
python3 - "$T/events.csv" "$T/disks.csv" "$T/interval.csv" "$T/latency.csv" <<'PY' || fail "the tails are not the events'"
import csv, sys

issued, worst, every = {}, {}, {}
for e in csv.DictReader(open(sys.argv[1])):
    if not e["sector"] or not e["incarnation"]:
        continue
    # --latency's histogram has discards too ("D"), the tails reads and writes alone
    op = "d" if "D" in e["rwbs"] else "r" if "R" in e["rwbs"] else "w" if "W" in e["rwbs"] else None
    if op is None or e["nr_sector"] == "0":
        continue
    key = (e["incarnation"], e["sector"], op)
    if e["event"] == "block_rq_issue":
        issued[key] = int(e["ts_ns"])
    elif e["event"] == "block_rq_complete" and key in issued:
        d2c = int(e["ts_ns"]) - issued.pop(key)
        w = (e["incarnation"], op)
        if op != "d":
            worst[w] = max(worst.get(w, 0), d2c)
        every.setdefault(e["incarnation"], []).append(d2c / 1e3)
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
marked = {}
for r in csv.DictReader(open(sys.argv[4])):
    assert r["latency"] == "d2c", f"premise missing: {r['incarnation']} has {r['latency']}"
    for m in r["marks"].split():
        assert (r["incarnation"], m) not in marked, f"{r['incarnation']}: {m} marked twice"
        marked[(r["incarnation"], m)] = (int(r["from_us"]), int(r["to_us"]) + 1)
for inc, v in every.items():
    v.sort()
    for m, p in (("p50", 50), ("p99", 99), ("p99.9", 99.9)):
        assert (inc, m) in marked, f"--latency: {inc} has no {m} marked"
        lo, hi = marked[(inc, m)]
        r = p / 100 * len(v)
        near = v[max(0, int(r) - 1):min(len(v), int(r) + 2)]
        assert min(near) * 0.97 < hi and max(near) * 1.03 >= lo, \
            f"--latency: {inc} {m} marked in [{lo}, {hi}), the events' near {near}"
print(f"# --latency: {len(marked)} marks where the events' percentiles are")
print(f"# {checked} incarnation and operation tails as the events give them")
PY
