# The README's demo: it runs, and when the recorder fails it shows the
# recorder's own messages and exits 1.
. "$(dirname "$0")/lib.sh"
need_root
top=$(cd "$(dirname "$0")/../.." && pwd)

cat >"$T/dying-blkmap" <<'STUB'
#!/bin/sh
echo "blkmap: cannot create tracefs instance 'blkmap-1': stub failure" >&2
exit 1
STUB
chmod +x "$T/dying-blkmap"
if BLKMAP=$T/dying-blkmap "$top/scripts/demo" "$T/dead.dat" >"$T/dead.out" 2>&1; then
	fail "the demo passed with a recorder that died"
fi
grep -q "stub failure" "$T/dead.out" || fail "the demo hid the recorder's message: $(cat "$T/dead.out")"

BLKMAP=$BLKMAP "$top/scripts/demo" "$T/demo.dat" >"$T/demo.out" 2>&1 ||
	fail "the demo failed: $(cat "$T/demo.out")"
grep -q "^== device map" "$T/demo.out" || fail "no device map in: $(cat "$T/demo.out")"
grep -q "loop[0-9]*p1" "$T/demo.out" || fail "no partition in the demo's map: $(cat "$T/demo.out")"
assert_clean
