# In Debian's kernels (6.1, 6.12 and 5.10, whose guest has no module) under QEMU: with kprobes, and with the
# module, every I/O event is labelled and every boundary is exact; with only
# the sources the host kernel has, labels are still right, with wider
# boundaries.
. "$(dirname "$0")/lib.sh"

on_510="kprobe tracepoint,uevent,sysfs"
for kernel in $lanes; do
	for sources in $(runs $kernel kprobe module tracepoint,uevent,sysfs); do
		out=$T/$kernel-$sources
		module=0
		[ "$sources" != module ] || module=1
		in_vm $kernel hotplug "$out" SOURCES=$sources MODULE=$module
		cat "$out/record.err"
		reports "$out"
		check_writes "$out/writes.log" "$out/events.csv"
		check_map "$out/writes.log" "$out/map.csv"
		case $sources in kprobe|module) check_exact "$out/writes.log" "$out/map.csv" ;; esac
	done
done
