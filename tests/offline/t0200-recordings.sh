# Recorded fixtures read in every view and format, without privileges; damaged
# files are refused with the offset of the problem, never a crash.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
BLKMAP=${BLKMAP:-$top/blkmap}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "# $*"; }
. "$top/tests/lib/labels.sh"

for f in "$top"/tests/data/*.dat; do
	name=$(basename "$f")
	for view in "" --map; do
		for format in text csv json; do
			"$BLKMAP" report $view -f $format "$f" >"$T/out" 2>"$T/err" ||
				fail "$name $view $format: exit $? ($(cat "$T/err"))"
			[ -s "$T/out" ] || fail "$name $view $format: empty"
			case $format in
			csv)	# every row has the header's number of fields
				awk -F, 'NR == 1 { n = NF } NR > 1 && !/"/ && NF != n { exit 1 }' "$T/out" ||
					fail "$name $view csv: rows and header disagree" ;;
			json)	if command -v python3 >/dev/null; then
					python3 -c 'import json, sys
for line in sys.stdin: json.loads(line)' <"$T/out" || fail "$name $view json: not JSON Lines"
				fi ;;
			esac
		done
	done
	note "$name: $(grep -c . "$T/out") map rows, every view and format"
done

# A recording made in a guest with the module: each write the scenario logged
# carries its device's name.
"$BLKMAP" report -f csv "$top/tests/data/vm61-module.dat" >"$T/events.csv"
check_writes "$top/tests/data/vm61-module.writes" "$T/events.csv"
"$BLKMAP" report --map -f csv "$top/tests/data/vm61-module.dat" >"$T/map.csv"
check_map "$top/tests/data/vm61-module.writes" "$T/map.csv"
check_exact "$top/tests/data/vm61-module.writes" "$T/map.csv"

for f in "$top"/tests/data/bad/*.dat; do
	set +e
	"$BLKMAP" report "$f" >/dev/null 2>"$T/err"
	status=$?
	set -e
	[ $status -eq 1 ] || fail "$(basename "$f"): exit $status, not 1"
	grep -q "offset [0-9]*:" "$T/err" || fail "$(basename "$f"): no offset in '$(cat "$T/err")'"
	note "$(basename "$f"): $(cat "$T/err")"
done

# Inputs the fuzzer once crashed report with: now they read, or are refused.
for f in "$top"/tests/data/fuzz/*.dat; do
	set +e
	"$BLKMAP" report --disks "$f" >/dev/null 2>"$T/err"
	status=$?
	set -e
	[ $status -le 1 ] || fail "$(basename "$f"): exit $status"
	note "$(basename "$f"): exit $status"
done
