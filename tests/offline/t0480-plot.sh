# The plot: read and write apart, a scale with units on each side of every
# track, the latency named (D2C or Q2C), the recording's gaps shaded, the
# bins' number from --bins or their width from --interval, and the values of
# each bin on hover, in the SVG and in the HTML page, which fetches nothing.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || fail "python3 is missing (scripts/install-deps installs it)"
rec=$top/tests/data/vm61-module.dat

"$BLKMAP" report --plot "$T/p.svg" "$rec" 2>/dev/null || fail "report --plot failed"
"$BLKMAP" report --disks -f csv "$rec" >"$T/disks.csv" 2>/dev/null
python3 - "$T/p.svg" "$T/disks.csv" <<'PY' || fail "the plot of vm61-module.dat"
import csv, re, sys, xml.dom.minidom
svg = open(sys.argv[1]).read()
disks = list(csv.DictReader(open(sys.argv[2])))
doc = xml.dom.minidom.parseString(svg.split("\n", 1)[1])
bins = [g for g in doc.getElementsByTagName("g") if g.getAttribute("class") == "bin"]
fills = {r.getAttribute("fill") for g in bins for r in g.getElementsByTagName("rect")}
# read and write apart: two fills, as many tracks with reads as --disks says
assert len(fills) == 2, fills
titles = [g.getElementsByTagName("title")[0].firstChild.data for g in bins]
reads = sum(int(re.search(r"read [^(]*\((\d+) I/O\)", t).group(1)) for t in titles)
writes = sum(int(re.search(r"write [^(]*\((\d+) I/O\)", t).group(1)) for t in titles)
assert reads == sum(int(r["reads"]) for r in disks), (reads, [r["reads"] for r in disks])
assert writes == sum(int(r["writes"]) for r in disks), writes
# each track's latency panel named D2C or Q2C
texts = [t.firstChild.data for t in doc.getElementsByTagName("text")
         if t.firstChild and t.firstChild.nodeType == t.TEXT_NODE]
tracks = len([r for r in disks if int(r["reads"]) + int(r["writes"])])
d2c = sum(1 for r in disks if int(r["d2c_count"]))
assert sum(1 for t in texts if t == "latency: D2C") == d2c, texts
assert sum(1 for t in texts if t == "latency: Q2C") == tracks - d2c, texts
assert d2c and tracks - d2c, "premise: tracks of both kinds"
assert len(bins) <= 400 * tracks
print(f"# {tracks} tracks, {len(bins)} bins with I/O: {reads} reads, {writes} writes on hover")
PY

# --bins and --interval: the bins' number and width.
"$BLKMAP" report --plot "$T/b.svg" --bins 5 "$rec" 2>/dev/null || fail "--bins 5 failed"
python3 - "$T/b.svg" <<'PY' || fail "--bins 5: more than 5 bins a track"
import re, sys
for track in open(sys.argv[1]).read().split("<g>\n")[1:]:
    n = len(re.findall(r"<g class='bin'><title>([\d.]+) to [\d.]+ s: read", track))
    assert n <= 5, (n, track[:300])
PY
"$BLKMAP" report --plot "$T/i.svg" --interval 250ms -f csv "$rec" >"$T/i.csv" 2>/dev/null ||
	fail "--plot with --interval failed"
grep -q 'bins of 250 ms' "$T/i.svg" || fail "--interval 250ms: the plot does not say its bins"
python3 - "$T/i.svg" <<'PY' || fail "--interval 250ms: bins not 250 ms apart"
import re, sys
bins = [(float(a), float(b)) for a, b in
        re.findall(r"<g class='bin'><title>([\d.]+) to ([\d.]+) s: read", open(sys.argv[1]).read())]
# Each bin lies in one 250 ms interval (cut where the incarnation's life is).
assert len(bins) > 1 and all(int(a / 0.25 + 1e-6) == int(b / 0.25 - 1e-6) for a, b in bins), bins
PY
[ "$(wc -l <"$T/i.csv")" -gt 1 ] || fail "--plot with --interval printed no series"
for bad in "--bins 0" "--bins x" "--bins 100001"; do
	rc=0; "$BLKMAP" report --plot "$T/x.svg" $bad "$rec" >/dev/null 2>&1 || rc=$?
	[ $rc -eq 64 ] || fail "$bad: exit $rc"
