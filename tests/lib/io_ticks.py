#!/usr/bin/python3
"""What %util is at light load: blkmap's busy time against the kernel's io_ticks.

    io_ticks.py EVENTS_CSV DISKS_CSV STAT_BEFORE STAT_AFTER NAME

EVENTS_CSV is `blkmap report -f csv` of a recording, DISKS_CSV its
`--disks -f csv`, STAT_* copies of /proc/diskstats read inside it, NAME a
request-based disk that did sparse I/O alone. Computed from the events:

- the union of the disk's D2C intervals (issue to completion): blkmap's
  busy_ns must be it, to the microsecond;
- io_ticks as the kernel counts it (block/blk-core.c, update_io_ticks, 6.x):
  at a request's start (block_getrq, blk_account_io_start) the jiffies since
  the last stamp are added if a request is in flight (issued, not complete),
  at its completion always; the stamp moves to now. Jiffies from the tick
  the recording saved (record-begin's tick_ns and tick_at). It must be the
  kernel's to a few jiffies: then the kernel's figure is this rounding of
  the same intervals, and the difference from blkmap's is the rounding.

Prints the three figures; exits 1 if blkmap's busy time is not the union
or the kernel counted less than the rounding, 2 if only the kernel counted
more. The second can happen under CPU contention: a completion is traced
(blk_update_request) before it is accounted (blk_account_io_done reads
jiffies), and between the two its task can be preempted, interrupted or
its CPU taken by the host, past a tick the events do not show.
"""
import csv
import sys

events, disks, before, after, name = sys.argv[1:6]


def ticks(path):
    for line in open(path):
        f = line.split()
        if f[2] == name:
            return int(f[12])
    sys.exit(f"{name} is not in {path}")


kernel_ms = ticks(after) - ticks(before)
tick_ns = tick_at = None
dev = None
starts, issues, completes = [], [], []
for r in csv.DictReader(open(events)):
    if r["event"] == "print" and "blkmap:record-begin" in r["details"]:
        kv = dict(w.split("=", 1) for w in r["details"].split() if "=" in w)
        tick_ns, tick_at = int(kv["tick_ns"]), int(kv["tick_at"])
    if r["name"] != name or r["event"] not in ("block_getrq", "block_rq_issue", "block_rq_complete"):
        continue
    if not int(r["nr_sector"] or 0):
        continue    # no data: the kernel leaves them out of io_ticks
    t = int(r["ts_ns"])
    {"block_getrq": starts, "block_rq_issue": issues, "block_rq_complete": completes}[r["event"]].append(t)
if not tick_ns:
    sys.exit("no record-begin marker with the tick: cannot count jiffies")
if len(completes) < 50:
    sys.exit(f"premise missing: only {len(completes)} completions on {name}")

# The union of D2C: in flight from an issue to a completion.
timeline = sorted([(t, 1) for t in issues] + [(t, -1) for t in completes])
busy, depth, since = 0, 0, None
for t, d in timeline:
    if depth > 0:
        busy += t - since
    depth = max(depth + d, 0)
    since = t

# The same from each request's start (block_getrq), as the kernel starts it.
timeline = sorted([(t, 1) for t in starts] + [(t, -1) for t in completes])
g2c, depth, since = 0, 0, None
for t, d in timeline:
    if depth > 0:
        g2c += t - since
    depth = max(depth + d, 0)
    since = t


def jiffy(t):
    return (t - tick_at) // tick_ns


# The kernel's io_ticks: starts (not in flight themselves), issues and ends in order.
stamp, inflight, io_ticks = None, 0, 0
for t, kind in sorted([(t, "s") for t in starts] + [(t, "i") for t in issues] +
                      [(t, "c") for t in completes]):
    now = jiffy(t)
    if kind == "i":
        inflight += 1
        continue
    if stamp is not None and now > stamp and (kind == "c" or inflight):
        io_ticks += now - stamp
    if stamp is None or now > stamp:
        stamp = now
    if kind == "c":
        inflight = max(inflight - 1, 0)
emulated_ms = io_ticks * tick_ns / 1e6

row = next(r for r in csv.DictReader(open(disks)) if r["name"] == name)
ours = int(row["busy_ns"])
print(f"{name}: {len(completes)} requests; D2C union {busy / 1e6:.3f} ms (G2C {g2c / 1e6:.3f}), blkmap's busy "
      f"{ours / 1e6:.3f} ms (%util {row['util_pct']}); io_ticks: the kernel's {kernel_ms} ms, "
      f"counted from the events as the kernel counts {emulated_ms:.0f} ms "
      f"(jiffies of {tick_ns / 1e6:g} ms)")
status = 0
if abs(emulated_ms - kernel_ms) > max(3 * tick_ns / 1e6, 0.1 * kernel_ms):
    print(f"FAIL: io_ticks counted from the events, {emulated_ms:.0f} ms, is not the kernel's, {kernel_ms} ms")
    status = 2 if kernel_ms > emulated_ms else 1
if abs(ours - busy) > 1000:
    print(f"FAIL: blkmap's busy time {ours} ns is not the union of D2C, {busy} ns")
    status = 1
sys.exit(status)
