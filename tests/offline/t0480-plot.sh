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
