# Helpers for the VM tests (tests/vm/t*.sh): those of the live tests, the
# checks that every VM test makes first, and running a scenario.
. "$(dirname "$0")/../live/lib.sh"
need_root
command -v apt-get >/dev/null || skip "not a Debian machine"
top=$(cd "$(dirname "$0")/../.." && pwd)

# in_vm KERNEL SCENARIO OUT [VAR=VALUE...]: run tests/vm/scenarios/SCENARIO.sh
# in KERNEL (default or 6.12), its files into OUT; on failure show its
# console (and hot-plug log) and fail.
in_vm() {
	kernel=$1 scenario=$2 out=$3
	shift 3
	"$top/tests/vm/run" --kernel="$kernel" "$top/tests/vm/scenarios/$scenario.sh" "$out" "$@" ||
		{ cat "$out/console.log" "$out/hotplug.log" 2>/dev/null; fail "$kernel, $*: $scenario failed"; }
}

# reports OUT: OUT/events.csv and OUT/map.csv from OUT/rec.dat, and the map's
# changes shown.
reports() {
	"$BLKMAP" report -f csv "$1/rec.dat" >"$1/events.csv"
	"$BLKMAP" report --map -f csv "$1/rec.dat" >"$1/map.csv"
	"$BLKMAP" report --map "$1/rec.dat" | grep -v 'before the recording'
}