done
rc=0; "$BLKMAP" report --plot=- --disks "$rec" >/dev/null 2>"$T/err" || rc=$?
[ $rc -eq 64 ] && grep -q "give no other view" "$T/err" || fail "--plot=- --disks: exit $rc"
rc=0; "$BLKMAP" report --bins 5 "$rec" >/dev/null 2>"$T/err" || rc=$?
[ $rc -eq 64 ] && grep -q "give --plot" "$T/err" || fail "--bins without --plot: exit $rc"
note "--bins and --interval set the plot's bins"

# With --interval, every bin inside the plot, its rates over its own length
# (cut by the window's end and the incarnation's life), as --interval's row.
hot=$top/tests/data/host-hotplug.dat
"$BLKMAP" report --plot "$T/h.svg" --interval 0.3 -f csv "$hot" >"$T/h.csv" 2>"$T/err" ||
	fail "--plot --interval 0.3: $(cat "$T/err")"
python3 - "$T/h.svg" "$T/h.csv" <<'PY' || fail "--plot --interval 0.3: bins off the plot or wrong"
import csv, re, sys
svg, rows = open(sys.argv[1]).read(), list(csv.DictReader(open(sys.argv[2])))
right = 1200 - 110  # WIDTH - RIGHT
for x, w in re.findall(r"<rect x='([\d.]+)' y='[\d.-]+' width='([\d.]+)' height='[\d.]+' fill='#(?:3b7dd8|2ca02c)'", svg):
    assert 270 <= float(x) and float(x) + float(w) <= right + 0.01, ("bar off the plot", x, w)
for cx in re.findall(r"<circle cx='([\d.]+)'", svg):
    assert 270 <= float(cx) <= right + 0.01, ("dot off the plot", cx)
def rate(t):  # the value and half the step it is printed in
    v, unit = t.split()
    u = 1 << 20 if unit == "MiB/s" else 1024
    return float(v) * u, 0.051 * u
cut = 0
for track in svg.split("<g>\n")[1:]:
    key = re.search(r"<text class='key' [^>]*>([^<]+)<", track).group(1)
    mine = [r for r in rows if r["incarnation"] == key and int(r["reads"]) + int(r["writes"])]
    hover = re.findall(r"<g class='bin'><title>[\d.]+ to [\d.]+ s: read ([\d.]+ \w+/s) \(\d+ I/O\), "
                       r"write ([\d.]+ \w+/s)", track)
    assert len(hover) == len(mine), (key, hover, len(mine))
    for (rd, wr), r in zip(hover, mine):
        for (got, tol), want in ((rate(rd), float(r["rkb_s"])), (rate(wr), float(r["wkb_s"]))):
            assert abs(got - want * 1024) <= tol + 52, (key, rd, wr, dict(r))
        cut += int(r["window_to_ns"]) - int(r["window_from_ns"]) < 300000000
assert cut, "premise missing: no bin cut by the window or a life"
print(f"# {cut} bins cut by the window or a life, their rates as --interval's")
PY
note "--plot --interval: bars inside the plot, rates over each bin's own length"

# Gaps shaded; the HTML page: hover values, nothing from the network.
"$BLKMAP" report --plot "$T/loss.html" "$top/tests/data/host-loss.dat" 2>/dev/null ||
	fail "--plot .html failed"
[ "$(grep -c 'events lost on CPU' "$T/loss.html")" -eq 2 ] || fail "the HTML plot lacks its gaps"
grep -q "<g class='bin'><title>" "$T/loss.html" || fail "the HTML plot has no values on hover"
grep -q ':hover' "$T/loss.html" || fail "the HTML plot does not show what is hovered"
grep -Eiq '(src|href)=|<script|@import|url\(' "$T/loss.html" &&
	fail "the HTML plot refers to something outside it"
note "the HTML page: gaps shaded, values on hover, self-contained"

