#!/usr/bin/env python3
"""Check a recording of tests/vm/scenarios/lvm.sh against what the script did.

    lvm_labels.py [--exact] [--module] DIR

DIR holds one source set's files: events.csv and map.csv (blkmap report),
lv.log, dm.log, cmds.log (the scenario's). Checked:
- every write through /dev/VG/LV: all its sectors queued on its device,
  each event under the device's kernel name, dm name and volume then;
- every block event on a device-mapper device during a write (the write's
  remaps down the layers, the pool's metadata): the kernel name, dm name,
  volume and layer LVM had given that device then, as dmsetup splitname
  split its name right after the write;
- the layers were written through: an origin's -real, a snapshot's -cow,
  a thin pool's -tpool and _tdata;
- the boundaries of every incarnation written to, and the rename: in the
  lvm command that made them (0.01 s, /proc/uptime's step, either side), a
  point inside it or a window that meets it; with --exact, every one a
  point.
With --module, blkmap's module was loaded: its add record of each volume
written to names it as LVM did then (dm name and an LVM UUID).
Prints one line a boundary kind: "adds exact|window (widest N ms)" and the
like. Exit status 1 with the reasons on a mismatch.
"""
import csv
import sys

SLACK = 10_000_000  # /proc/uptime counts hundredths of a second


def ns(seconds):
    return round(float(seconds) * 1e9)


def load(directory):
    with open(f"{directory}/events.csv", newline="") as f:
        events = [r for r in csv.DictReader(f) if r["event"] in ("block_bio_queue", "block_bio_remap")]
    with open(f"{directory}/map.csv", newline="") as f:
        spans = list(csv.DictReader(f))
    writes = [line.split() for line in open(f"{directory}/lv.log")]
    state = {}  # T1 -> {dev: (kname, dm, vg/lv, layer)}
    for line in open(f"{directory}/dm.log"):
        t, kname, dev, dm, vg, lv, layer = line.split()
        state.setdefault(t, {})[dev] = (kname, dm, f"{vg}/{lv}", "" if layer == "-" else layer)
    cmds = []
    for line in open(f"{directory}/cmds.log"):
        t0, t1, *cmd = line.split()
        cmds.append((ns(t0) - SLACK, ns(t1) + SLACK, " ".join(cmd)))
    return events, spans, writes, state, cmds


def check_writes(events, writes, state, bad):
    seen_layers = set()
    for t0, t1, kname, dev, start, count, lv in writes:
        start, count = int(start), int(count)
        queued = [e for e in events if e["event"] == "block_bio_queue" and e["dev"] == dev and
                  start <= int(e["sector"]) < start + count]
        got = sum(int(e["nr_sector"]) for e in queued)
        if got != count:
            bad.append(f"{lv} ({kname} {dev}) at {start}: {got} sectors queued, {count} written")
        lo, hi = ns(t0) - SLACK, ns(t1) + SLACK
        now = state[t1]
        checked = 0
        for e in events:
            if not lo <= int(e["ts_ns"]) <= hi:
                continue
            sides = [("", e["dev"])]
            if e["event"] == "block_bio_remap":
                sides.append(("old_", e["old_dev"]))
            for p, d in sides:
                if d not in now:
                    continue
                want = now[d]
                have = tuple(e.get(p + k) or "" for k in ("name", "dm", "lv", "lv_layer"))
                checked += 1
                seen_layers.add((want[2], want[3]))
                if have != want:
                    bad.append(f"{lv} written at {t0}..{t1}: {e['event']} at {e['ts_ns']} on {d} "
                               f"labelled {have}, LVM had {want}")
        print(f"# {lv} ({kname} {dev}) at {start}: {got} of {count} sectors; "
              f"{checked} device-mapper labels checked during the write")
    return seen_layers


def within(lo, hi, cmds, words):
    """The lvm command (its words start with @words) that the point lo = hi lies
    in, or that the window lo..hi meets (the change happened during the
    command: a window that holds it meets the command)."""
    for c0, c1, cmd in cmds:
        if cmd.startswith(words) and (c0 <= lo <= hi <= c1 if lo == hi else lo <= c1 and c0 <= hi):
            return cmd
    return None


