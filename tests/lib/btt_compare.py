#!/usr/bin/python3
"""Compare blkmap's --phases with btt's figures for the same I/O.

    btt_compare.py BTT_AVG PHASES_CSV NAME [BLKPARSE_TXT EVENTS_CSV DEV]

BTT_AVG is btt's summary (`btt -i DUMP -o PREFIX` writes PREFIX.avg) of a
blktrace of one disk; PHASES_CSV is `blkmap report --phases -f csv` of a
recording of the same I/O; NAME the disk's kernel name. Compared, from the
row of NAME for all operations:

- every phase btt shows (Q2Q, Q2G, G2I, Q2M, I2D, M2D, D2C, Q2C): the
  count exactly, the average within 2 % and 2 us, and, given blkparse's
  listing of the trace (`blkparse -f "%a %S %n %T.%t\n"`, BLKPARSE_TXT) and
  blkmap's events (`report -f csv`, EVENTS_CSV) of the disk DEV (MAJ:MIN),
  the two tracers' disagreement on when its events happened. Each takes its
  time stamp in its own probe, one after the other in each tracepoint; in a
  guest under emulation (QEMU TCG) the gap between the two is microseconds
  and changes with the event: the first event after an idle spell wakes the
  recorder that sleeps on the ring buffer, inside blkmap's probe and before
  blktrace's (an event's time in blkmap's recording minus its time in
  blktrace's, matched event by event in one run: Q -24 to +1.5 us, G -3 to
  +1.5, C -35 to +0.4, 1st to 99th percentile). For X2Y the bound grows by
  the difference of the mean gaps of Y and of X, weighed as btt weighs
  the phase (D2C once per bio queued into the request: see gaps());
- merges: #Q and #D exactly, the request sizes (min, max, total) exactly;
- seeks between consecutive Qs and consecutive Ds: their number and mode
  exactly, the mean within 0.5 % (btt's median walks its tree out of order:
  not compared, see report(1));
- active requests at Q: within 0.05.

Exit 0 when everything agrees, 1 with each difference on stderr; 77 when a
premise is missing (btt saw no I/O).
"""
import csv
import re
import sys

PHASES = ["Q2Q", "Q2G", "G2I", "Q2M", "I2D", "M2D", "D2C", "Q2C"]


def sections(text):
    """btt's summary cut at its '==== Title ====' lines: {title: lines}."""
    out, title = {}, None
    for line in text.splitlines():
        m = re.match(r"^=+ (.*?) =+$", line.strip())
        if m:
            title = m.group(1)
            out[title] = []
        elif title:
            out[title].append(line)
    return out


def device_row(lines):
    """The fields after 'DEV |' of the first device row of a btt table."""
    for line in lines:
        if re.match(r"^\s*\(\s*\d+,\s*\d+\)", line):
            return line.split("|", 1)[1]
    return None


ACTIONS = {"block_bio_queue": "Q", "block_getrq": "G", "block_rq_insert": "I",
           "block_rq_issue": "D", "block_rq_complete": "C", "block_bio_backmerge": "M",
           "block_bio_frontmerge": "M", "block_rq_merge": "M", "block_bio_complete": "C"}


def gaps(blkparse_txt, events_csv, dev):
    """A function giving, for a phase X2Y, the mean of blkmap's time stamp
    minus blktrace's for Y events less that for X events, in us, over the
    sectors where both X and Y happened (events matched by action, sector
    and order); the clocks' offset (blkparse's times start at its first
    event) cancels out. D2C is btt's per queued bio (its count is #Q): a
    request counts there once for each bio queued into it, so its gaps
    weigh as many (the bios on its sectors queued since the last request
    there was issued, matched in time order)."""
    ours = {}
    with open(events_csv) as f:
        for r in csv.DictReader(f):
            a = ACTIONS.get(r["event"])
            if a and r["dev"] == dev and r["nr_sector"] not in ("", "0"):
                ours.setdefault((a, int(r["sector"])), []).append(int(r["ts_ns"]))
    theirs = {}
    events = []
    with open(blkparse_txt) as f:
        for line in f:
            v = line.split()
            if len(v) == 4 and v[0] in "QGIMFDC" and v[2] != "0":
                s, ns = v[3].split(".")
                a = "M" if v[0] == "F" else v[0]
                t = int(s) * 10**9 + int(ns)
                theirs.setdefault((a, int(v[1])), []).append(t)
                events.append((t, a, int(v[1]), int(v[2]), len(theirs[(a, int(v[1]))]) - 1))
    diffs = {}
    for k, ts in theirs.items():
        diffs[k] = [o - t for t, o in zip(ts, ours.get(k, []))]
    # Bios per request: each queued bio goes to the first request issued
    # after it that covers its sector.
    weights = {}
    waiting = []
    for t, a, sec, n, i in sorted(events):
        if a == "Q":
            waiting.append(sec)
        elif a == "D":
            inside = [q for q in waiting if sec <= q < sec + n]
            waiting = [q for q in waiting if not sec <= q < sec + n]
            weights[(sec, i)] = max(len(inside), 1)

    def between(x, y):
        w = (lambda sec, i: weights.get((sec, i), 1)) if (x, y) == ("D", "C") \
            else (lambda sec, i: 1)
        dx = [(d, w(sec, i)) for (a, sec), ds in diffs.items() if a == x and (y, sec) in diffs
              for i, d in enumerate(ds)]
        dy = [(d, w(sec, i)) for (a, sec), ds in diffs.items() if a == y and (x, sec) in diffs
              for i, d in enumerate(ds)]
        if not dx or not dy:
            return 0.0

        def mean(pairs):
            return sum(d * k for d, k in pairs) / sum(k for _, k in pairs)
        return (mean(dy) - mean(dx)) / 1000
    return between