# Offset over time, per incarnation, as iowatcher's io graph: marks for the
# reads and the writes that completed, in their two colours, their counts on
# hover adding up to the incarnation's, each where its I/O was (its time in
# the plot area, its sectors those of a completion of its operation there),
# and the queue depth as a line. Bounded: a fixed grid of cells.
"$BLKMAP" report -f csv "$rec" >"$T/ev.csv" 2>/dev/null || fail "report -f csv failed"
python3 - "$T/p.svg" "$T/disks.csv" "$T/ev.csv" <<'PY' || fail "the offsets of vm61-module.dat"
import csv, re, sys, xml.dom.minidom
svg = open(sys.argv[1]).read()
disks = {r["incarnation"]: r for r in csv.DictReader(open(sys.argv[2]))}
events = list(csv.DictReader(open(sys.argv[3])))
done = [e for e in events if e["event"] in ("block_rq_complete", "block_bio_complete")]
colour = {"#3b7dd8": "reads", "#2ca02c": "writes"}
marks = checked = depth = 0
for track in svg.split("<g>\n")[1:]:
    key = re.search(r"<text class='key' [^>]*>([^<]+)<", track).group(1)
    row = disks[key]
    assert "<g class='offsets'>" in track, ("no offsets track", key)
    area = re.search(r"<g class='offsets'>\n<rect x='270' y='([\d.]+)' width='820' "
                     r"height='([\d.]+)'", track)
    top, h = float(area.group(1)), float(area.group(2))
    part = track.split("<g class='offsets'>", 1)[1].split("</g>\n", 1)[0]
    doc = xml.dom.minidom.parseString("<g>" + part + "</g>")
    got = {"reads": 0, "writes": 0}
    for r in doc.getElementsByTagName("rect"):
        if r.getAttribute("class") != "io":
            continue
        x, w = float(r.getAttribute("x")), float(r.getAttribute("width"))
        y, rh = float(r.getAttribute("y")), float(r.getAttribute("height"))
        assert 270 <= x and x + w <= 1090.01, ("mark off the plot", key, x, w)
        assert top <= y and y + rh <= top + h + 0.01, ("mark off its track", key, y, rh)
        t = r.getElementsByTagName("title")[0].firstChild.data
        m = re.fullmatch(r"[\d.]+ to [\d.]+ s, sectors (\d+) to (\d+): (\d+) (reads|writes)", t)
        assert m and m.group(4) == colour[r.getAttribute("fill")], ("colour", key, t)
        lo, hi, n = int(m.group(1)), int(m.group(2)), int(m.group(3))
        got[m.group(4)] += n
        marks += 1
        if row["kind"] == "partition":
            continue  # its completions are its disk's events
        op = "R" if m.group(4) == "reads" else "W"
        assert any(e["incarnation"] == key and op in e["rwbs"] and
                   lo <= int(e["sector"]) <= hi for e in done), ("no such I/O there", key, t)
        checked += 1
    assert got == {"reads": int(row["reads"]), "writes": int(row["writes"])}, (key, got, row["reads"], row["writes"])
    assert re.search(r"[\d.]+ (KiB|MiB|GiB)</text>", part), ("no unit on the offset scale", key)
    if float(row["queue_depth"]) > 0:
        assert "<polyline class='depth'" in track and "in flight</text>" in track, key
        depth += 1
assert marks <= 2 * 240 * 40 * len(disks)
assert checked and depth, "premise: marks at a disk's sectors, a track with a depth"
print(f"# {marks} marks, {checked} at the sectors of their completions, {depth} depth lines")
PY
"$BLKMAP" report --plot "$T/p.html" "$rec" 2>/dev/null || fail "--plot .html failed"
grep -q "<rect class='io'" "$T/p.html" || fail "the HTML plot has no offsets"
grep -Eiq '(src|href)=|<script|@import|url\(' "$T/p.html" &&
	fail "the HTML plot refers to something outside it"
note "offset over time: reads and writes apart, counted and placed as the events say"

# Scales at round values (1, 2 or 5 x 10^n apart, from 0) with units; the
# latency panel on a log scale (the ticks and every bin's p50 and p99 where
# log10 puts them); the time axis at round seconds, placed where the hover
# times say.
"$BLKMAP" report --plot "$T/r.svg" --interval 0.25 -f csv "$hot" >"$T/r.csv" 2>/dev/null ||
	fail "--plot --interval 0.25 failed"