def check_bounds(spans, writes, cmds, exact, bad):
    used = {(w[3], w[2]) for w in writes}
    widest = {"add": 0, "removal": 0, "rename": 0}
    for s in spans:
        if (s["dev"], s["name"]) not in used or not s["lv"]:
            continue
        key = f"{s['incarnation']} ({s['vg']}/{s['lv']})"
        for what, lo, hi, words in (("add", s["from_lo_ns"], s["from_hi_ns"], "lvcreate"),
                                    ("removal", s["to_lo_ns"], s["to_hi_ns"], "lvremove")):
            if not lo or not hi:
                bad.append(f"{key}: its {what} is not in the recording")
                continue
            lo, hi = int(lo), int(hi)
            widest[what] = max(widest[what], hi - lo)
            if exact and lo != hi:
                bad.append(f"{key}: its {what} is a window {lo}..{hi}, not exact")
            if not within(lo, hi, cmds, words):
                bad.append(f"{key}: its {what} at {lo}..{hi} is in no {words} command")
        for item in filter(None, (s["dm_renames"] or "").split(";")):
            name, window = item.rsplit("@", 1)
            lo, hi = (int(x) for x in window.split(".."))
            widest["rename"] = max(widest["rename"], hi - lo)
            if exact and lo != hi:
                bad.append(f"{key}: its rename to {name} is a window {lo}..{hi}, not exact")
            if not within(lo, hi, cmds, "lvrename"):
                bad.append(f"{key}: its rename to {name} at {lo}..{hi} is in no lvrename command")
            print(f"# {key}: renamed {name} at {lo}..{hi}")
    return widest


def check_module(directory, writes, bad):
    """The module's add record of each incarnation written to carries its dm name and UUID."""
    first = {(line.split()[1], line.split()[2]) for line in open(f"{directory}/writes.log")}
    adds = []
    with open(f"{directory}/events.csv", newline="") as f:
        for r in csv.DictReader(f):
            if r["event"] != "blkmap_dev":
                continue
            fields = dict(item.split("=", 1) for item in r["details"].split(", ") if "=" in item)
            if fields.get("op") == "1":
                adds.append((int(r["ts_ns"]), int(fields["dev"]), fields.get("dm", ""),
                             fields.get("uuid", "")))
    for t0, t1, kname, dev, start, count, lv in writes:
        if (dev, start) not in first:
            continue
        major, minor = (int(x) for x in dev.split(":"))
        want = lv.replace("/", "-")
        named = [a for a in adds if a[1] == (major << 20 | minor) and a[0] < ns(t0)]
        if not named or named[-1][2] != want or not named[-1][3].startswith("LVM-"):
            bad.append(f"{lv} ({kname} {dev}): the module's last add before the write says "
                       f"{named[-1][2:] if named else 'nothing'}, not {want} with an LVM UUID")
        else:
            print(f"# {lv} ({kname} {dev}): added as {want} ({named[-1][3][:12]}...) by the module")


def main():
    args = sys.argv[1:]
    exact = "--exact" in args
    directory = [a for a in args if not a.startswith("--")][0]
    events, spans, writes, state, cmds = load(directory)
    bad = []
    layers = check_writes(events, writes, state, bad)
    for want in (("vg0/logs", "real"), ("vg0/snap", "cow"), ("vg0/pool", "tpool"), ("vg0/pool_tdata", "")):
        if want not in layers:
            bad.append(f"no write went through {want[0]} {want[1] or '(the volume)'}: "
                       f"seen {sorted(layers)}")
    widest = check_bounds(spans, writes, cmds, exact, bad)
    if "--module" in args:
        check_module(directory, writes, bad)
    renamed = any(s["dm_renames"] for s in spans)
    if not renamed:
        bad.append("the lvrename is not in the map")
    for what, width in widest.items():
        print(f"# {what}s: {'exact' if width == 0 else 'window'} (widest {width / 1e6:.3f} ms)")
    for line in bad:
        print(f"FAIL: {line}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
