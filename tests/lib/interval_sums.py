#!/usr/bin/python3
"""Check that report --interval's rows add up to report --disks.

    interval_sums.py DISKS_CSV INTERVAL_CSV WIDTH_NS

Per incarnation: reads, writes, read_bytes, write_bytes, others and flushes
summed over its intervals equal --disks' exactly; busy_ns, queue_ns and
seconds within what printing rounds off (half a unit a row) and a
millionth; each interval is WIDTH_NS long (the last one may be shorter) and
the rows' windows lie within their interval and within the incarnation's
window in --disks, without gaps or overlaps between them. Prints one line
per incarnation; exits 1 on a disagreement.
"""
import csv
import sys

EXACT = ("reads", "writes", "read_bytes", "write_bytes", "others", "flushes")
TIMES = (("busy_ns", 0.5), ("queue_ns", 0.5), ("seconds", 5e-7))


def main():
    with open(sys.argv[1]) as f:
        disks = {r["incarnation"]: r for r in csv.DictReader(f)}
    with open(sys.argv[2]) as f:
        rows = list(csv.DictReader(f))
    width = int(sys.argv[3])
    bad, seen = [], {}
    for r in rows:
        seen.setdefault(r["incarnation"], []).append(r)
        end, secs = int(r["time_ns"]), float(r["interval_s"])
        lo, hi = int(r["window_from_ns"]), int(r["window_to_ns"])
        if secs > width / 1e9 + 5e-4 or not end - width <= lo <= hi <= end:
            bad.append(f"{r['incarnation']}: a row of {lo}..{hi} in the interval ending "
                       f"{end} ({secs} s)")
    for inc, d in disks.items():
        got = seen.pop(inc, [])
        if not got:
            bad.append(f"{inc}: in --disks, no row in --interval")
            continue
        for key in EXACT:
            total = sum(int(r[key]) for r in got)
            if total != int(d[key]):
                bad.append(f"{inc}: {key} add up to {total}, --disks {d[key]}")
        for key, per_row in TIMES:
            total = sum(float(r[key]) for r in got)
            if abs(total - float(d[key])) > per_row * len(got) + 1e-6 * float(d[key]):
                bad.append(f"{inc}: {key} add up to {total}, --disks {d[key]}")
        windows = sorted((int(r["window_from_ns"]), int(r["window_to_ns"])) for r in got)
        if windows[0][0] != int(d["window_from_ns"]) or windows[-1][1] != int(d["window_to_ns"]):
            bad.append(f"{inc}: the rows cover {windows[0][0]}..{windows[-1][1]}, its window "
                       f"{d['window_from_ns']}..{d['window_to_ns']}")
        for (_, a), (b, _) in zip(windows, windows[1:]):
            if a != b:
                bad.append(f"{inc}: the rows leave out or overlap {a}..{b}")
        print(f"# {inc}: {len(got)} intervals, {d['reads']} reads, {d['writes']} writes, "
              f"busy {float(d['busy_ns']) / 1e6:.3f} ms, in queue "
              f"{float(d['queue_ns']) / 1e6:.3f} ms: as --disks")
    for inc in seen:
        bad.append(f"{inc}: rows in --interval, none in --disks")
    for b in bad:
        print("FAIL:", b)
    sys.exit(1 if bad else 0)


main()
