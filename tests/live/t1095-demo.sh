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
# Each detail line of the map (a backing file, a mount) sits under the row
# of its incarnation, as in the whole map: the rows the demo leaves out
# take theirs with them.
"$BLKMAP" report --map "$T/demo.dat" >"$T/map.txt" || fail "report --map failed"
owners() {	# each detail line, after the row it stands under
	awk '/^[^ ]/ { row = $1 } /^ / { print row " |" $0 }'
}
owners <"$T/map.txt" | sort >"$T/owners.full"
sed -n '/^== device map/,/^==/p' "$T/demo.out" | sed '1d;$d' | owners | sort >"$T/owners.demo"
[ -s "$T/owners.demo" ] || fail "premise: no detail line (backing file) in the demo's map"
comm -13 "$T/owners.full" "$T/owners.demo" >"$T/orphans"
[ ! -s "$T/orphans" ] || fail "detail lines under another row than their own: $(cat "$T/orphans")"
