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
# each track's scales: throughput with its unit, latency in ms named D2C or Q2C
texts = [t.firstChild.data for t in doc.getElementsByTagName("text") if t.firstChild]
tracks = len([r for r in disks if int(r["reads"]) + int(r["writes"])])
assert sum(1 for t in texts if re.fullmatch(r"[\d.]+ (KiB|MiB)/s", t)) == tracks, texts
assert sum(1 for t in texts if re.fullmatch(r"[\d.]+ ms", t) and t != "0 ms") == tracks, texts
d2c = sum(1 for r in disks if int(r["d2c_count"]))
assert sum(1 for t in texts if t == "D2C mean") == d2c, texts
assert sum(1 for t in texts if t == "Q2C mean") == tracks - d2c, texts
assert d2c and tracks - d2c, "premise: tracks of both kinds"
assert len(bins) <= 400 * tracks
print(f"# {tracks} tracks, {len(bins)} bins with I/O: {reads} reads, {writes} writes on hover")
PY

# --bins and --interval: the bins' number and width.
"$BLKMAP" report --plot "$T/b.svg" --bins 5 "$rec" 2>/dev/null || fail "--bins 5 failed"
python3 - "$T/b.svg" <<'PY' || fail "--bins 5: more than 5 bins a track"
import re, sys
svg = open(sys.argv[1]).read()
starts = set(re.findall(r"<title>([\d.]+) to [\d.]+ s: read", svg))
assert 1 < len(starts) <= 5, starts
PY
"$BLKMAP" report --plot "$T/i.svg" --interval 250ms -f csv "$rec" >"$T/i.csv" 2>/dev/null ||
	fail "--plot with --interval failed"
grep -q 'bins of 250 ms' "$T/i.svg" || fail "--interval 250ms: the plot does not say its bins"
python3 - "$T/i.svg" <<'PY' || fail "--interval 250ms: bins not 250 ms apart"
import re, sys
starts = sorted({float(s) for s in re.findall(r"<title>([\d.]+) to [\d.]+ s: read",
                                               open(sys.argv[1]).read())})
assert len(starts) > 1 and all(abs(s / 0.25 - round(s / 0.25)) < 1e-6 for s in starts), starts
PY
[ "$(wc -l <"$T/i.csv")" -gt 1 ] || fail "--plot with --interval printed no series"
for bad in "--bins 0" "--bins x" "--bins 100001"; do
	rc=0; "$BLKMAP" report --plot "$T/x.svg" $bad "$rec" >/dev/null 2>&1 || rc=$?
	[ $rc -eq 64 ] || fail "$bad: exit $rc"
done
rc=0; "$BLKMAP" report --bins 5 "$rec" >/dev/null 2>"$T/err" || rc=$?
[ $rc -eq 64 ] && grep -q "give --plot" "$T/err" || fail "--bins without --plot: exit $rc"
note "--bins and --interval set the plot's bins"

# Gaps shaded; the HTML page: hover values, nothing from the network.
"$BLKMAP" report --plot "$T/loss.html" "$top/tests/data/host-loss.dat" 2>/dev/null ||
	fail "--plot .html failed"
[ "$(grep -c 'events lost on CPU' "$T/loss.html")" -eq 2 ] || fail "the HTML plot lacks its gaps"
grep -q "<g class='bin'><title>" "$T/loss.html" || fail "the HTML plot has no values on hover"
grep -q ':hover' "$T/loss.html" || fail "the HTML plot does not show what is hovered"
grep -Eiq '(src|href)=|<script|@import|url\(' "$T/loss.html" &&
	fail "the HTML plot refers to something outside it"
note "the HTML page: gaps shaded, values on hover, self-contained"