cat >"$T/ticks.py" <<'PY'
import math, re
UNITS = {"B/s": 1, "KiB/s": 1024, "MiB/s": 1 << 20, "GiB/s": 1 << 30, "B": 1, "KiB": 1024,
         "MiB": 1 << 20, "GiB": 1 << 30, "": 1}
LAT = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
def round_step(step):  # 1, 2 or 5 x 10^n
    m = step / 10 ** math.floor(math.log10(step) + 1e-9)
    return any(abs(m - r) < 1e-6 for r in (1, 2, 5, 10))
def groups(svg, cls):  # runs of ticks at one x, in the order drawn
    out, last = [], None
    for x, y, label in re.findall(r"<text class='%s' x='([\d.]+)' y='([\d.]+)'[^>]*>([^<]*)<" % cls, svg):
        if last != x or not out or (out[-1] and float(y) > out[-1][-1][1]):
            out.append([])
        out[-1].append((float(x), float(y), label))
        last = x
    return out
def linear(svg):
    n = 0
    for g in groups(svg, "tick"):
        vals, units = [], set()
        for _, _, label in g:
            m = re.fullmatch(r"([\d.]+)(?: (\S+))?", label)
            assert m, ("a tick without a value", label)
            vals.append(float(m.group(1)))
            units.add(m.group(2) or "")
        assert len(units) == 1 and units <= UNITS.keys(), ("units", g)
        assert vals[0] == 0 and len(vals) >= 2, ("a scale not from 0", g)
        step = vals[1] - vals[0]
        assert round_step(step), ("not a round step", g)
        assert all(abs(b - a - step) < step * 1e-6 for a, b in zip(vals, vals[1:])), g
        n += 1
    return n
def log_panels(svg):  # each panel's ticks in ns and the fit y = a + b log10(ns)
    out = []
    for g in groups(svg, "logtick"):
        pts = []
        for _, y, label in g:
            v, unit = label.split()
            ns = float(v) * LAT[unit]
            assert round_step(ns), ("not 1, 2 or 5 x 10^n", label)
            pts.append((math.log10(ns), y - 3.5))
        (l0, y0), (l1, y1) = pts[0], pts[-1]
        b = (y1 - y0) / (l1 - l0)
        assert b < 0, ("a latency scale that does not go up", g)
        for l, y in pts:
            assert abs(y0 + b * (l - l0) - y) < 0.15, ("ticks not on a log scale", g)
        out.append((y0 - b * l0, b, min(p[1] for p in pts), max(p[1] for p in pts)))
    return out
def time_axis(svg):  # the ticks' (x, label), and x = a + b t from them
    ticks = [(float(x), label) for x, label in
             re.findall(r"<text class='ttick' x='([\d.]+)'[^>]*>([^<]*)<", svg)]
    assert len(ticks) >= 3, ticks
    return ticks
