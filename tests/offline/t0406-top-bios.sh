# --top counts the bios processes queued (as biotop does), --disks the
# requests the kernel completed (as iostat does): the text headers and the
# schema say which, and the bytes agree per incarnation, on every recording
# in tests/data, however the counts differ (merges, splits, empty flushes).
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || fail "python3 is missing (scripts/install-deps installs it)"

f=$top/tests/data/host-names.dat
"$BLKMAP" report --top "$f" | head -1 | grep -q " R_BIOS  *W_BIOS " ||
	fail "--top's header does not say it counts bios: $("$BLKMAP" report --top "$f" | head -1)"
"$BLKMAP" report --disks "$f" | head -1 | grep -q " R_RQS  *W_RQS " ||
	fail "--disks' header does not say it counts requests: $("$BLKMAP" report --disks "$f" | head -1)"
"$BLKMAP" report --schema >"$T/schema.json"
grep -q '"view":"top","key":"reads",.*"meaning":"read bios' "$T/schema.json" ||
	fail "the schema's top reads say nothing of bios: $(grep '"view":"top","key":"reads"' "$T/schema.json")"
grep -q '"view":"disks","key":"reads",.*"meaning":"read requests' "$T/schema.json" ||
	fail "the schema's disks reads say nothing of requests: $(grep '"view":"disks","key":"reads"' "$T/schema.json")"

differ=0
for rec in "$top"/tests/data/*.dat "$top"/tests/data/v7/*.dat; do
	"$BLKMAP" report --top -f csv "$rec" >"$T/top.csv" 2>/dev/null || fail "${rec##*/}: --top failed"
	"$BLKMAP" report --disks -f csv "$rec" >"$T/disks.csv" 2>/dev/null || fail "${rec##*/}: --disks failed"
	python3 - "$T/top.csv" "$T/disks.csv" "${rec##*/}" >"$T/out" <<'PY' || fail "$(cat "$T/out")"
import csv, sys
top, disks = {}, {}
for r in csv.DictReader(open(sys.argv[1])):
    t = top.setdefault(r["incarnation"], [0, 0, 0])
    t[0] += int(r["read_bytes"]); t[1] += int(r["write_bytes"])
    t[2] += int(r["reads"]) + int(r["writes"])
for r in csv.DictReader(open(sys.argv[2])):
    disks[r["incarnation"]] = [int(r["read_bytes"]), int(r["write_bytes"]),
                               int(r["reads"]) + int(r["writes"])]
bad = [f"{k}: --top {t[:2]} bytes, --disks {disks.get(k)}" for k, t in top.items()
       if k not in disks or disks[k][:2] != t[:2]]
if bad:
    print(f"{sys.argv[3]}: bytes differ: " + "; ".join(bad)); sys.exit(1)
print(sum(1 for k, t in top.items() if disks[k][2] != t[2]))
PY
	differ=$((differ + $(cat "$T/out")))
done
[ $differ -gt 0 ] || fail "premise missing: no incarnation whose bios and requests differ in number"
note "bytes agree per incarnation; $differ incarnations count more bios than requests or fewer"
