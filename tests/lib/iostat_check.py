#!/usr/bin/python3
"""Check report --disks's iostat figures against the events listing.

    iostat_check.py EVENTS_CSV DISKS_CSV

For every incarnation of a request-based device (basis "request"), the
reads' and writes' mean Q2C (r_await_ms, w_await_ms) and D2C (r_d2c_ms,
w_d2c_ms) are computed again from the events: a completion with data on
the device ends the bio queued and the request issued last at its sector
before it, within the incarnation's window (a bio remapped to the device
from a partition or a device above is queued from its remap: its first
event there). The rates are its counts over
its seconds; its flushes, the completions of a flush without data (rwbs
F...), and their mean time from issue (f_await_ms). Prints what it compared; exits 1 on a disagreement, 77 if no
incarnation had a latency to compare.
"""
import csv
import sys


def main():
    events, disks = sys.argv[1], sys.argv[2]
    with open(events) as f:
        evs = list(csv.DictReader(f))
    with open(disks) as f:
        rows = list(csv.DictReader(f))
    bad, compared = [], 0
    for r in rows:
        if r["basis"] != "request":
            continue
        lo, hi, dev = int(r["window_from_ns"]), int(r["window_to_ns"]), r["dev"]
        queued, issued, flushes, flush_issued, flush_ns = {}, {}, 0, [], 0
        sums = {("q2c", "R"): [0, 0], ("q2c", "W"): [0, 0],
                ("d2c", "R"): [0, 0], ("d2c", "W"): [0, 0]}
        for e in evs:
            if e["dev"] != dev or not lo <= int(e["ts_ns"]) <= hi:
                continue
            if e["rwbs"].startswith("F") and e["nr_sector"] in ("", "0"):
                if e["event"] == "block_rq_issue":
                    flush_issued.append(int(e["ts_ns"]))
                elif e["event"] == "block_rq_complete":
                    flushes += 1
                    flush_ns += int(e["ts_ns"]) - flush_issued.pop(0) if flush_issued else 0
            op = "W" if "W" in e["rwbs"] else "R" if "R" in e["rwbs"] else None
            if not op or not e["nr_sector"] or int(e["nr_sector"]) == 0:
                continue
            key, ts = (e["sector"], op), int(e["ts_ns"])
            if e["event"] in ("block_bio_queue", "block_bio_remap"):
                queued.setdefault(key, ts)
            elif e["event"] == "block_rq_issue":
                issued[key] = ts
            elif e["event"] == "block_rq_complete":
                if key in queued:
                    s = sums[("q2c", op)]
                    s[0] += ts - queued.pop(key)
                    s[1] += 1
                if key in issued:
                    s = sums[("d2c", op)]
                    s[0] += ts - issued.pop(key)
                    s[1] += 1
        for (kind, op), (total, n) in sums.items():
            col = {"q2c": "%s_await_ms", "d2c": "%s_d2c_ms"}[kind] % op.lower()
            got = r[col]
            if not n:
                if got != "":
                    bad.append(f"{r['incarnation']}: {col} {got}, the events have none")
                continue
            want = total / n / 1e6
            compared += 1
            print(f"# {r['incarnation']} {col}: {got} ms, from the events {want:.3f} ms ({n})")
            if got == "" or abs(float(got) - want) > max(0.01 * want, 0.0015):
                bad.append(f"{r['incarnation']}: {col} {got}, the events give {want:.3f}")
        if int(r["flushes"]) != flushes:
            bad.append(f"{r['incarnation']}: {r['flushes']} flushes, the events have {flushes}")
        elif flushes:
            compared += 1
            want = flush_ns / flushes / 1e6
            print(f"# {r['incarnation']} flushes: {flushes}, f_await_ms {r['f_await_ms']}, "
                  f"from the events {want:.3f}")
            if abs(float(r["f_await_ms"]) - want) > max(0.01 * want, 0.0015):
                bad.append(f"{r['incarnation']}: f_await_ms {r['f_await_ms']}, the events "
                           f"give {want:.3f}")
        secs = float(r["seconds"])
        for col, num, div in (("r_s", "reads", 1), ("w_s", "writes", 1),
                              ("rkb_s", "read_bytes", 1024), ("wkb_s", "write_bytes", 1024)):
            want = int(r[num]) / div / secs if secs > 0 else 0
            if abs(float(r[col]) - want) > max(0.001 * want, 0.1):
                bad.append(f"{r['incarnation']}: {col} {r[col]}, {num} over seconds {want:.3f}")
    for b in bad:
        print("FAIL:", b)
    if not compared and not bad:
        print("SKIP: no request-based incarnation with a latency to compare")
        sys.exit(77)
    sys.exit(1 if bad else 0)


main()
