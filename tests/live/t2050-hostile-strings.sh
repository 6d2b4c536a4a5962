# A process whose name holds control characters and bytes that are not
# UTF-8: every JSON line still parses, with the name escaped and replaced as
# blkmap-report(1) says, and the CSV keeps its columns.
. "$(dirname "$0")/lib.sh"
need_root
command -v python3 >/dev/null || skip "no python3 to parse the JSON"

truncate -s 16M "$T/img"
L=$(new_loop "$T/img")
hostile=$(printf 'd\001\033[31m\377"q,')
cp "$(command -v dd)" "$T/$hostile"
"$BLKMAP" record -q -o "$T/rec.dat" -- "$T/$hostile" if=/dev/zero of="$L" bs=4k count=4 \
	oflag=direct 2>/dev/null || fail "record failed"
for view in "" --top; do
	"$BLKMAP" report $view --format=json "$T/rec.dat" >"$T/out.json" ||
		fail "report $view --format=json failed"
	python3 - "$T/out.json" <<'PY' || fail "report $view: a JSON line does not parse"
import json, sys
want = "d\u0001\u001b[31m\ufffd\"q,"
seen = 0
for n, raw in enumerate(open(sys.argv[1], "rb"), 1):
    try:
        rec = json.loads(raw.decode("utf-8"))
    except ValueError as e:
        sys.exit("line %d: %s: %r" % (n, e, raw[:200]))
    seen += rec.get("comm") == want
if not seen:
    sys.exit("no record names the process %r" % want)
PY
done
"$BLKMAP" report --format=csv "$T/rec.dat" >"$T/out.csv" || fail "report --format=csv failed"
python3 - "$T/out.csv" <<'PY' || fail "the CSV does not keep its columns"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], encoding="utf-8", errors="surrogateescape", newline="")))
bad = [r for r in rows if len(r) != len(rows[0])]
if bad:
    sys.exit("%d rows of %d columns, not %d: %r" % (len(bad), len(bad[0]), len(rows[0]), bad[0]))
if not any(r[3].startswith("d\x01") for r in rows[1:]):
    sys.exit("no row names the process")
PY
