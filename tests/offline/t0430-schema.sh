#!/bin/sh
# A script written against `blkmap report --schema` alone loads every view of
# every recording in tests/data, CSV and JSON, with no special case: the same
# keys in the same order, every key on every line, values of the key's type
# (integers within int64), the same values in both formats; and every key is
# in blkmap-report(1) (diff's in blkmap-diff(1), its figures as --disks').
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed to check the schema"; exit 77; }

"$BLKMAP" report --schema >"$T/schema.jsonl" || fail "report --schema: exit $?"
"$BLKMAP" report --schema=disks >"$T/disks.jsonl" || fail "report --schema=disks: exit $?"
if "$BLKMAP" report --schema=nosuch >/dev/null 2>"$T/err"; then fail "--schema=nosuch exited 0"; fi
grep -q "schema takes a view" "$T/err" || fail "--schema=nosuch said: $(cat "$T/err")"
# report(1) lists the units --schema uses, and no other.
python3 - "$T/schema.jsonl" "$top/man/blkmap-report.1" <<'PY' || fail "report(1)'s units are not --schema's"
import json, re, sys
used = {json.loads(line)["unit"] for line in open(sys.argv[1])} - {""}
page = open(sys.argv[2]).read()
listed = set(re.search(r"^\(([^;\n]*); empty for none\),$", page, re.M).group(1).split(", "))
assert used == listed, f"--schema uses {sorted(used)}, report(1) lists {sorted(listed)}"
PY

# --no-header: the same rows without the header row, in every view; -q: no warnings.
loss=$top/tests/data/host-loss.dat
for view in "" --map --conflicts --disks --latency --top --stack --phases; do
	"$BLKMAP" report -q $view -f csv "$loss" >"$T/with.csv" 2>"$T/err" || fail "$view: exit $?"
	[ ! -s "$T/err" ] || fail "report -q $view said: $(cat "$T/err")"
	"$BLKMAP" report -q $view -f csv --no-header "$loss" >"$T/without.csv" 2>/dev/null
	tail -n +2 "$T/with.csv" | cmp -s - "$T/without.csv" || fail "$view --no-header: not the rows alone"
done
"$BLKMAP" report --disks "$loss" 2>&1 >/dev/null | grep -q 'lost' || fail "host-loss.dat warns of no loss without -q"

