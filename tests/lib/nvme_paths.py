#!/usr/bin/python3
"""Check an NVMe path removed and added back (tests/vm/t3095) in blkmap's reports.

    nvme_paths.py [--exact] OUT

OUT holds what scenarios/nvme-multipath.sh wrote (nvme.log, stat.before,
stat.gone, stat.after) and the reports of its recording: map.csv, disks.csv
and stack.csv (`blkmap report --map|--disks|--stack -f csv`).

- The removed path's incarnation ends, and the one its controller made when
  it came back begins, at one instant within the times the scenario read
  around each (monotonic clock) with --exact (kernel-side sources); else
  each boundary's window can hold the change (it meets those times). The
  paths still there have one incarnation each, never ended.
- Per path incarnation, what blkmap counted (--disks: reads, writes, bytes)
  equals the kernel's counters for that path disk: the removed one's last
  reading before it went, the others' change over the recording (the one
  that came back from zero).
- Per path incarnation, the head's I/O it carried (--disks' head_* keys and
  the --stack row from the head) equals the same, and the head's figures in
  --disks equal their sum.

Prints a table (kernel, --disks, --disks head_*, --stack) and one line a
disagreement; exits 1 if there is any.
"""
import csv
import sys

import kernel_counters


def diskstats(path):
    """Per name: its number, and its reads, writes, read and write bytes."""
    k = kernel_counters
    return {name: (dev, (v[k.READS], v[k.WRITES], v[k.RSECT] * 512, v[k.WSECT] * 512))
            for name, (dev, v) in k.diskstats(path).items()}


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def num(v):
    return int(v) if v not in ("", None) else None


def main():
    args = sys.argv[1:]
    exact = args[:1] == ["--exact"]
    out = args[-1]
    log, times = {}, {}
    for line in open(f"{out}/nvme.log"):
        w = line.split()
        if w[0] in ("del_begin", "del_end", "add_begin", "add_end"):
            times[w[0]] = int(w[1])
        else:
            log.setdefault(w[0], []).append(w[1:])
    head = log["head"][0][0]
    gone, back = log["gone"][0][0], log["back"][0][0]
    before, after = diskstats(f"{out}/stat.before"), diskstats(f"{out}/stat.after")
    last = diskstats(f"{out}/stat.gone")
    mp, disks, stack = rows(f"{out}/map.csv"), rows(f"{out}/disks.csv"), rows(f"{out}/stack.csv")
    bad = []
    zero = (0, 0, 0, 0)

    def delta(now, then):
        return tuple(a - b for a, b in zip(now, then))

    # The incarnations the paths had, as the kernel counted them.
    gone_dev = before[gone][0]
    back_dev = after[back][0]
    kernel = {}
    for p, in_log in ((p[0], p) for p in log["path"]):
        if p == gone:
            continue
        kernel[(p, after[p][0], "stayed")] = delta(after[p][1], before.get(p, (0, zero))[1])
    kernel[(gone, gone_dev, "removed")] = delta(last[gone][1], before[gone][1])
    kernel[(back, back_dev, "came back")] = after[back][1]

    def span(name, dev, what):
        got = [r for r in mp if r["name"] == name and r["dev"] == dev]
        if what == "removed":
            got = [r for r in got if r["to_ns"]]
        elif what == "came back":
            got = [r for r in got if r["from_ns"] and not r["to_ns"]]
        if len(got) != 1:
            bad.append(f"{name} ({what}): {len(got)} map rows on {dev}, not 1")
            return None
        return got[0]

    def inside(name, r, side, lo, hi):
        a, b = num(r[f"{side}_lo_ns"]), num(r[f"{side}_hi_ns"])
        if a is None or b is None:
            bad.append(f"{name}: no {side} boundary in --map")
            return
        print(f"{name} {r['incarnation']}: {side} {a}..{b} ({r[f'{side}_source']}), "
              f"the scenario's {lo}..{hi}")
        if exact and a != b:
            bad.append(f"{name}: {side} is a window {a}..{b}, not exact")
        elif exact and not lo <= a <= hi:
            bad.append(f"{name}: {side} at {a}, not within {lo}..{hi}")
        elif not (a <= hi and b >= lo):
            bad.append(f"{name}: {side} window {a}..{b} cannot hold the change "
                       f"(within {lo}..{hi})")

    incarnations = {}
    for (name, dev, what) in kernel:
        r = span(name, dev, what)
        if not r:
            continue
        incarnations[(name, dev, what)] = r["incarnation"]
        if what == "removed":
            inside(name, r, "to", times["del_begin"], times["del_end"])
        elif what == "came back":
            inside(name, r, "from", times["add_begin"], times["add_end"])
        elif r["to_ns"]:
            bad.append(f"{name}: ends at {r['to_ns']}, though it stayed")

    def figures(r, p=""):
        return tuple(int(r[f"{p}{k}"] or 0)
                     for k in ("reads", "writes", "read_bytes", "write_bytes"))

    by_inc = {r["incarnation"]: r for r in disks}
    head_rows = [r for r in disks if r["name"] == head]
    total = zero
    print(f"{'path':24} {'kernel':>30} {'--disks':>30} {'head_*':>30} {'--stack':>30}")
    for key, k in sorted(kernel.items()):
        inc = incarnations.get(key)
        if not inc:
            continue
        d = by_inc.get(inc)
        if not d:
            bad.append(f"{key[0]} {inc}: no row in --disks")
            continue
        s = [r for r in stack if r["incarnation"] == inc and r["via"] == head]
        st = figures(s[0]) if len(s) == 1 else None
        hd = figures(d, "head_") if d.get("head") == head else None
        print(f"{key[0] + ' ' + inc:24} {str(k):>30} {str(figures(d)):>30} {str(hd):>30} "
              f"{str(st):>30}")
        total = tuple(a + b for a, b in zip(total, k))
        if figures(d) != k:
            bad.append(f"{key[0]} {inc} ({key[2]}): --disks {figures(d)}, the kernel {k}")
        if hd != k:
            bad.append(f"{key[0]} {inc}: --disks head={d.get('head')} head_* {hd}, "
                       f"the kernel {k}")
        if st != k:
            bad.append(f"{key[0]} {inc}: --stack from {head} {st}, the kernel {k}")
    got = zero
    for r in head_rows:
        got = tuple(a + b for a, b in zip(got, figures(r)))
    print(f"{head:24} {str(total):>30} {str(got):>30}   (the paths' sum)")
    if got != total:
        bad.append(f"{head}: --disks {got}, the sum of its paths' counters {total}")
    for line in bad:
        print("MISMATCH " + line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
