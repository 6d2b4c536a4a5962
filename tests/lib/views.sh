#!/bin/sh
# views.sh BLKMAP RECORDING OUTDIR: every view of blkmap report on RECORDING,
# in every format it has, one file a view into OUTDIR (created), its standard
# error and exit status beside it in NAME.err; with --foreign, only the
# analyses (--disks, --interval), for a recording of no block I/O whose event
# listing t0240 compares with trace-cmd's. The paths of RECORDING and OUTDIR
# are left out of what is written, so that the outputs of two builds, or of
# two places, compare byte for byte (t0495; tests/data/views/README says how
# the expected outputs were made).
set -u
foreign=false
[ "${1:-}" = --foreign ] && { foreign=true; shift; }
b=$1 rec=$2 out=$3
mkdir -p "$out"
run() { # NAME ARGS...
	n=$1; shift
	"$b" report "$@" >"$out/$n" 2>"$out/$n.err"
	echo "exit $?" >>"$out/$n.err"
	sed -i -e "s|$out/||g" -e "s|$rec|RECORDING|g" "$out/$n.err"
}
if $foreign; then
	run disks.csv --disks -f csv "$rec"
	run interval.csv --interval=10ms -f csv "$rec"
	exit 0
fi
for f in text csv json; do
	run events.$f -f $f "$rec"
	run map.$f --map -f $f "$rec"
	run conflicts.$f --conflicts -f $f "$rec"
	run disks.$f --disks -f $f "$rec"
	run latency.$f --latency -f $f "$rec"
	run top.$f --top -f $f "$rec"
	run cgroups.$f --cgroups -f $f "$rec"
	run stack.$f --stack -f $f "$rec"
	run phases.$f --phases -f $f "$rec"
	run interval.$f --interval=10ms -f $f "$rec"
done
run events.explain --explain "$rec"
run events.rel --time=rel "$rec"
run disks.rel --disks --time=rel "$rec"
run interval.1s --interval=1s -f csv "$rec"
run disks.sort-util --disks --sort=util -f csv "$rec"
run plot.err --plot="$out/plot.svg" --disks -f csv "$rec"
run plot-bins.err --plot="$out/plot-bins.svg" --bins=37 --latency "$rec"
run schema.json --schema