def main():
    if len(sys.argv) not in (4, 7):
        sys.exit(__doc__)
    between = gaps(*sys.argv[4:7]) if len(sys.argv) == 7 else (lambda x, y: 0.0)
    with open(sys.argv[1]) as f:
        btt = sections(f.read())
    with open(sys.argv[2]) as f:
        rows = [r for r in csv.DictReader(f) if r["name"] == sys.argv[3] and r["op"] == "all"]
    if len(rows) != 1:
        print(f"{len(rows)} rows of {sys.argv[3]} for all operations in {sys.argv[2]}",
              file=sys.stderr)
        return 1
    bm = rows[0]
    errors = []

    def check(what, theirs, ours, rel=0.0, absolute=0.0):
        ok = abs(theirs - ours) <= max(rel * abs(theirs), absolute)
        print(f"{'  ' if ok else '! '}{what:30} btt {theirs:14.3f}   blkmap {ours:14.3f}")
        if not ok:
            errors.append(f"{what}: btt {theirs}, blkmap {ours}")

    seen = 0
    for line in btt.get("All Devices", []):
        f = line.split()
        # btt takes a device whose major number is device-mapper's on the
        # machine it runs on for a dm device, and suffixes its phases "dm".
        if len(f) == 5 and f[0].endswith("dm"):
            f[0] = f[0][:-2]
        if len(f) == 5 and f[0] in PHASES:
            key = f[0].lower()
            n, avg = int(f[4]), float(f[2]) * 1e6
            seen += n
            check(f"{f[0]} count", n, int(bm[f"{key}_count"] or 0))
            if n:
                x, y = f[0][0], f[0][2]
                slack = abs(between(x, y)) if x != y else 0
                check(f"{f[0]} avg (us) [{slack:.1f}]", avg, float(bm[f"{key}_avg_us"]), 0,
                      0.02 * avg + 2 + slack)
    if not seen:
        print("btt saw no I/O", file=sys.stderr)
        return 77

    merge = device_row(btt.get("Device Merge Information", []))
    if merge:
        f = merge.replace("|", " ").split()
        check("#Q", int(f[0]), int(bm["queued"]))
        check("#D", int(f[1]), int(bm["issued"]))
        check("request sectors min", int(f[3]), int(bm["request_sectors_min"]))
        check("request sectors max", int(f[5]), int(bm["request_sectors_max"]))
        check("request sectors total", int(f[6]), int(bm["request_sectors_total"]))
    else:
        errors.append("btt's summary has no merge information")

    for title, key in (("Device Q2Q Seek Information", "q2q"),
                       ("Device D2D Seek Information", "d2d")):
        row = device_row(btt.get(title, []))
        if not row:
            errors.append(f"btt's summary has no '{title}'")
            continue
        f = row.replace("|", " ").split()
        check(f"{key} seeks", int(f[0]), int(bm[f"{key}_seeks"]))
        check(f"{key} seek mean (sectors)", float(f[1]), float(bm[f"{key}_seek_mean"]), 0.005)
        mode = re.match(r"(-?\d+)\((\d+)\)", f[3])
        if mode:
            check(f"{key} seek mode (sectors)", int(mode.group(1)), int(bm[f"{key}_seek_mode"]))

    act = device_row(btt.get("Active Requests At Q Information", []))
    if act:
        check("active requests at Q", float(act.split()[0]), float(bm["active_at_q_avg"]),
              0, 0.05)

    for e in errors:
        print(f"differs: {e}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