PY
python3 - "$T/r.svg" "$T/r.csv" "$T/ticks.py" <<'PY' || fail "the plot's scales"
import csv, math, re, sys
exec(open(sys.argv[3]).read())
svg, rows = open(sys.argv[1]).read(), list(csv.DictReader(open(sys.argv[2])))
n = linear(svg)
ticks = time_axis(svg)
vals = [float(re.fullmatch(r"([\d.]+) s", t).group(1)) for _, t in ticks]
step = float(f"{vals[1] - vals[0]:.6g}")
assert round_step(step) and all(abs(v / step - round(v / step)) < 1e-6 for v in vals), vals
b = (ticks[-1][0] - ticks[0][0]) / (vals[-1] - vals[0])
a = ticks[0][0] - b * vals[0]
assert all(abs(a + b * v - x) < 0.1 for (x, _), v in zip(ticks, vals)), ticks
panels = log_panels(svg)
tracks = svg.split("<g>\n")[1:]
assert len(panels) == len(tracks), (len(panels), len(tracks))
checked = 0
for track, (ya, yb, ytop, ybot) in zip(tracks, panels):
    key = re.search(r"<text class='key' [^>]*>([^<]+)<", track).group(1)
    kind = "d2c" if "latency: D2C" in track else "q2c"
    mine = [r for r in rows if r["incarnation"] == key and r[kind + "_p50_us"]]
    first = int(re.search(r"seconds from the start \(([\d.]+)\)", svg).group(1).replace(".", ""))
    lat = re.findall(r"<g class='lat'><title>([\d.]+) to ([\d.]+) s: (D2C|Q2C) p50 ([\d.]+) us, "
                     r"p99 ([\d.]+) us, max ([\d.]+) us \((\d+) I/O[^<]*</title><line [^>]*/>"
                     r"<circle cx='([\d.]+)' cy='([\d.]+)'[^>]*/><circle cx='[\d.]+' cy='([\d.]+)'", track)
    assert len(lat) == len(mine), (key, len(lat), len(mine))
    for t0, t1, k, p50, p99, mx, count, cx, cy50, cy99 in lat:
        assert k.lower() == kind, (key, k)
        r, = [r for r in mine if abs(int(r["window_from_ns"]) - first - float(t0) * 1e9) <= 5e5]
        # the hover values: --interval's p50, p99 and max of that bin
        assert (p50, p99, mx) == (r[kind + "_p50_us"], r[kind + "_p99_us"], r[kind + "_max_us"]), (key, t0, p50, p99, dict(r))
        for v, cy in ((p50, cy50), (p99, cy99)):
            want = min(max(ya + yb * math.log10(float(v) * 1e3), ytop), ybot)
            assert abs(float(cy) - want) < 0.15, ("not where the log scale puts it", key, v, cy, want)
        mid = (float(t0) + float(t1)) / 2
        assert abs(a + b * mid - float(cx)) < 0.6, ("not at its bin's time", key, t0, cx)
        checked += 1
assert checked, "premise: bins with latencies"
print(f"# {n} linear scales at round steps, {len(panels)} log scales, {checked} bins' p50 and p99 as --interval's, placed on them")
PY
note "scales at round values with units; latency on a log scale, p50 and p99 per bin as --interval's"

# The slowest I/Os marked: the ten of --slowest, each on its incarnation's
# latency panel at its completion, its figures on hover.
"$BLKMAP" report --slowest=10 -f csv "$hot" >"$T/slow.csv" 2>/dev/null || fail "--slowest failed"
python3 - "$T/r.svg" "$T/slow.csv" "$T/ticks.py" <<'PY' || fail "the slowest I/Os on the plot"
import csv, re, sys
exec(open(sys.argv[3]).read())
svg, slow = open(sys.argv[1]).read(), list(csv.DictReader(open(sys.argv[2])))
first = int(re.search(r"seconds from the start \(([\d.]+)\)", svg).group(1).replace(".", ""))
ticks = time_axis(svg)
vals = [float(t.split()[0]) for _, t in ticks]
b = (ticks[-1][0] - ticks[0][0]) / (vals[-1] - vals[0])
a = ticks[0][0] - b * vals[0]
marks = {}
for track in svg.split("<g>\n")[1:]:
    key = re.search(r"<text class='key' [^>]*>([^<]+)<", track).group(1)
    for m in re.finditer(r"<g class='slow'><title>slowest #(\d+): (Q2C|D2C) ([\d.]+) us[^<]* at sector "
                         r"(\d+) by [^<]*completed at ([\d.]+) s[^<]*</title><path d='M([\d.]+) ", track):
        marks[int(m.group(1))] = (key,) + m.groups()[1:]
assert len(slow) == 10 and sorted(marks) == list(range(1, 11)), (len(slow), sorted(marks))
for i, r in enumerate(slow, 1):
    key, kind, took, sector, at, x = marks[i]
    want = r["q2c_us"] if kind == "Q2C" else r["d2c_us"]
    assert key == r["incarnation"] and abs(float(took) - float(want)) < 0.0015 and sector == r["sector"], (i, marks[i], dict(r))
    assert abs(float(at) - (int(r["ts_ns"]) - first) / 1e9) < 2e-6, (i, at, r["ts_ns"])
    assert abs(a + b * float(at) - float(x)) < 0.6, ("not at its completion", i, x)
print(f"# the 10 slowest marked on their incarnations' panels, as --slowest lists them")
PY
note "the slowest I/Os marked where and as --slowest says"

