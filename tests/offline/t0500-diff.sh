#!/bin/sh
# blkmap diff on the suite's recordings:
# - a recording against itself: every incarnation of --disks paired with
#   itself (each row with a match), every change 0, p-values 1 (not small),
#   A's and B's figures --disks' own;
# - two runs a side of the same file: counts twice --disks', rates and
#   latencies as one run's, the runs' spread nil;
# - --pair pairs what it names (match pair), and the pair's p-values are the
#   Mann-Whitney U test's of the D2C and Q2C the events themselves give;
# - what one recording alone has is a row of its own; --disk keeps the rows
#   either side of which it names.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed"; exit 77; }
d=$top/tests/data
for r in "$d"/*.dat; do
	b=$(basename "$r" .dat)
	"$BLKMAP" report -q --disks -f json "$r" >"$T/$b.disks" || fail "$b: report --disks: exit $?"
	"$BLKMAP" diff -q -f json "$r" "$r" >"$T/$b.self" || fail "$b: diff with itself: exit $?"
	"$BLKMAP" diff -q -f json "$r" "$r" -- "$r" "$r" >"$T/$b.runs" ||
		fail "$b: diff of two runs a side: exit $?"
done
python3 - "$T" "$d"/*.dat <<'PY' || fail "a recording against itself is not --disks' own, unchanged"
import json, math, os, sys
tmp, recs = sys.argv[1], sys.argv[2:]
pairs = 0
for rec in recs:
    b = os.path.basename(rec)[:-4]
    disks = {x["incarnation"]: x for x in map(json.loads, open(f"{tmp}/{b}.disks")) if x["incarnation"]}
    for kind in ("self", "runs"):
        rows = [json.loads(l) for l in open(f"{tmp}/{b}.{kind}")]
        seen = set()
        for r in rows:
            if r["incarnation_a"] is None and r["incarnation_b"] is None:
                continue
            where = f"{b} {kind} {r['incarnation_a']}"
            assert r["side"] == "both" and r["match"], f"{where}: alone ({r['side']})"
            assert r["incarnation_a"] == r["incarnation_b"], f"{where}: paired with {r['incarnation_b']}"
            n = 2 if kind == "runs" else 1
            assert r["runs_a"] == n and r["runs_b"] == n, f"{where}: runs {r['runs_a']}, {r['runs_b']}"
            x = disks[r["incarnation_a"]]
            seen.add(r["incarnation_a"])
            for k in ("reads", "writes", "read_bytes", "write_bytes", "q2c_count", "d2c_count"):
                assert r[k + "_a"] == n * x[k] and r[k + "_b"] == n * x[k], \
                    f"{where}: {k} {r[k + '_a']}, {r[k + '_b']}, --disks' {x[k]} x {n}"
            # Percentiles of a run taken twice are not always the run's (nearest rank).
            for k in ("r_s", "w_s", "util_pct", "r_await_ms", "w_await_ms", "q2c_avg_us",
                      "d2c_max_us", "aqu_sz") + ((
                      "q2c_p50_us", "q2c_p99_us", "d2c_p99_us") if n == 1 else ()):
                if x[k] is None:
                    assert r[k + "_a"] is None, f"{where}: {k} {r[k + '_a']}, --disks' null"
                    continue
                assert abs(r[k + "_a"] - x[k]) <= 1e-3 * max(1, abs(x[k])), \
                    f"{where}: {k} {r[k + '_a']}, --disks' {x[k]}"
            for k, v in r.items():
                if k.endswith("_change_pct") and v is not None:
                    assert v == 0, f"{where}: {k} {v}"
            for k in ("q2c", "d2c"):
                p = r[k + "_p_value"]
                assert (p is None) == (x[k + "_count"] == 0), f"{where}: {k}_p_value {p}"
                assert p is None or p == 1, f"{where}: {k}_p_value {p} against itself"
                assert r[k + "_changed"] in (None, False), f"{where}: {k}_changed"
            for k in ("q2c_p50_us", "d2c_p50_us", "r_s", "w_s"):
                assert r[k + "_min_a"] == r[k + "_max_a"] == r[k + "_min_b"], f"{where}: {k} spread"
            pairs += 1
        assert seen == set(disks), f"{b} {kind}: rows for {sorted(seen)}, --disks has {sorted(disks)}"
assert pairs > 20, f"{pairs} pairs: the check proved little"
print(f"# {len(recs)} recordings against themselves, once and two runs a side: {pairs} pairs unchanged")
PY

# --pair: two devices of one recording made a pair; its p-values are those of
# the events' own Q2C and D2C (a Mann-Whitney U test with ties, in python).
r=$d/host-names.dat
"$BLKMAP" diff -q -f json --pair=7:0#4=254:0#1 "$r" "$r" >"$T/pair.json" || fail "diff --pair: exit $?"
"$BLKMAP" report -q -f csv "$r" >"$T/events.csv" || fail "report -f csv: exit $?"
python3 - "$T/pair.json" "$T/events.csv" <<'PY' || fail "--pair's p-values are not the events'"
import csv, json, math, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
pair = [x for x in rows if x["match"] == "pair"]
assert len(pair) == 1 and pair[0]["incarnation_a"] == "7:0#4" and pair[0]["incarnation_b"] == "254:0#1", rows
alone = sorted((x["side"], x["incarnation_a"] or x["incarnation_b"]) for x in rows if x["side"] != "both")
assert alone == [("a", "254:0#1"), ("b", "7:0#4")], f"the rest alone: {alone}"
p = pair[0]
# Per request: D2C from its issue, Q2C from its bio's queue, to its completion.
lat = {"q2c": {}, "d2c": {}}
queued, issued = {}, {}
for e in csv.DictReader(open(sys.argv[2])):
    inc, ev = e["incarnation"], e["event"]
    if not inc or not e["sector"] or e["nr_sector"] == "0":	# flushes: no D2C of their own
        continue
    key = (inc, e["sector"])
    t = int(e["ts_ns"])
    if ev == "block_bio_queue":
        queued.setdefault(key, t)
    elif ev == "block_rq_issue":
        issued[key] = t
    elif ev == "block_rq_complete":
        if key in issued:
            lat["d2c"].setdefault(inc, []).append(t - issued.pop(key))
        if key in queued:
            lat["q2c"].setdefault(inc, []).append(t - queued.pop(key))

def mann_whitney(a, b):
    allv = sorted([(v, 0) for v in a] + [(v, 1) for v in b])
    ra, i, ties, n = 0.0, 0, 0.0, len(allv)
    while i < n:
        j = i
        while j < n and allv[j][0] == allv[i][0]:
            j += 1
        t = j - i
        ra += sum(1 for v in allv[i:j] if v[1] == 0) * (i + (t + 1) / 2)
        ties += t ** 3 - t
        i = j
    na, nb = len(a), len(b)
    u = ra - na * (na + 1) / 2
    var = na * nb / 12 * ((n + 1) - ties / (n * (n - 1)))
    z = (abs(u - na * nb / 2) - 0.5) / math.sqrt(var)
    return 1.0 if z <= 0 else math.erfc(z / math.sqrt(2))

for k in ("d2c", "q2c"):
    a, b = lat[k].get("7:0#4", []), lat[k].get("254:0#1", [])
    assert len(a) >= 20 and len(b) >= 20, f"{k}: {len(a)} and {len(b)} latencies: too few to test"
    assert (len(a), len(b)) == (p[k + "_count_a"], p[k + "_count_b"]), \
        f"{k}: the events give {len(a)} and {len(b)}, the report {p[k + '_count_a']} and {p[k + '_count_b']}"
    want = mann_whitney(a, b)
    got = p[k + "_p_value"]
    # The report tests the latencies in buckets within 3%: the same order of magnitude.
    assert got is not None and abs(math.log10(got) - math.log10(want)) < 0.5, \
        f"{k}: p {got}, the events' {want} ({len(a)} against {len(b)})"
    assert (got < 0.01) == (want < 0.01) == p[k + "_changed"], f"{k}: changed {p[k + '_changed']}"
    print(f"# {k}: p {got} against the events' {want:.3g} ({len(a)} and {len(b)} I/Os)")
PY

# One recording's devices alone; --disk keeps the rows either side named.
"$BLKMAP" diff -q -f csv "$d/vm61-module.dat" "$d/host-names.dat" >"$T/two.csv" || fail "diff: exit $?"
python3 - "$T/two.csv" "$T/host-names.disks" "$T/vm61-module.disks" <<'PY' || fail "rows alone are wrong"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
b = {x["incarnation"] for x in map(json.loads, open(sys.argv[2])) if x["incarnation"]}
a = {x["incarnation"] for x in map(json.loads, open(sys.argv[3])) if x["incarnation"]}
assert {r["incarnation_a"] for r in rows if r["incarnation_a"]} == a, "not every A incarnation has a row"
assert {r["incarnation_b"] for r in rows if r["incarnation_b"]} == b, "not every B incarnation has a row"
for r in rows:
    assert (r["side"] == "both") == bool(r["match"]), r
    if r["side"] == "b":
        assert not r["incarnation_a"] and not r["reads_a"] and r["reads_b"], r
# vda: serial overlayblk in B alone (A's guest has alpha and beta): its own row.
assert any(r["side"] == "b" and r["name_b"] == "vda" for r in rows), "vda, only in B, has no row"
PY
"$BLKMAP" diff -q -f csv --disk=vda "$d/vm61-module.dat" "$d/host-names.dat" >"$T/vda.csv" ||
	fail "diff --disk=vda: exit $?"
[ "$(tail -n +2 "$T/vda.csv" | cut -d, -f2,4,5)" = "b,,vda" ] ||
	fail "--disk=vda kept: $(tail -n +2 "$T/vda.csv" | cut -d, -f1-6)"
if "$BLKMAP" diff -q --pair=nosuch=vda "$r" "$r" >/dev/null 2>"$T/err"; then fail "--pair=nosuch: exit 0"; fi
grep -q "nosuch" "$T/err" || fail "--pair=nosuch said: $(cat "$T/err")"
if "$BLKMAP" diff "$r" >/dev/null 2>&1; then fail "one recording: exit 0"; fi
"$BLKMAP" diff -q "$r" "$r" | grep -q '^matched by serial: overlayblk$' || fail "text names no match"
note "--pair against the events' own test; rows alone; --disk"
