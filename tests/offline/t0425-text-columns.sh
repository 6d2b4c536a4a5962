#!/bin/sh
# Text columns stay put: a long name (a loop device's file and mount point,
# "vda (on /)") or a wall-clock time widens its column for every row, as
# ps and lsblk size theirs, so DEV#N starts at the same column in every row
# of every text view, the header's included.
. "$(dirname "$0")/lib.sh"

f=$top/tests/data/host-names.dat
"$BLKMAP" report --disks "$f" | grep -q "snap on /" ||
	fail "no long name in --disks of $f (test premise): $("$BLKMAP" report --disks "$f")"
check() {
	"$BLKMAP" report "$@" "${file:-$f}" 2>"$T/err" >"$T/out" || fail "$*: exit $?: $(cat "$T/err")"
	# The header's DEV#N column; every row whose incarnation key is there.
	awk -v view="$*" '
	/DEV#N/ && !col { col = index($0, "DEV#N"); next }
	col && match($0, / [0-9]+:[0-9]+#[0-9]+ /) {
		rows++
		if (RSTART + 1 != col) { printf "%s: DEV#N at column %d, not %d: %s\n", view, RSTART + 1, col, $0; exit 1 }
	}
	END { if (!rows) { printf "%s: no row with an incarnation\n", view; exit 1 } }' "$T/out" >"$T/bad" ||
		fail "$(cat "$T/bad")"
}
check --disks
check --disks --time=wall
check --top
file=$top/tests/data/vm61-module.dat check --stack
check --interval 1s
check --interval 1s --time=wall
check --interval 100ms --time=rel
note "DEV#N holds its column in --disks, --top, --stack and --interval"
