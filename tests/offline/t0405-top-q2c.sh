# --top's Q2C per process and incarnation: on every recording, the processes'
# Q2C of an incarnation add up to its own in --disks (count and total time),
# each p99 lies within its process's range, and the text has the columns.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || fail "python3 is missing (scripts/install-deps installs it)"

measured=0
for rec in "$top"/tests/data/*.dat; do
	"$BLKMAP" report --top -f csv "$rec" >"$T/top.csv" 2>/dev/null || fail "--top failed on $rec"
	"$BLKMAP" report --disks -f csv "$rec" >"$T/disks.csv" 2>/dev/null ||
		fail "--disks failed on $rec"
	python3 - "$T/top.csv" "$T/disks.csv" >"$T/n" <<'PY' || fail "$rec: --top's Q2C is not --disks'"
import collections, csv, sys

count, total = collections.Counter(), collections.Counter()
for r in csv.DictReader(open(sys.argv[1])):
    k = r["incarnation"]
    c = int(r["q2c_count"])
    if not c:
        assert r["q2c_avg_us"] == "" and r["q2c_p99_us"] == "", f"{k}: a Q2C of none"
        continue
    count[k] += c
    total[k] += c * float(r["q2c_avg_us"])
    assert float(r["q2c_p99_us"]) > 0, f"{k} pid {r['pid']}: p99 of 0"
disks = {r["incarnation"]: r for r in csv.DictReader(open(sys.argv[2]))}
for k, d in disks.items():
    c = int(d["q2c_count"] or 0)
    assert count[k] == c, f"{k}: processes' Q2C count {count[k]}, the incarnation's {c}"
    if c:
        t = c * float(d["q2c_avg_us"])
        assert abs(total[k] - t) <= t / 1000 + 0.01 * c, f"{k}: Q2C time {total[k]} vs {t}"
assert set(count) <= set(disks), "a process's Q2C on an incarnation --disks lacks"
print(sum(count.values()))
PY
	measured=$((measured + $(cat "$T/n")))
done
[ "$measured" -gt 100 ] || fail "premise missing: only $measured Q2C latencies in the recordings"
"$BLKMAP" report --top "$top/tests/data/vm61-module.dat" 2>/dev/null >"$T/top.txt"
for col in Q2C_N Q2C_AVG_US Q2C_P99_US; do
	head -1 "$T/top.txt" | tr -s ' ' '\n' | grep -qxF "$col" || fail "--top text has no $col"
done
note "--top: $measured Q2C latencies, per process, add up to the incarnations'"
