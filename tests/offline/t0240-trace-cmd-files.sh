#!/bin/sh
# Recordings made by trace-cmd on other machines (tests/data/real: 32-bit
# ARM, arm64, x86_64, i686; versions 6 and 7): blkmap lists the same events
# as `trace-cmd report -t`, in the same order, with the same times, CPUs
# and pids, and prints them as trace-cmd does (its plugins, trace_printk's
# formats, markers' addresses, whole kernel stacks).
. "$(dirname "$0")/lib.sh"

command -v trace-cmd >/dev/null || fail "trace-cmd is needed to compare with (scripts/install-deps)"
mkdir "$T/bin"
ln -s "$BLKMAP" "$T/bin/blkmap"
PATH=$T/bin:$PATH python3 "$top/tests/lib/compare_tracecmd.py" "$top"/tests/data/real/*.dat >"$T/out" ||
	{ cat "$T/out"; fail "blkmap lists other events than trace-cmd"; }
sed 's/^/# /' "$T/out"
total=$(awk '/^TOTAL/ {print $3}' "$T/out") same=$(awk '/^TOTAL/ {print $7}' "$T/out")
[ "$total" -gt 30000 ] || fail "only $total events compared"
# At least 99.5 % printed as trace-cmd prints them.
[ $((same * 1000)) -ge $((total * 995)) ] || fail "$same of $total events print as trace-cmd prints them"
