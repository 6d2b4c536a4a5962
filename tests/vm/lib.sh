# Helpers for the VM tests (tests/vm/t*.sh): those of the live tests, the
# checks that every VM test makes first, and running a scenario.
. "$(dirname "$0")/../live/lib.sh"
need_root
command -v apt-get >/dev/null || skip "not a Debian machine"
top=$(cd "$(dirname "$0")/../.." && pwd)

# The lanes: Debian 12's 6.1 (default) and 6.12, Debian 11's 5.10.
# KERNELS="6.12 5.10" runs those alone. With KERNELS unset (the suite) a
# test makes on 5.10 only the runs it names in $on_510, to keep the suite's
# time; with KERNELS naming 5.10, every run there.
lanes=${KERNELS:-default 6.12 5.10}

# runs KERNEL RUN...: the RUNs (a test's sources or variants) to make on
# KERNEL, one a line; each one left out is said on stderr. 5.10's guest has
# no blkmap module (it is not ported there): no run of the module alone.
runs() {
	_kernel=$1
	shift
	for _run in "$@"; do
		if [ "$_kernel" = 5.10 ]; then
			case $_run in
			module) echo "# SKIP: 5.10, $_run: blkmap's module does not build for 5.10" >&2
				continue ;;
			esac
			case " ${on_510:-} " in
			*" $_run "*) ;;
			*) [ -n "${KERNELS:-}" ] ||
				{ echo "# 5.10, $_run: left to KERNELS=5.10 (the suite runs ${on_510:-none} there)" >&2
				  continue; } ;;
			esac
		fi
		echo "$_run"
	done
}

# in_vm KERNEL SCENARIO OUT [VAR=VALUE...]: run tests/vm/scenarios/SCENARIO.sh
# in KERNEL (default, 6.12 or 5.10), its files into OUT; on failure show its
# console (and hot-plug log) and fail. MODULE=1 where the guest has no
# module (5.10) runs without it, and tests/vm/run says so (SKIP).
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