python3 - "$BLKMAP" "$T" "$top/man/blkmap-report.1" "$top/man/blkmap-diff.1" "$top"/tests/data/*.dat \
	"$top"/tests/data/real/*.dat "$top"/tests/data/v7/*.dat <<'PY'
import csv, io, json, subprocess, sys

blkmap, tmp, man, diff_man, recordings = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
schema = {}
for line in open(tmp + "/schema.jsonl", encoding="utf-8"):
    k = json.loads(line)
    assert set(k) == {"view", "key", "type", "unit", "meaning", "format_version"}, k
    assert k["type"] in ("integer", "number", "string", "boolean"), k
    schema.setdefault(k["view"], []).append(k)
disks = [json.loads(line)["key"] for line in open(tmp + "/disks.jsonl", encoding="utf-8")]
assert disks == [k["key"] for k in schema["disks"]], "--schema=disks is not --schema's disks"
man_text = open(man, encoding="utf-8").read().replace("\\-", "-").replace("\\_", "_")
diff_text = open(diff_man, encoding="utf-8").read().replace("\\-", "-").replace("\\_", "_")
for view, keys in schema.items():
    for k in keys:
        if view != "diff":
            assert k["key"] in man_text, f"{view}.{k['key']} is not in blkmap-report(1)"
            continue
        # diff: a --disks figure's KEY_a, KEY_b, KEY_change_pct, or its own keys.
        base = next((k["key"][:-len(s)] for s in ("_a", "_b", "_change_pct")
                     if k["key"].endswith(s) and k["key"][:-len(s)] in disks), None)
        assert base or k["key"] in diff_text, f"diff.{k['key']} is not in blkmap-diff(1)"
    assert keys[-1]["key"] == "format_version", f"{view}: format_version is not its last key"

INT64 = (-2**63, 2**63 - 1)

def from_csv(text, kind):
    if text == "":
        return None
    if kind == "integer":
        return int(text)
    if kind == "number":
        return float(text)
    if kind == "boolean":
        assert text in ("true", "false"), text
        return text == "true"
    return text

def check_value(where, key, kind, v):
    if v is None:
        return
    if kind == "integer":
        assert type(v) is int and INT64[0] <= v <= INT64[1], f"{where}: {key}={v!r} is no int64"
    elif kind == "number":
        assert type(v) in (int, float), f"{where}: {key}={v!r} is no number"
    elif kind == "boolean":
        assert type(v) is bool, f"{where}: {key}={v!r} is no boolean"
    else:
        assert type(v) is str, f"{where}: {key}={v!r} is no string"

def run(args):
    p = subprocess.run([blkmap] + (args if args[0] == "diff" else ["report"] + args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.returncode == 0, f"{args}: exit {p.returncode}: {p.stderr.decode(errors='replace')}"
    return p.stdout.decode("utf-8", errors="surrogateescape")

# The views a recording has offline; interval is blkmap top's (tests/live/t2070).
flags = {"events": [], "map": ["--map"], "conflicts": ["--conflicts"], "disks": ["--disks"],
         "latency": ["--latency"], "top": ["--top"], "stack": ["--stack"],
         "slowest": ["--slowest"],
         "phases": ["--phases"], "cgroups": ["--cgroups"], "diff": ["diff", "REC"]}
assert set(flags) | {"interval"} == set(schema), f"views: {sorted(schema)}"
rows_seen = {}
for rec in recordings:
    for view, flag in flags.items():
        keys = [k["key"] for k in schema[view]]
        kinds = {k["key"]: k["type"] for k in schema[view]}
        where = f"{rec.split('/tests/data/')[-1]} {view}"
        flag = [rec if a == "REC" else a for a in flags[view]]
        text = run(flag + ["-f", "csv", rec])
        rows = list(csv.reader(io.StringIO(text, newline="")))
        assert rows and rows[0] == keys, f"{where}: CSV header {rows[:1]} is not {keys}"
        csv_rows = []
        for n, row in enumerate(rows[1:], 2):
            assert len(row) == len(keys), f"{where}: CSV line {n} has {len(row)} fields"
            d = {k: from_csv(v, kinds[k]) for k, v in zip(keys, row)}
            for k in keys:
                check_value(f"{where} CSV line {n}", k, kinds[k], d[k])
            csv_rows.append(d)
        json_rows = []
        for n, line in enumerate(run(flag + ["-f", "json", rec]).splitlines(), 1):
            d = json.loads(line)
            assert list(d) == keys, f"{where}: JSON line {n}: keys {list(d)} are not {keys}"
            for k in keys:
                check_value(f"{where} JSON line {n}", k, kinds[k], d[k])
            json_rows.append(d)
        assert len(csv_rows) == len(json_rows), f"{where}: {len(csv_rows)} CSV rows, {len(json_rows)} JSON"
        for n, (c, j) in enumerate(zip(csv_rows, json_rows), 1):
            for k in keys:
                same = c[k] == j[k] or (kinds[k] == "number" and c[k] is not None and
                                        j[k] is not None and abs(c[k] - j[k]) < 1e-9)
                assert same, f"{where} row {n}: {k} is {c[k]!r} in CSV, {j[k]!r} in JSON"
            assert j["format_version"] == schema[view][0]["format_version"], f"{where}: format_version"
        rows_seen[view] = rows_seen.get(view, 0) + len(json_rows)
for view in flags:
    if view != "conflicts":
        assert rows_seen.get(view), f"no recording had a {view} row: the check proved nothing"
print(f"# {len(recordings)} recordings, {len(flags)} views, CSV and JSON: "
      + ", ".join(f"{v} {n}" for v, n in sorted(rows_seen.items())) + " rows as --schema says")
PY
