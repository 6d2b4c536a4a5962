# The HTML plot in a real browser: Debian's chromium, headless, loads it with
# no console message (the page has no script: any message is a fault), parses
# every hover value into its DOM, and those values are --interval's for the
# same bins; the SVG alone parses too. Skipped, loudly, only where chromium
# cannot be installed (scripts/install-deps installs it).
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || fail "python3 is missing (scripts/install-deps installs it)"
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
	if apt-cache policy chromium 2>/dev/null | grep -q 'Candidate: [0-9]'; then
		fail "chromium is missing: scripts/install-deps installs it"
	fi
	echo "SKIP: chromium cannot be installed here (apt has no candidate for it): the HTML plot is not tried in a browser"
	exit 77
fi

# load PAGE OUT: the DOM chromium made of PAGE in OUT, its console in OUT.log.
load() {
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$T/profile" --enable-logging=stderr --v=0 \
		--dump-dom "file://$1" >"$2" 2>"$2.log" || fail "chromium could not load $1: $(tail -3 "$2.log")"
}
# console OUT: the console messages of the page (INFO:CONSOLE lines).
console() { grep 'CONSOLE' "$1.log" || true; }

# The premise: a page whose script fails is seen to fail.
printf '<!DOCTYPE html><html><body><script>nosuchfunction();</script></body></html>\n' >"$T/bad.html"
load "$T/bad.html" "$T/bad.dom"
console "$T/bad.dom" | grep -q 'nosuchfunction' ||
	fail "premise: chromium's console did not show a failing script: $(cat "$T/bad.dom.log")"

hot=$top/tests/data/host-hotplug.dat
"$BLKMAP" report --plot "$T/p.html" --interval 0.25 -f csv "$hot" >"$T/i.csv" 2>/dev/null ||
	fail "--plot p.html --interval 0.25 failed"
"$BLKMAP" report --slowest=10 -f csv "$hot" >"$T/slow.csv" 2>/dev/null || fail "--slowest failed"
load "$T/p.html" "$T/p.dom"
[ -z "$(console "$T/p.dom")" ] || fail "the HTML plot wrote to the console: $(console "$T/p.dom")"
python3 - "$T/p.html" "$T/p.dom" "$T/i.csv" "$T/slow.csv" <<'PY' || fail "the HTML plot's DOM in chromium"
import csv, re, sys
from html.parser import HTMLParser

class Hover(HTMLParser):
    """Each hover title with its group's class, and each track's key, in order."""
    def __init__(self):
        super().__init__()
        self.stack, self.items, self.svg, self.err, self.text = [], [], 0, 0, None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.svg += tag == "svg"
        self.err += tag == "parsererror"
        if tag == "title" and self.stack:
            self.text = ("title", self.stack[-1])
        elif tag == "text" and a.get("class") == "key":
            self.text = ("key", None)
        if tag == "g":
            self.stack.append(a.get("class", ""))
        self.buf = ""
    def handle_endtag(self, tag):
        if tag == "g" and self.stack:
            self.stack.pop()
        if tag in ("title", "text") and self.text:
            self.items.append((self.text[0], self.text[1], self.buf))
            self.text = None
    def handle_data(self, data):
        if self.text:
            self.buf += data

def parse(path):
    h = Hover()
    h.feed(open(path).read())
    return h

page, dom = parse(sys.argv[1]), parse(sys.argv[2])
rows = list(csv.DictReader(open(sys.argv[3])))
slow = list(csv.DictReader(open(sys.argv[4])))
assert dom.svg == 1 and not dom.err, ("no SVG in the DOM, or a parse error", dom.svg, dom.err)
# every hover value of the page is in the browser's DOM, in its order
assert dom.items == page.items and len(dom.items) > 20, (len(dom.items), len(page.items))
key, bins, lats, slows, procs = None, 0, 0, 0, 0
first = None
for kind, cls, text in dom.items:
    if kind == "key":
        key = text
        continue
    m = re.match(r"([\d.]+) to ([\d.]+) s: ", text)
    mine = [r for r in rows if r["incarnation"] == key] if key else []
    if cls == "bin":
        m2 = re.fullmatch(r"([\d.]+) to ([\d.]+) s: read ([\d.]+) (KiB|MiB)/s \((\d+) I/O\), "
                          r"write ([\d.]+) (KiB|MiB)/s \((\d+) I/O\)", text)
        assert m2, text
        t0 = float(m2.group(1))
        # the row of that incarnation whose window starts there (ms, as printed);
        # the plot's times are from the first interval's start
        if first is None:
            first = min(int(r["time_ns"]) - round(float(r["interval_s"]) * 1e9) for r in rows)
        r = [r for r in mine if abs((int(r["window_from_ns"]) - first) / 1e9 - t0) < 0.0006]
        assert len(r) == 1, (key, text, len(r))
        r = r[0]
        assert (int(m2.group(5)), int(m2.group(8))) == (int(r["reads"]), int(r["writes"])), (key, text, dict(r))
        for v, unit, want in ((m2.group(3), m2.group(4), r["rkb_s"]), (m2.group(6), m2.group(7), r["wkb_s"])):
            got = float(v) * (1024 if unit == "MiB" else 1)
            assert abs(got - float(want)) <= 0.051 * (1024 if unit == "MiB" else 1) + 0.051, (key, text, want)
        bins += 1
    elif cls == "lat":
        m2 = re.match(r"([\d.]+) to [\d.]+ s: (D2C|Q2C) p50 ([\d.]+) us, p99 ([\d.]+) us, max ([\d.]+) us", text)
        k = m2.group(2).lower()
        r = [r for r in mine if r[k + "_p50_us"] == m2.group(3) and r[k + "_p99_us"] == m2.group(4)
             and r[k + "_max_us"] == m2.group(5)]
        assert r, (key, text)
        lats += 1
    elif cls == "slow":
        m2 = re.match(r"slowest #(\d+): (Q2C|D2C) ([\d.]+) us", text)
        r = slow[int(m2.group(1)) - 1]
        assert r["incarnation"] == key, (key, text, r["incarnation"])
        assert abs(float(m2.group(3)) - float(r[m2.group(2).lower() + "_us"])) < 0.0015, (text, dict(r))
        slows += 1
    elif cls in ("pbin", "proc"):
        procs += 1
assert bins and lats and slows == len(slow) and procs, (bins, lats, slows, procs)
print(f"# in chromium's DOM: {bins} bins' rates and counts, {lats} bins' p50/p99/max as --interval's, "
      f"{slows} slowest as --slowest's, {procs} process values")
PY
note "the HTML plot loads in chromium without a console message, its hover values --interval's"

# The SVG alone, as a browser opens a file: parsed whole, no error shown.
"$BLKMAP" report --plot "$T/p.svg" "$hot" 2>/dev/null || fail "--plot p.svg failed"
load "$T/p.svg" "$T/svg.dom"
[ -z "$(console "$T/svg.dom")" ] || fail "the SVG plot wrote to the console: $(console "$T/svg.dom")"
grep -q 'parsererror\|error on line' "$T/svg.dom" && fail "chromium could not parse the SVG plot"
[ "$(grep -o "<g class=\"bin\">" "$T/svg.dom" | wc -l)" -eq "$(grep -o "<g class='bin'>" "$T/p.svg" | wc -l)" ] ||
	fail "chromium's DOM of the SVG lacks bins"
note "the SVG plot parses in chromium"
