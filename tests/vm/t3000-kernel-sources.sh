# In Debian's kernels (6.1 and 6.12) under QEMU: with kprobes, and with the
# module, every I/O event is labelled and every boundary is exact; with only
# the sources the host kernel has, labels are still right, with wider
# boundaries.
. "$(dirname "$0")/../live/lib.sh"
need_root
command -v apt-get >/dev/null || skip "not a Debian machine"
top=$(cd "$(dirname "$0")/../.." && pwd)

for kernel in default 6.12; do
	for sources in kprobe module tracepoint,uevent,sysfs; do
		out=$T/$kernel-$sources
		module=0
		[ "$sources" != module ] || module=1
		"$top/tests/vm/run" --kernel=$kernel "$top/tests/vm/scenarios/hotplug.sh" "$out" \
			SOURCES=$sources MODULE=$module ||
			{ cat "$out/console.log"; fail "$kernel, $sources: scenario failed"; }
		cat "$out/record.err"
		"$BLKMAP" report -f csv "$out/rec.dat" >"$out/events.csv"
		"$BLKMAP" report --map -f csv "$out/rec.dat" >"$out/map.csv"
		"$BLKMAP" report --map "$out/rec.dat" | grep -v 'before the recording'
		check_writes "$out/writes.log" "$out/events.csv"
		check_map "$out/writes.log" "$out/map.csv"
		case $sources in kprobe|module) check_exact "$out/writes.log" "$out/map.csv" ;; esac
	done
done