# The five busiest processes: their bytes those of the bios they queued (the
# events, each bio with data once, discards apart), their bins' I/O adding up to them.
for f in host-names host-hotplug; do
	"$BLKMAP" report --plot "$T/$f.svg" "$top/tests/data/$f.dat" 2>/dev/null || fail "--plot $f"
	"$BLKMAP" report -f csv "$top/tests/data/$f.dat" >"$T/$f.csv" 2>/dev/null || fail "report $f"
	python3 - "$T/$f.svg" "$T/$f.csv" <<'PY' || fail "the busiest processes of $f"
import collections, csv, re, sys
svg = open(sys.argv[1]).read()
want, ios = collections.Counter(), collections.Counter()
for r in csv.DictReader(open(sys.argv[2])):
    if (r["event"] == "block_bio_queue" and "D" not in r["rwbs"] and int(r["nr_sector"] or 0) and
            ("R" in r["rwbs"] or "W" in r["rwbs"])):
        w = "W" in r["rwbs"]
        want[(int(r["pid"]), w)] += int(r["nr_sector"]) * 512
        ios[(int(r["pid"]), w)] += 1
pids = sorted({p for p, _ in want}, key=lambda p: (-(want[(p, 0)] + want[(p, 1)]), p))[:5]
procs = svg.split("<g class='proc'>")[1:]
got = [re.match(r"<title>[^<]* \((\d+)\): read (\d+) bytes, write (\d+) bytes</title>", p).groups()
       for p in procs]
assert [int(p) for p, _, _ in got] == pids, (got, pids)
assert len(pids) == 5, "premise: five processes or more"
for (pid, rd, wr), body in zip(got, procs):
    pid = int(pid)
    assert (int(rd), int(wr)) == (want[(pid, 0)], want[(pid, 1)]), (pid, rd, wr)
    n = re.findall(r"<g class='pbin'><title>[^<]*read [^(]*\((\d+) I/O\), write [^(]*\((\d+) I/O\)", body)
    assert (sum(int(r) for r, _ in n), sum(int(w) for _, w in n)) == (ios[(pid, 0)], ios[(pid, 1)]), (pid, n)
print(f"# {sys.argv[1].split('/')[-1]}: the five busiest processes, their bytes and bios as the events'")
PY
done
note "the five busiest processes, each bio once, as the events say"

# --time=wall: the time axis at round times of the wall clock, where
# --interval's wall-clock rows put the window's start.
TZ=UTC "$BLKMAP" report --plot "$T/w.svg" --interval 0.25 --time=wall "$top/tests/data/host-names.dat" >"$T/w.txt" 2>/dev/null ||
	fail "--plot --time=wall failed"
python3 - "$T/w.svg" "$T/w.txt" "$T/ticks.py" <<'PY' || fail "the wall-clock axis"
import datetime, re, sys
exec(open(sys.argv[3]).read())
svg, text = open(sys.argv[1]).read(), open(sys.argv[2]).read().splitlines()
ticks = time_axis(svg)
def secs(label):  # seconds of the day
    h, m, s = label.split(":")
    return int(h) * 3600 + int(m) * 60 + float(s)
vals = [secs(t) for _, t in ticks]
step = float(f"{vals[1] - vals[0]:.6g}")
assert round_step(step) and all(abs(v / step - round(v / step)) < 1e-6 for v in vals), vals
b = (ticks[-1][0] - ticks[0][0]) / (vals[-1] - vals[0])
a = ticks[0][0] - b * vals[0]
assert all(abs(a + b * v - x) < 0.1 for (x, _), v in zip(ticks, vals)), ticks
end = re.match(r"\d{4}-\d\d-\d\dT(\d\d:\d\d:[\d.]+)Z", text[1].split()[0]).group(1)
start = secs(end) - 0.25  # the first interval ends 0.25 s after the window's start
assert abs(a + b * start - 270) < 0.1, ("the axis does not start at the window's start", a + b * start)
assert re.search(r"wall clock \(local time\), \d{4}-\d\d-\d\d, UTC\+0000", svg), "no date on the axis"
print(f"# {len(ticks)} wall-clock ticks {step:g} s apart, the window's start at the axis' origin")
PY
note "--time=wall: the time axis on the wall clock"
