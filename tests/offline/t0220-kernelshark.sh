#!/bin/sh
# The KernelShark plugin, loaded through libkshark as KernelShark loads it:
# every block event's info carries the name blkmap report gives that event
# (and, for a remap, its source's), in every recording of tests/data and in a
# compressed version 7 one.
# sanitized: no (KernelShark cannot load ASan code)
. "$(dirname "$0")/lib.sh"
PLUGIN=${PLUGIN:-$top/build/kernelshark/plugin-blkmap.so}
KS_LABELS=${KS_LABELS:-$top/build/tests/kernelshark/ks-labels}

if [ "${SANITIZED:-}" = 1 ]; then
	echo "SKIP: the sanitized build has no KernelShark plugin (KernelShark cannot load ASan code); the normal build's check tests it"
	exit 77
fi
[ -x "$KS_LABELS" ] && [ -f "$PLUGIN" ] ||
	fail "no KernelShark plugin built: libkshark-dev is needed (scripts/install-deps; make)"

for f in "$top"/tests/data/*.dat "$top"/tests/data/v7/*.dat; do
	name=$(basename "$f")
	"$KS_LABELS" "$PLUGIN" "$f" >"$T/ks" 2>"$T/ks.err" ||
		fail "$name: libkshark with the plugin: $(cat "$T/ks.err")"
	"$BLKMAP" report -f csv "$f" >"$T/csv" 2>/dev/null || fail "$name: blkmap report failed"
	python3 - "$T/ks" "$T/csv" "$name" <<'PY' || exit 1
import csv, re, sys
ks, ours, name = sys.argv[1], sys.argv[2], sys.argv[3]
shown = []
for line in open(ks, encoding="utf-8", errors="replace"):
    m = re.match(r"(\d+) (\S+) .*\[([^\[\]]*)\]$", line.rstrip("\n"))
    if m:
        shown.append((int(m.group(1)), m.group(2), m.group(3)))
    elif re.match(r"\d+ ", line):
        sys.exit("FAIL: %s: no name in KernelShark's info: %s" % (name, line.strip()))
want = []
for r in csv.DictReader(open(ours, encoding="utf-8", errors="replace", newline="")):
    if not r["event"].startswith("block_"):
        continue
    label = r["name"] or "?"
    if r["event"] == "block_bio_remap":
        label += " <- " + (r["old_name"] or "?")
    want.append((int(r["ts_ns"]), r["event"], label))
if not want:
    sys.exit("FAIL: %s: blkmap reports no block events: nothing to compare" % name)
if sorted(shown) != sorted(want):
    diff = sorted(set(want) ^ set(shown))[:5]
    sys.exit("FAIL: %s: KernelShark shows %d labelled block events, blkmap %d; first differences %s"
             % (name, len(shown), len(want), diff))
names = sorted({l for _, _, l in want})
print("# %s: %d block events, named as blkmap names them (%s)" % (name, len(want), ", ".join(names)))
PY
done

# Hostile formats: the plugin refuses the file with the reader's message,
# and KernelShark goes on without it; a dev field past its record labels
# nothing (it is not read).
for f in "$top"/tests/data/bad/field-*.dat; do
	set +e
	"$KS_LABELS" "$PLUGIN" "$f" >"$T/ks" 2>"$T/ks.err"
	status=$?
	set -e
	[ $status -eq 1 ] || fail "$(basename "$f"): ks-labels exit $status, not 1 (plugin not loaded)"
	grep -q "not within a record" "$T/ks.err" && grep -q 'plugin "blkmap" failed to initialize' "$T/ks.err" ||
		fail "$(basename "$f"): the plugin did not refuse it: $(cat "$T/ks.err")"
done
"$KS_LABELS" "$PLUGIN" "$top/tests/data/fuzz/dev-past-record.dat" >"$T/ks" 2>"$T/ks.err" ||
	fail "dev-past-record.dat: ks-labels exit $?"
grep -q "^[0-9]* block_bio_queue .*\[alpha\]$" "$T/ks" ||
	fail "dev-past-record.dat: its sound events are not labelled: $(head -3 "$T/ks")"
! grep "^[0-9]* block_rq_issue" "$T/ks" | grep -q '\] \[[^]]*\]$' ||
	fail "dev-past-record.dat: a label from a dev field past its record: $(grep -m1 block_rq_issue "$T/ks")"
echo "# hostile formats: the plugin refuses them; a dev field past its record is not read"

# Hostile print formats (tests/data/print): with the plugin, KernelShark
# shows every event, the ones whose format fails the check by their fields,
# and says which event and why; its own printer crashed on them (SIGSEGV,
# SIGFPE) or padded for minutes.
for f in "$top"/tests/data/print/*.dat; do
	name=$(basename "$f")
	"$KS_LABELS" "$PLUGIN" "$f" all >"$T/ks" 2>"$T/ks.err" ||
		fail "$name: ks-labels exit $?: $(tail -3 "$T/ks.err")"
	case $name in
	print-*) event=ftrace:print; shown=print ;;
	dev-*) event=synthetic:blkmap_dev; shown=blkmap_dev ;;
	esac
	grep -q "blkmap plugin: $event events are printed by their fields alone: their print format is not safe to follow (..*)" "$T/ks.err" ||
		fail "$name: no warning naming $event: $(cat "$T/ks.err")"
	[ "$(grep -c "^[0-9]* $shown " "$T/ks")" -eq "$("$BLKMAP" report -f csv "$f" 2>/dev/null | grep -c ",${shown},")" ] ||
		fail "$name: KernelShark does not show every $event event"
done
grep -q '^[0-9]* print ip=0x[0-9a-f]* buf=blkmap:' "$T/ks" ||
	fail "print-*.dat: a print event is not shown by its fields: $(grep -m1 '^[0-9]* print' "$T/ks")"
echo "# hostile print formats: KernelShark shows every event, by its fields where the format fails"
